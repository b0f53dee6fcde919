import type { EscrowActor, EscrowApi } from '../escrow/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { LockedSubject, PaymentSubjectHandler } from '../payments/index.js';
import * as orderRepo from './order-payment.repository.js';
import type { OrdersService } from './orders.service.js';

const SYSTEM: EscrowActor = { userId: null, role: 'SYSTEM' };

type LockedOrder = LockedSubject & { order: orderRepo.OrderMoneyFacts };

/**
 * Orders as a payment subject: the money goes to the order's escrow (escrow.hold posts
 * provider_clearing -> escrow:<orderId>) and the order becomes PAID; money nobody waits for (a second
 * attempt paid, one paid after the order closed) goes back through the escrow's refund.
 */
export function orderPaymentSubject(deps: {
  orders: OrdersService;
  escrow: EscrowApi;
  notifications: NotificationsApi;
}): PaymentSubjectHandler<LockedOrder> {
  return {
    async lock(tx, orderId) {
      const order = await orderRepo.lockOrder(tx, orderId);
      return order && { payerUserId: order.clientId, order };
    },

    async succeeded(tx, p, { order }, { late }) {
      const money = { orderId: order.id, paymentId: p.id, amount: p.amount, currency: p.currency };
      const held = await deps.escrow.find(tx, order.id);
      const orderOpen = order.status !== 'CANCELLED' && order.status !== 'COMPLETED';
      if (held || (late && orderOpen)) {
        // The order's escrow already holds another attempt's money, or nobody waits for this one.
        await deps.escrow.refundExtra(tx, money, held ? 'DUPLICATE_PAYMENT' : 'PAYMENT_AFTER_EXPIRY', SYSTEM);
        return 'refunded';
      }
      await deps.escrow.hold(tx, money);
      if (!late && (await deps.orders.markPaid(tx, order.id, p.id)).open) return 'applied';
      await deps.escrow.refund(tx, order.id, 'ORDER_CLOSED', SYSTEM);
      return 'refunded';
    },

    async failed(tx, p, { order }) {
      if (order.status === 'PENDING' && order.paymentStatus === 'UNPAID')
        await deps.orders.paymentFailed(tx, order.id, p.id);
    },

    async refunded(tx, p, { order }) {
      const t = p.refundedAt ?? p.updatedAt;
      const escrowed = await deps.escrow.find(tx, order.id);
      if (escrowed?.paymentId === p.id) await orderRepo.setOrderPaymentStatus(tx, order.id, 'REFUNDED', t);
      await deps.notifications.notify(
        tx,
        order.clientId,
        'payment_refunded',
        { orderId: order.id, amount: p.amount, currency: p.currency },
        { sourceKey: `payment:${p.id}:refunded` },
      );
    },
  };
}
