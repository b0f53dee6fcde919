import { toPaymentView, type PaymentRecord } from '../payments/index.js';
import type { HistoryRecord, OrderItemRecord, OrderRecord } from './orders.repository.js';
import type { OrderView } from './orders.schemas.js';

/**
 * An order as its client or seller sees it. The pickup code is the client's proof at the counter:
 * only the client sees it (a seller who could read it would check nothing).
 */
export function toOrderView(
  o: OrderRecord,
  items: OrderItemRecord[],
  payment: PaymentRecord | undefined,
  storeName: string | null,
  forClient: boolean,
): OrderView {
  return {
    id: o.id,
    status: o.status,
    paymentStatus: o.paymentStatus,
    clientId: o.clientId,
    supplierId: o.supplierId,
    storeId: o.storeId,
    storeName,
    items: items.map((i) => ({
      productId: i.productId,
      name: i.productName,
      unitPrice: i.unitPrice,
      originalUnitPrice: i.originalUnitPrice,
      quantity: i.quantity,
      lineTotal: i.unitPrice * i.quantity,
    })),
    currency: o.currency,
    itemsTotal: o.itemsTotal,
    originalTotal: o.originalTotal,
    savings: o.originalTotal - o.itemsTotal,
    pickup: {
      startsAt: o.pickupStartsAt.toISOString(),
      endsAt: o.pickupEndsAt.toISOString(),
      code: forClient ? o.pickupCode : null,
    },
    paymentMethod: o.paymentMethod,
    payerPhone: o.payerPhone,
    note: o.note,
    cancelReason: o.cancelReason,
    paymentDeadline: o.paymentDeadline.toISOString(),
    payment: payment ? toPaymentView(payment) : null,
    paidAt: o.paidAt?.toISOString() ?? null,
    completedAt: o.completedAt?.toISOString() ?? null,
    cancelledAt: o.cancelledAt?.toISOString() ?? null,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export const toHistoryView = (h: HistoryRecord) => ({
  fromStatus: h.fromStatus,
  toStatus: h.toStatus,
  byUserId: h.byUserId,
  byRole: h.byRole,
  reason: h.reason,
  at: h.at.toISOString(),
});
