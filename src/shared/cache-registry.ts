import type { Redis } from 'ioredis';
import { uuidv7 } from './ids.js';

const CHANNEL = 'foodsave:caches:drop';
const EVERY_CACHE = '*';

/**
 * Every in-process cache the platform keeps registers here with a way to drop its own entries.
 * Dropping one cache (after a change it holds) or all of them (an administrator's request) then
 * happens here and, through Redis, on every instance, so a new cache gets cluster-wide
 * invalidation by registering. Without Redis only this instance drops: each cache bounds how
 * stale another instance may be by its own expiry.
 */
export class CacheRegistry {
  private readonly caches = new Map<string, () => void>();
  private subscriber: Redis | null = null;
  // Messages carry the sender's id so an instance does not drop twice what it dropped itself.
  private readonly instanceId = uuidv7();

  constructor(private readonly redis: Redis | null) {}

  /** `dropLocal` empties the cache on this instance only. Names are unique. */
  register(name: string, dropLocal: () => void): void {
    if (name === EVERY_CACHE || this.caches.has(name)) throw new Error(`Cache name already taken: ${name}`);
    this.caches.set(name, dropLocal);
  }

  names(): string[] {
    return [...this.caches.keys()].sort();
  }

  /** True when drops reach the other instances (Redis is configured). */
  get sharedAcrossInstances(): boolean {
    return this.redis !== null;
  }

  async start(onError: (err: unknown) => void): Promise<void> {
    if (!this.redis) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (_channel: string, message: string) => {
      const at = message.indexOf(':');
      if (message.slice(0, at) !== this.instanceId) this.dropHere(message.slice(at + 1));
    });
    await this.subscriber.subscribe(CHANNEL);
  }

  /** Drops one cache here and on every instance. */
  changed(name: string): void {
    this.dropHere(name);
    this.publish(name);
  }

  /** Drops every registered cache here and on every instance; answers their names. */
  dropAll(): string[] {
    this.dropHere(EVERY_CACHE);
    this.publish(EVERY_CACHE);
    return this.names();
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
  }

  private dropHere(name: string): void {
    if (name === EVERY_CACHE) for (const drop of this.caches.values()) drop();
    else this.caches.get(name)?.();
  }

  private publish(name: string): void {
    // A lost message leaves other instances stale only until their cache expires.
    this.redis?.publish(CHANNEL, `${this.instanceId}:${name}`).catch(() => undefined);
  }
}
