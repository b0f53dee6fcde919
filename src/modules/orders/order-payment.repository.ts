import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { orders, type OrderPaymentStatus } from '../../db/schema/orders.js';

/*
 * The few order columns settlement reads and the one it writes (`payment_status`, whose refund
 * states belong to the money side). Locking the order row first is the fixed lock order every money
 * path follows (order, then payment, then escrow), as the order's own changes do: a cancellation
 * and a webhook of the same order wait for each other instead of deadlocking.
 */

export interface OrderMoneyFacts {
  id: string;
  clientId: string;
  status: string;
  paymentStatus: OrderPaymentStatus;
  itemsTotal: number;
  currency: string;
  paymentMethod: (typeof orders.$inferSelect)['paymentMethod'];
  payerPhone: string | null;
  paymentDeadline: Date;
}

const columns = {
  id: orders.id,
  clientId: orders.clientId,
  status: orders.status,
  paymentStatus: orders.paymentStatus,
  itemsTotal: orders.itemsTotal,
  currency: orders.currency,
  paymentMethod: orders.paymentMethod,
  payerPhone: orders.payerPhone,
  paymentDeadline: orders.paymentDeadline,
};

export async function lockOrder(ex: Executor, orderId: string): Promise<OrderMoneyFacts | undefined> {
  const [row] = await ex.select(columns).from(orders).where(eq(orders.id, orderId)).limit(1).for('update');
  return row;
}

export async function setOrderPaymentStatus(
  ex: Executor,
  orderId: string,
  paymentStatus: OrderPaymentStatus,
  now: Date,
): Promise<void> {
  await ex.update(orders).set({ paymentStatus, updatedAt: now }).where(eq(orders.id, orderId));
}
