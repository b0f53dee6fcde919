import type { PaymentStatus } from '../../db/schema/payments.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * How a payment attempt moves. Provider deliveries repeat and arrive out of order, so the table
 * never lets a payment go backwards: a failure reported after a success is ignored.
 * - PENDING -> SUCCEEDED | FAILED | EXPIRED | CANCELLED: the provider's answer, the session's end,
 *   or the order's cancellation or payment timeout.
 * - FAILED -> SUCCEEDED: the payer tried again on the same session and it went through.
 *   FAILED -> EXPIRED: the session ran out (reconciliation).
 * - EXPIRED | CANCELLED -> SUCCEEDED: money taken after we stopped waiting for it; accepted only to
 *   be refunded at once (the settlement code refunds every such payment).
 * - SUCCEEDED -> REFUND_PENDING -> REFUNDED: the money goes back through the provider.
 */
export const PAYMENT_TRANSITIONS: TransitionTable<PaymentStatus> = {
  PENDING: ['SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELLED'],
  FAILED: ['SUCCEEDED', 'EXPIRED'],
  EXPIRED: ['SUCCEEDED'],
  CANCELLED: ['SUCCEEDED'],
  SUCCEEDED: ['REFUND_PENDING'],
  REFUND_PENDING: ['REFUNDED'],
  REFUNDED: [],
};

/** A success in these states is taken only to be refunded: nobody is waiting for that money any more. */
export const REFUND_ON_SUCCESS: readonly PaymentStatus[] = ['EXPIRED', 'CANCELLED'];

/** States whose provider session reconciliation still asks about. */
export const OPEN_PAYMENT_STATUSES: readonly PaymentStatus[] = ['PENDING', 'FAILED'];
