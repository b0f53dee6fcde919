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
  // JSON length of each settled answer, measured once when it is stored (metrics).
  private sizes = new Map<string, number>();
  private hits = 0;
  private misses = 0;
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
    this.subscriber.on('message', () => this.clear());
    await this.subscriber.subscribe(CHANNEL);
  }

  get<T>(scope: string, params: object, load: () => Promise<T>): Promise<T> {
    const minute = Math.floor(this.clock.now().getTime() / 60_000);
    if (minute !== this.minute) {
      this.clear();
      this.minute = minute;
    }
    const key = `${scope}|${JSON.stringify(params)}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.hits++;
      return hit as Promise<T>;
    }
    this.misses++;
    const value = load();
    this.entries.set(key, value);
    value.then(
      (answer) => {
        if (this.entries.get(key) === value) this.sizes.set(key, JSON.stringify(answer)?.length ?? 0);
      },
      () => this.entries.delete(key),
    );
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      this.sizes.delete(oldest);
    }
    return value;
  }

  /** Figures for the metrics: entries, approximate size (JSON length of the answers), hits and misses since start. */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    let bytes = 0;
    for (const size of this.sizes.values()) bytes += size;
    return { entries: this.entries.size, bytes, hits: this.hits, misses: this.misses };
  }

  /** Drops every cached answer on this instance only (the cache registry's hook). */
  dropLocal(): void {
    this.clear();
  }

  /** Drops every cached answer here and, through Redis, on the other instances. */
  changed(): void {
    this.clear();
    this.redis?.publish(CHANNEL, '1').catch(() => undefined);
  }

  private clear(): void {
    this.entries.clear();
    this.sizes.clear();
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
  }
}
