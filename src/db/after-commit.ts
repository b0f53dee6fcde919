import type { Db, Executor } from './client.js';

// Callbacks to run once the transaction they were registered in has committed.
const pending = new WeakMap<Executor, (() => void)[]>();

/**
 * Makes `db.transaction` run the callbacks registered with `afterCommit(tx, ...)` once it has
 * committed (never after a rollback). Used to wake the job workers as soon as the jobs a request
 * enqueued are visible, instead of waiting for their next poll.
 */
export function enableAfterCommit(db: Db): void {
  const transaction = db.transaction.bind(db);
  db.transaction = (async (fn: (tx: Executor) => Promise<unknown>, config?: unknown) => {
    const callbacks: (() => void)[] = [];
    const result = await transaction(async (tx) => {
      pending.set(tx as unknown as Executor, callbacks);
      return fn(tx as unknown as Executor);
    }, config as never);
    for (const cb of callbacks) cb();
    return result;
  }) as Db['transaction'];
}

/**
 * Runs `cb` after `ex` commits. Outside a transaction opened by `db.transaction` (a savepoint, or
 * the database handle itself) it runs at once: the caller's work is then already visible or will be
 * found by the next poll.
 */
export function afterCommit(ex: Executor, cb: () => void): void {
  const list = pending.get(ex);
  if (list) list.push(cb);
  else cb();
}
