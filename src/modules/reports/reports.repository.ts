import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import { type PeriodUnit, supplierPayable } from '../ledger/index.js';

/*
 * Administrators' figures over several modules' tables: read-only aggregates in one query each
 * (payments by status and method, products sold in completed orders, a supplier's escrow). The
 * money figures of the financial report come from the ledger service instead.
 */

const num = (v: string | number | null) => Number(v ?? 0);

/** Payments created in [from, to): count and volume by status, by method, and per period and status. */
export async function paymentFigures(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit; currency: string }) {
  const found = await rows<{ period: string; status: string; method: string; count: number; volume: string }>(
    ex,
    sql`select to_char(date_trunc(${r.unit}, created_at at time zone 'UTC'), 'YYYY-MM-DD') as period, status, method,
          count(*)::int as count, sum(amount)::text as volume
        from payments where currency = ${r.currency} and created_at >= ${r.from} and created_at < ${r.to}
        group by 1, 2, 3 order by 1`,
  );
  return found.map((x) => ({ ...x, volume: num(x.volume) }));
}

/** Products of orders completed in [from, to): units sold and revenue (what clients paid), best first by `order`. */
export async function topProducts(
  ex: Executor,
  r: { from: Date; to: Date; limit: number; order: 'units' | 'revenue' },
) {
  const by = r.order === 'units' ? sql`units desc, revenue desc` : sql`revenue desc, units desc`;
  const found = await rows<{
    product_id: string;
    name: string;
    store_id: string;
    store_name: string;
    supplier_id: string;
    units: number;
    revenue: string;
    orders: number;
  }>(
    ex,
    sql`select i.product_id, (array_agg(i.product_name order by o.completed_at desc))[1] as name,
          o.store_id, s.name as store_name, o.supplier_id,
          sum(i.quantity)::int as units, sum(i.quantity * i.unit_price)::text as revenue, count(distinct o.id)::int as orders
        from order_items i join orders o on o.id = i.order_id join stores s on s.id = o.store_id
        where o.status = 'COMPLETED' and o.completed_at >= ${r.from} and o.completed_at < ${r.to}
        group by i.product_id, o.store_id, s.name, o.supplier_id
        order by ${by}, i.product_id limit ${r.limit}`,
  );
  return found.map((x) => ({
    productId: x.product_id,
    name: x.name,
    storeId: x.store_id,
    storeName: x.store_name,
    supplierId: x.supplier_id,
    unitsSold: x.units,
    revenue: num(x.revenue),
    orders: x.orders,
  }));
}

/**
 * A supplier's money from the ledger: what escrow holds for its orders, what was released to it
 * (net of commission) and what was paid out to its wallet.
 */
export async function supplierBalances(ex: Executor, supplierId: string) {
  const payable = supplierPayable(supplierId);
  const [row] = await rows<{ held: string; released: string; paid: string }>(
    ex,
    sql`select
          (select coalesce(sum(-l.amount), 0) from orders o join ledger_lines l on l.account = 'escrow:' || o.id::text where o.supplier_id = ${supplierId})::text as held,
          (select coalesce(sum(-amount), 0) from ledger_lines where account = ${payable} and amount < 0)::text as released,
          (select coalesce(sum(amount), 0) from ledger_lines where account = ${payable} and amount > 0)::text as paid`,
  );
  return { escrowHeld: num(row?.held ?? 0), released: num(row?.released ?? 0), paidOut: num(row?.paid ?? 0) };
}
