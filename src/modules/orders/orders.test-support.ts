import type { TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { admin, publishProduct, supplierWithStore } from '../products/products.test-support.js';

export { admin };

/** A verified supplier, its store and `count` published products (price 600, was 1500, stock 10 unless `over` says). */
export async function shopWithProducts(t: TestApp, adminToken: string, count = 1, over: Record<string, unknown> = {}) {
  const s = await supplierWithStore(t);
  const products = [];
  for (let i = 0; i < count; i++) products.push(await publishProduct(t, s, adminToken, { name: `Panier ${i + 1}`, ...over }));
  return { ...s, products };
}

export const newClient = (t: TestApp) => createSignedIn(t.app);

/** POST /orders with the given lines (default: 1 of each product), paying with Wave. */
export function placeOrder(t: TestApp, token: string, lines: { productId: string; quantity?: number }[], over: Record<string, unknown> = {}) {
  const items = lines.map((l) => ({ productId: l.productId, quantity: l.quantity ?? 1 }));
  return call(t.app, 'POST', '/orders', { token, body: { items, paymentMethod: 'wave', ...over } });
}

/** Places an order that must succeed; answers its data. */
export async function orderOk(t: TestApp, token: string, lines: { productId: string; quantity?: number }[], over: Record<string, unknown> = {}) {
  const res = await placeOrder(t, token, lines, over);
  if (res.status !== 201) throw new Error(`order not created: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; itemsTotal: number; pickup: { code: string }; payment: { transactionId: string } };
}

/**
 * Test stand-in for the payment webhook: records the order's waiting payment as succeeded and
 * calls `orders.markPaid`, in one transaction, as the webhook will.
 */
export async function markOrderPaidForTest(t: TestApp, orderId: string): Promise<{ open: boolean }> {
  const { payments, orders } = t.app.services;
  return t.app.ctx.db.transaction(async (tx) => {
    const latest = (await payments.latestOfOrders(tx, [orderId])).get(orderId);
    if (!latest) throw new Error(`order ${orderId} has no payment`);
    await payments.recordSucceeded(tx, latest.payment.id, { providerTransactionId: `T_${orderId.slice(-8)}`, paidAt: t.clock.now() });
    return orders.markPaid(tx, orderId, latest.payment.id);
  });
}

export const setStatus = (t: TestApp, token: string, orderId: string, body: Record<string, unknown>) => call(t.app, 'PATCH', `/orders/${orderId}/status`, { token, body });

export async function productState(t: TestApp, productId: string) {
  const { products } = t.app.services;
  const [row] = await products.findForOrder(t.app.ctx.db, [productId]);
  return { quantity: row!.product.quantity, reserved: row!.product.reservedQuantity, sold: row!.product.soldQuantity };
}
