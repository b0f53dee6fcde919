import { sql } from 'drizzle-orm';
import type { TestApp } from '../../../test/helpers/app.js';
import { MONEY_INVARIANTS, type MoneyInvariant } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { admin, publishProduct, supplierWithStore } from '../products/products.test-support.js';

export { admin, publishProduct as publish };

/** A verified supplier, its store and `count` published products (price 600, was 1500, stock 10 unless `over` says). */
export async function shopWithProducts(t: TestApp, adminToken: string, count = 1, over: Record<string, unknown> = {}) {
  const s = await supplierWithStore(t);
  const products = [];
  for (let i = 0; i < count; i++)
    products.push(await publishProduct(t, s, adminToken, { name: `Panier ${i + 1}`, ...over }));
  return { ...s, products };
}

export const newClient = (t: TestApp) => createSignedIn(t.app);

/** POST /orders with the given lines (default: 1 of each product), paying with Wave. */
export function placeOrder(
  t: TestApp,
  token: string,
  lines: { productId: string; quantity?: number }[],
  over: Record<string, unknown> = {},
) {
  const items = lines.map((l) => ({ productId: l.productId, quantity: l.quantity ?? 1 }));
  return call(t.app, 'POST', '/orders', { token, body: { items, paymentMethod: 'wave', ...over } });
}

/** Places an order that must succeed; answers its data. */
export async function orderOk(
  t: TestApp,
  token: string,
  lines: { productId: string; quantity?: number }[],
  over: Record<string, unknown> = {},
) {
  const res = await placeOrder(t, token, lines, over);
  if (res.status !== 201) throw new Error(`order not created: ${JSON.stringify(res.body)}`);
  return res.body.data as {
    id: string;
    itemsTotal: number;
    pickup: { code: string };
    payment: { transactionId: string };
  };
}

/**
 * Test stand-in for the payment webhook: records the order's waiting payment as succeeded, holds
 * its money in escrow (the ledger credit) and calls `orders.markPaid`, in one transaction, as the
 * webhook does. Answers markPaid's answer (for an order no longer open, whose payment the webhook refunds).
 */
export async function markOrderPaidForTest(t: TestApp, orderId: string): Promise<{ open: boolean }> {
  const { payments, orders, escrow } = t.app.services;
  return t.app.ctx.db.transaction(async (tx) => {
    const latest = (await payments.latestOfOrders(tx, [orderId])).get(orderId);
    if (!latest) throw new Error(`order ${orderId} has no payment`);
    const p = latest.payment;
    if (
      await payments.recordSucceeded(tx, p.id, {
        providerTransactionId: `T_${orderId.slice(-8)}`,
        paidAt: t.clock.now(),
      })
    ) {
      await escrow.hold(tx, { orderId, paymentId: p.id, amount: p.amount, currency: p.currency });
    }
    return orders.markPaid(tx, orderId, p.id);
  });
}

export const setStatus = (t: TestApp, token: string, orderId: string, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', `/orders/${orderId}/status`, { token, body });

export async function productState(t: TestApp, productId: string) {
  const { products } = t.app.services;
  const [row] = await products.findForOrder(t.app.ctx.db, [productId]);
  return { quantity: row!.product.quantity, reserved: row!.product.reservedQuantity, sold: row!.product.soldQuantity };
}

/**
 * Stock + reserved + sold = initial, in the form the rows allow (the supplier may edit the stock):
 * every product's reserved units are those of its open orders and open food donations, its sold
 * units those of its completed orders and collected donations, and none is negative.
 */
export const stockFollowsOrders: MoneyInvariant = {
  name: "every product's reserved and sold units match its open and completed orders and food donations",
  async violations(ex) {
    const bad = await rows<{
      id: string;
      quantity: number;
      reserved: number;
      sold: number;
      open: number;
      done: number;
    }>(
      ex,
      sql`with held as (
            select i.product_id, coalesce(sum(i.quantity) filter (where o.status not in ('COMPLETED', 'CANCELLED')), 0)::int as open,
              coalesce(sum(i.quantity) filter (where o.status = 'COMPLETED'), 0)::int as done
            from order_items i join orders o on o.id = i.order_id group by i.product_id
            union all
            select i.product_id, coalesce(sum(i.quantity) filter (where d.status in ('PENDING', 'ACCEPTED', 'PICKUP_SCHEDULED')), 0)::int,
              coalesce(sum(i.quantity) filter (where d.status = 'COLLECTED'), 0)::int
            from donation_items i join donations d on d.id = i.donation_id where i.product_id is not null group by i.product_id
          ), per as (select product_id, sum(open)::int as open, sum(done)::int as done from held group by product_id)
          select p.id, p.quantity, p.reserved_quantity as reserved, p.sold_quantity as sold, coalesce(h.open, 0) as open, coalesce(h.done, 0) as done
          from products p left join per h on h.product_id = p.id
          where p.quantity < 0 or p.reserved_quantity <> coalesce(h.open, 0) or p.sold_quantity <> coalesce(h.done, 0)`,
    );
    return bad.map(
      (r) =>
        `product ${r.id}: stock ${r.quantity}, reserved ${r.reserved} (open orders ${r.open}), sold ${r.sold} (completed ${r.done})`,
    );
  },
};
if (!MONEY_INVARIANTS.includes(stockFollowsOrders)) MONEY_INVARIANTS.push(stockFollowsOrders);
