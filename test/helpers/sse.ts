export interface SseEvent {
  event: string;
  data: unknown;
}

/**
 * A Server-Sent Events client over fetch: reads the stream as it arrives and hands out its
 * events in order. `next()` waits up to 5 s for the next event.
 */
export async function openSse(url: string, token: string) {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  if (res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let at: number;
          while ((at = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const lines = block.split('\n');
            const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
            const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
            if (event && data !== undefined) events.push({ event, data: JSON.parse(data) });
            waiters.splice(0).forEach((w) => w());
          }
        }
      } catch {
        // aborted by close()
      }
      ended = true;
      waiters.splice(0).forEach((w) => w());
    })();
  }
  let read = 0;
  return {
    status: res.status,
    headers: res.headers,
    async next(): Promise<SseEvent> {
      const deadline = Date.now() + 5000;
      while (events.length <= read) {
        if (ended) throw new Error('the stream ended');
        if (Date.now() > deadline) throw new Error('no event within 5 s');
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return events[read++]!;
    },
    /** Resolves once the server has ended the stream. */
    async ended(): Promise<void> {
      const deadline = Date.now() + 5000;
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (!ended) throw new Error('the stream is still open');
    },
    close: () => controller.abort(),
  };
}
