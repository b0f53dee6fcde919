import { together, type Executor } from '../db/client.js';
import { conflict } from './errors.js';

export type WorkScope = { supplierId: string } | { storeId: string } | { productId: string };

/** Describes the unfinished work of a scope (e.g. "2 orders in progress"), or null when there is none. */
export type WorkCheck = (ex: Executor, scope: WorkScope) => Promise<string | null>;

/**
 * Suppliers and stores cannot be removed while they owe others something. Each module that
 * creates such work (orders, bookings, invitations...) registers a check here; deletion asks all.
 */
export class WorkInProgress {
  private readonly checks: WorkCheck[] = [];

  register(check: WorkCheck): void {
    this.checks.push(check);
  }

  /** 409 `code` (HAS_WORK_IN_PROGRESS unless given) when any check reports unfinished work. */
  async assertNone(ex: Executor, scope: WorkScope, what: string, code = 'HAS_WORK_IN_PROGRESS'): Promise<void> {
    const found = (
      await together(
        ex,
        this.checks.map((c) => () => c(ex, scope)),
      )
    ).filter((x): x is string => Boolean(x));
    if (found.length)
      throw conflict(code, `${what} cannot be deleted while it has work in progress: ${found.join('; ')}`);
  }
}
