import type { FastifyBaseLogger } from 'fastify';

/**
 * Messages to outside systems (SMS, email) are sent after the work that produced them is
 * committed, without holding the response: answers take the same time whether or not a message
 * goes out, and a slow gateway cannot slow the API. Shutdown waits for what is in flight.
 */
export class Outbound {
  private readonly inFlight = new Set<Promise<void>>();
  constructor(private readonly log: FastifyBaseLogger) {}

  send(label: string, task: () => Promise<void>): void {
    const p = task()
      .catch((err: unknown) => this.log.error({ err, label }, 'outbound message failed'))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
