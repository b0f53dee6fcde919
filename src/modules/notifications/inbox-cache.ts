import type { Clock } from '../../shared/clock.js';

interface Entry {
  at: number;
  value: unknown;
}

interface UserEntries {
  // Bumped by every change, so a read that began before a change does not store what it read.
  generation: number;
  values: Map<string, Entry>;
}

/**
 * Recent answers of the inbox reads (unread count, list pages) per user. Apps poll these far more
 * often than anything changes, and each read otherwise costs a query beside the session's. Every
 * change of a user's notifications drops that user's entries on every instance (through the
 * notification stream's channel); `ttlMs` bounds how stale an instance can be when it missed a
 * change (no Redis, several instances).
 */
export class InboxCache {
  private readonly users = new Map<string, UserEntries>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxUsers = 20_000,
  ) {}

  async get<T>(userId: string, key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now().getTime();
    const user = this.entriesOf(userId);
    const hit = user.values.get(key);
    if (hit && now - hit.at < this.ttlMs && hit.at <= now) return hit.value as T;
    const generation = user.generation;
    const value = await load();
    // Dropped meanwhile (a change, or the user's entries evicted): keep nothing.
    if (this.users.get(userId) === user && user.generation === generation) user.values.set(key, { at: now, value });
    return value;
  }

  drop(userId: string): void {
    const user = this.users.get(userId);
    if (!user) return;
    user.generation += 1;
    user.values.clear();
  }

  dropAll(): void {
    for (const user of this.users.values()) {
      user.generation += 1;
      user.values.clear();
    }
    this.users.clear();
  }

  private entriesOf(userId: string): UserEntries {
    let user = this.users.get(userId);
    if (user) return user;
    // Bounded: the user seen longest ago goes first (a Map keeps insertion order).
    if (this.users.size >= this.maxUsers) this.users.delete(this.users.keys().next().value!);
    user = { generation: 0, values: new Map() };
    this.users.set(userId, user);
    return user;
  }
}
