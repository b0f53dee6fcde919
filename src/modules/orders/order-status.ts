import type { OrderStatus } from '../../db/schema/orders.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * How an order moves (PATCH /orders/:id/status and the cancellations). The spec's chain
 * PENDING -> CONFIRMED -> PREPARING -> READY -> COMPLETED, and cancellation until the order is
 * ready: once the food is packed and waiting, only the pickup ends it.
 */
export const ORDER_TRANSITIONS: TransitionTable<OrderStatus> = {
  PENDING: ['CONFIRMED', 'CANCELLED'],
  CONFIRMED: ['PREPARING', 'CANCELLED'],
  PREPARING: ['READY', 'CANCELLED'],
  READY: ['COMPLETED'],
  COMPLETED: [],
  CANCELLED: [],
};

/** States with nothing left to do: stock settled, no work in progress. */
export const FINAL_ORDER_STATUSES: readonly OrderStatus[] = ['COMPLETED', 'CANCELLED'];
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ['PENDING', 'CONFIRMED', 'PREPARING', 'READY'];

/** Reason recorded when an unpaid order reaches its payment deadline. */
export const PAYMENT_TIMEOUT = 'PAYMENT_TIMEOUT';
/** Reason recorded when an order's payment failed for good and nobody retried it within the grace period. */
export const PAYMENT_FAILED = 'PAYMENT_FAILED';
/** Reasons of the system's cancellations of unpaid orders: the client is told the payment did not come. */
export const UNPAID_REASONS: readonly string[] = [PAYMENT_TIMEOUT, PAYMENT_FAILED];
