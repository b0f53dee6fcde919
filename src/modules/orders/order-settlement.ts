import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import type { TransactionalKey } from '../../http/idempotency.js';
import { conflict, notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import type { EscrowActor, EscrowRefund, EscrowApi } from '../escrow/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { toPaymentView, type PaymentsApi } from '../payments/index.js';
import * as orderRepo from './order-payment.repository.js';
import { orderPaymentSubject } from './order-subject.js';
import type { OrdersService } from './orders.service.js';

const SYSTEM: EscrowActor = { userId: null, role: 'SYSTEM' };

export interface OrderSettlementDeps {
  payments: PaymentsApi;
  orders: OrdersService;
  escrow: EscrowApi;
  notifications: NotificationsApi;
}

export type OrderSettlement = ReturnType<typeof createOrderSettlement>;

/**
 * The money side of an order: orders declared as a payment subject (the payments module's webhook,
 * reconciliation and refunds reach them through it), the escrow's refunds sent back through the
 * provider, a cancelled paid order refunded, and a new attempt for an order whose payment failed.
 */
export function createOrderSettlement(ctx: AppContext, deps: OrderSettlementDeps) {
  const now = () => ctx.clock.now();
  const { payments } = deps;
  payments.registerSubject('order', orderPaymentSubject(deps));

  // A refund out of escrow: the payment waits for the provider, the job asks it.
  deps.escrow.onRefund(async (tx: Executor, r: EscrowRefund) => {
    await payments.settlement.beginRefund(tx, r.paymentId, r.ledgerTransactionId);
    if (!r.extra) await orderRepo.setOrderPaymentStatus(tx, r.orderId, 'REFUND_PENDING', now());
  });

  // A paid order cancelled (by its client, the seller or an administrator): its money goes back.
  ctx.events.subscribe('orders.cancelled', 'payments-refund', async (e) => {
    if (!e.paid) return;
    await ctx.db.transaction(async (tx) => {
      await orderRepo.lockOrder(tx, e.orderId);
      const held = await deps.escrow.find(tx, e.orderId);
      if (held?.state !== 'HELD' && held?.state !== 'DISPUTED') return;
      await deps.escrow.refund(tx, e.orderId, `ORDER_CANCELLED: ${e.reason}`.slice(0, 500), SYSTEM);
    });
  });

  return {
    /**
     * The client refunded through the escrow (`HELD` or `DISPUTED` -> refunded). The provider is
     * asked by a job after commit.
     */
    refund: (tx: Executor, r: { orderId: string; reason: string; actor: EscrowActor }) =>
      deps.escrow.refund(tx, r.orderId, r.reason, r.actor),

    /** A new attempt for a PENDING order whose latest attempt FAILED or EXPIRED. */
    async retry(user: AuthUser, orderId: string, idempotency?: TransactionalKey) {
      // The same request, whose attempt committed but whose answer was lost with its process: that attempt.
      const made = idempotency?.madeBefore();
      const known = made && (await payments.find(ctx.db, made));
      if (known) return { orderId, payment: toPaymentView(await payments.openAfterCommit(known)) };
      const id = uuidv7(now().getTime());
      const payment = await ctx.db.transaction(async (tx) => {
        // The key commits with the attempt (a concurrent request with it waits here, then is answered by the key).
        await idempotency?.claim(tx, id);
        const o = await orderRepo.lockOrder(tx, orderId);
        if (!o || o.clientId !== user.id) throw notFound('Order');
        if (o.status !== 'PENDING' || o.paymentDeadline <= now())
          throw conflict(
            'ORDER_NOT_PENDING',
            `The order is ${o.status === 'PENDING' ? 'past its payment deadline' : o.status}: it can no longer be paid`,
          );
        const latest = (await payments.latestOfOrders(tx, [orderId])).get(orderId)?.payment;
        if (!latest || (latest.status !== 'FAILED' && latest.status !== 'EXPIRED')) {
          throw conflict(
            'PAYMENT_NOT_RETRYABLE',
            `The latest payment is ${latest?.status ?? 'missing'}: only a FAILED or EXPIRED payment can be retried`,
          );
        }
        const next = await payments.start(tx, {
          id,
          orderId,
          method: o.paymentMethod,
          amount: o.itemsTotal,
          currency: o.currency,
          payerPhone: o.payerPhone,
          expiresAt: o.paymentDeadline,
        });
        // The failed attempt's session could still be paid: close it (a payment on it anyway is refunded).
        if (latest.status === 'FAILED' && latest.providerSessionId) await payments.expireSession(tx, latest.id);
        return next;
      });
      return { orderId, payment: toPaymentView(await payments.openAfterCommit(payment)) };
    },
  };
}
