import type { Redis } from 'ioredis';
import type { Clock } from '../shared/clock.js';

/**
 * With Redis, a counter per listing domain (`products.`), and `*` for everything, raised by each
 * write before its client hears back and read by each listing read: an instance drops what another
 * changed before it serves its next list, not when a message reaches it.
 */
const VERSIONS = 'foodsave:listings:versions';
const ALL = '*';
const domainOf = (scope: string) => scope.slice(0, scope.indexOf('.') + 1);
/** What the cache may hold: bytes of heap, estimated from the answers' JSON (HEAP_PER_JSON_BYTE). */
export const LISTING_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * Heap a cached answer takes per byte of its JSON: measured on the server after uncached nearby
 * loads, 16 MB of answers' JSON held 47 MB of heap (objects, property names, strings, Dates): the
 * budget counted in JSON bytes let the cache alone take the server past 200 MB resident.
 */
export const HEAP_PER_JSON_BYTE = 3;
/**
 * One answer in so many per scope is measured (its JSON's length); the others count as the average
 * of their scope's measured ones: serialising every answer once more only to weigh it was about a
 * tenth of an uncached list's own work in the process.
 */
export const MEASURE_EVERY = 8;

/**
 * A part of an answer that knows the length of its own JSON (items the database already wrote): the
 * cache weighs it by that length instead of turning it into objects to serialize them again.
 */
export const JSON_LENGTH = Symbol('jsonLength');
interface Measured {
  [JSON_LENGTH](): number;
}
const isMeasured = (v: unknown): v is Measured => typeof v === 'object' && v !== null && JSON_LENGTH in v;

/**
 * About the length of an answer's JSON, the measured parts of an object by their own length
 * (JSON.stringify would call their toJSON).
 */
function jsonLength(answer: unknown): number {
  if (isMeasured(answer)) return answer[JSON_LENGTH]();
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
    return JSON.stringify(answer)?.length ?? 0;
  let n = 2;
  for (const [key, v] of Object.entries(answer))
    n += key.length + 4 + (isMeasured(v) ? v[JSON_LENGTH]() : (JSON.stringify(v)?.length ?? 0));
  return n;
}

interface Entry {
  value: Promise<unknown>;
  bytes: number;
  /** The instant (ms) the answer stops being true: an item expires, a closure starts or ends. */
  until: number;
}

/**
 * The next instant (ms) at which something every list depends on changes with time alone (a store's
 * temporary closure starts or ends), or Infinity: an answer kept by the cache must not outlive it.
 */
export type NextChange = (now: Date) => Promise<number>;

/**
 * Public listings (search and nearby of suppliers, stores, products) are read far more often than
 * the data behind them changes. Answers are kept per query for the current minute (so "open now"
 * is right to the minute) within a byte budget (the oldest go first), and a write drops only the
 * scopes it can change (`stores.` drops `stores.search` and `stores.nearby`); with Redis the other
 * instances drop them at their next read (VERSIONS). Concurrent identical queries share one database round. An answer is
 * never served past the earliest instant it stops being true: the earliest expiry among its items
 * (`until` of `get`) and the next closure's start or end (`nextChange`, read once until it passes or a
 * write drops answers), so an item leaves a cached list the second it leaves the database's.
 */
export class ListingCache {
  private entries = new Map<string, Entry>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private minute = -1;
  /** The last version of each VERSIONS field this instance has seen. */
  private seen = new Map<string, number>();
  private weights = new Map<string, { answers: number; measured: number; bytes: number }>();
  private horizon: { at: Promise<number>; known?: number } | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly redis: Redis | null,
    private readonly maxBytes = LISTING_CACHE_BYTES,
    private readonly nextChange: NextChange = async () => Infinity,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /**
   * The answer of `load` for these params, cached. `until`: the instant (ms) the answer stops being
   * true by itself (its earliest item's expiry), Infinity when none.
   */
  async get<T>(scope: string, params: object, load: () => Promise<T>, until?: (answer: T) => number): Promise<T> {
    if (!(await this.catchUp(scope))) return load();
    return this.local(scope, params, load, until);
  }

