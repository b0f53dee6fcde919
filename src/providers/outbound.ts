import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Messages to outside systems (SMS, email) are sent after the work that produced them is
 * committed, without holding the response: answers take the same time whether or not a message
 * goes out, and a slow gateway cannot slow the API. Shutdown waits for what is in flight.
 */
export class Outbound {
  private readonly inFlight = new Set<Promise<void>>();
  // The logger of the request being served, so a failed send names the request that queued it.
  private readonly requestLog = new AsyncLocalStorage<FastifyBaseLogger>();
  constructor(private readonly log: FastifyBaseLogger) {}

  /** Runs `fn` (and what it starts) with `log` as the logger of the messages it queues. */
  withLogger(log: FastifyBaseLogger, fn: () => void): void {
    this.requestLog.run(log, fn);
  }

  send(label: string, task: () => Promise<void>): void {
    const log = this.requestLog.getStore() ?? this.log;
    const p = task()
      .catch((err: unknown) => log.error({ err, label }, 'outbound message failed'))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
