import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';

const CHANNEL = 'foodsave:listings:changed';

/**
 * Public listings (search and nearby of suppliers and stores) are read far more often than the
 * data behind them changes, and each answer costs a page query plus a count. Answers are kept per
 * query for the current minute (so "open now" is right to the minute) and all dropped as soon as
 * anything that could change a listing is written; with Redis the other instances hear of it too.
 * Concurrent identical queries share one database round.
 */
export class ListingCache {
  private entries = new Map<string, Promise<unknown>>();
  private minute = -1;
  private subscriber: Redis | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly redis: Redis | null,
    private readonly maxEntries = 5000,
  ) {}

  async start(onError: (err: unknown) => void): Promise<void> {
    if (!this.redis) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', onError);
    this.subscriber.on('message', () => this.entries.clear());
    await this.subscriber.subscribe(CHANNEL);
  }

  get<T>(scope: string, params: object, load: () => Promise<T>): Promise<T> {
    const minute = Math.floor(this.clock.now().getTime() / 60_000);
    if (minute !== this.minute) {
      this.entries.clear();
      this.minute = minute;
    }
    const key = `${scope}|${JSON.stringify(params)}`;
    const hit = this.entries.get(key);
    if (hit) return hit as Promise<T>;
    const value = load();
    this.entries.set(key, value);
    value.catch(() => this.entries.delete(key));
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** Drops every cached answer on this instance only (the cache registry's hook). */
  dropLocal(): void {
    this.entries.clear();
  }

  /** Drops every cached answer here and, through Redis, on the other instances. */
  changed(): void {
    this.entries.clear();
    this.redis?.publish(CHANNEL, '1').catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
  }
}