  private local<T>(scope: string, params: object, load: () => Promise<T>, until?: (answer: T) => number): Promise<T> {
    const now = this.clock.now();
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.minute) {
      this.drop();
      this.minute = minute;
    }
    const key = `${scope}|${JSON.stringify(params)}`;
    const hit = this.entries.get(key);
    if (hit && now.getTime() < hit.until) {
      this.hits++;
      return hit.value as Promise<T>;
    }
    if (hit) this.remove(key, hit);
    this.misses++;
    const horizon = this.horizonAt(now);
    const value = load();
    const entry: Entry = { value, bytes: key.length * HEAP_PER_JSON_BYTE, until: Infinity };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    Promise.all([value, horizon]).then(
      ([answer, changes]) => {
        // Still the same entry (not dropped meanwhile): count what it holds, then keep to the budget.
        if (this.entries.get(key) !== entry) return;
        entry.until = Math.min(changes, until ? until(answer) : Infinity);
        if (entry.until <= this.clock.now().getTime()) return this.remove(key, entry);
        const size = (key.length + this.weigh(scope, answer)) * HEAP_PER_JSON_BYTE;
        this.bytes += size - entry.bytes;
        entry.bytes = size;
        this.evict();
      },
      () => this.remove(key, entry),
    );
    return value;
  }

  /** The bytes the cached answers hold (for tests and metrics). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Figures for the metrics: entries, bytes held (estimated heap of the answers), hits and misses since start. */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  /** Drops the cached answers of these scopes (prefixes), or all, on this instance only. */
  dropLocal(scopes?: readonly string[]): void {
    this.drop(scopes);
  }

  /**
   * Drops the answers of these scopes (all without) here and, through Redis, on the other instances
   * at their next read. Without Redis for a moment the others keep theirs until the minute turns.
   */
  async changed(scopes?: readonly string[]): Promise<void> {
    this.drop(scopes);
    if (!this.redis) return;
    const tx = this.redis.multi();
    for (const field of scopes ? new Set(scopes.map(domainOf)) : [ALL]) tx.hincrby(VERSIONS, field, 1);
    await tx.exec().catch(this.onError);
  }

  /**
   * Drops what writes elsewhere changed since this instance last looked. False for a read older than
   * one already answered (its versions came back late): it loads without the cache.
   */
  private async catchUp(scope: string): Promise<boolean> {
    if (!this.redis) return true;
    const domain = domainOf(scope);
    const versions = await this.redis.hmget(VERSIONS, ALL, domain).catch((err: unknown) => {
      this.onError(err);
      return null;
    });
    if (!versions) return true;
    const [all, mine] = versions.map(Number);
    return this.advance(ALL, all!, undefined) && this.advance(domain, mine!, [domain]);
  }

  private advance(field: string, version: number, scopes: readonly string[] | undefined): boolean {
    const last = this.seen.get(field) ?? 0;
    if (version > last) {
      this.seen.set(field, version);
      this.drop(scopes);
    }
    return version >= last;
  }

  /**
   * The JSON length of an answer: measured for the first of a scope and one in MEASURE_EVERY, else the
   * scope's average.
   */
  private weigh(scope: string, answer: unknown): number {
    let w = this.weights.get(scope);
    if (!w) this.weights.set(scope, (w = { answers: 0, measured: 0, bytes: 0 }));
    if (w.answers++ % MEASURE_EVERY === 0) {
      w.measured++;
      w.bytes += jsonLength(answer);
    }
    return Math.round(w.bytes / w.measured);
  }

  /** The next closure change after `now`, read again once it has passed or answers were dropped (a write). */
  private horizonAt(now: Date): Promise<number> {
    const h = this.horizon;
    if (h && (h.known === undefined || h.known > now.getTime())) return h.at;
    const next: { at: Promise<number>; known?: number } = { at: this.nextChange(now).catch(() => 0) };
    void next.at.then((at) => (next.known = at));
    this.horizon = next;
    return next.at;
  }

  private drop(scopes?: readonly string[]): void {
    // A write that dropped answers may have set or moved a closure.
    this.horizon = null;
    if (!scopes) {
      this.entries.clear();
      this.bytes = 0;
      return;
    }
    for (const [key, entry] of this.entries) if (scopes.some((s) => key.startsWith(s))) this.remove(key, entry);
  }

  private remove(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    // Map order is insertion order: the oldest answers go first.
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(key, entry);
    }
  }
}
