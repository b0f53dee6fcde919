import { AppError } from './errors.js';

/** Allowed transitions as data: `{ FROM: ['TO', ...] }`. */
export type TransitionTable<S extends string> = Record<S, readonly S[]>;

export function canTransition<S extends string>(table: TransitionTable<S>, from: S, to: S): boolean {
  return table[from].includes(to);
}

/** Throws 409 INVALID_TRANSITION when `from -> to` is not in the table. */
export function assertTransition<S extends string>(table: TransitionTable<S>, from: S, to: S, what = 'Status'): void {
  if (!canTransition(table, from, to)) {
    const allowed = table[from].length ? table[from].join(', ') : 'none';
    throw new AppError(409, 'INVALID_TRANSITION', `${what} cannot go from ${from} to ${to} (allowed: ${allowed})`);
  }
}
