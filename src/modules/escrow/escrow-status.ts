import type { EscrowState } from '../../db/schema/escrow.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * How an order's held money leaves escrow (DESIGN section 6).
 * - HELD -> RELEASED: to the supplier (less the commission), after the delay once the order is
 *   completed, or earlier by an administrator.
 * - HELD -> REFUNDED: back to the client through the provider (cancelled order, payment for an
 *   order no longer open, an administrator's refund).
 * - HELD -> DISPUTED -> RESOLVED_SUPPLIER (paid out as a release) | RESOLVED_CLIENT (refunded).
 * Every state but HELD and DISPUTED holds nothing: the ledger's escrow account is then zero.
 */
export const ESCROW_TRANSITIONS: TransitionTable<EscrowState> = {
  HELD: ['RELEASED', 'REFUNDED', 'DISPUTED'],
  DISPUTED: ['RESOLVED_SUPPLIER', 'RESOLVED_CLIENT'],
  RELEASED: [],
  REFUNDED: [],
  RESOLVED_SUPPLIER: [],
  RESOLVED_CLIENT: [],
};

/** States whose escrow account still holds the amount. */
export const HOLDING_STATES: readonly EscrowState[] = ['HELD', 'DISPUTED'];

/** The state a refund leads to from each state that may be refunded. */
export const REFUND_TARGET: Partial<Record<EscrowState, EscrowState>> = {
  HELD: 'REFUNDED',
  DISPUTED: 'RESOLVED_CLIENT',
};
