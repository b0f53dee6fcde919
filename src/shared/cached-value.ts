import type { Executor } from '../db/client.js';
import type { Clock } from './clock.js';

/**
 * One value read from the database, kept in memory for `ttlMs` and shared by concurrent readers.
 * `drop()` forgets it; a read that was running when it was dropped does not store its result,
 * which may predate the change that caused the drop.
 */
export class CachedValue<T> {
  private value: { data: T; expiresAt: number } | undefined;
  private pending: Promise<T> | undefined;
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly db: Executor,
    private readonly load: (ex: Executor) => Promise<T>,
  ) {}

  get(ex: Executor = this.db): Promise<T> {
    const now = this.clock.now().getTime();
    if (this.value && this.value.expiresAt > now) return Promise.resolve(this.value.data);
    // Inside a transaction the read runs on it, unshared and unstored: the embedded database has
    // one connection, so a read outside the transaction would wait for the transaction to end.
    if (ex !== this.db) return this.load(ex);
    if (!this.pending) {
      const read = this.read(now);
      const settle = () => {
        if (this.pending === read) this.pending = undefined;
      };
      read.then(settle, settle);
      this.pending = read;
    }
    return this.pending;
  }

  drop(): void {
    this.value = undefined;
    this.pending = undefined;
    this.generation++;
  }

  private async read(startedAt: number): Promise<T> {
    const generation = this.generation;
    const data = await this.load(this.db);
    if (generation === this.generation) this.value = { data, expiresAt: startedAt + this.ttlMs };
    return data;
  }
}
