import { and, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import { orderItems, orders, type OrderStatus } from '../../db/schema/orders.js';
import { commissionOf } from '../../shared/money.js';

const completed = eq(orders.status, 'COMPLETED');
// Money the client has paid and keeps paid: refunds of cancelled orders are not spending.
const spent = and(eq(orders.paymentStatus, 'PAID'), sql`${orders.status} <> 'CANCELLED'`);

export async function countByStatus(
  ex: Executor,
  scope: SQL | undefined,
): Promise<Partial<Record<OrderStatus, number>>> {
  const r = await ex.select({ status: orders.status, n: count() }).from(orders).where(scope).groupBy(orders.status);
  return Object.fromEntries(r.map((x) => [x.status, x.n]));
}

export async function clientTotals(ex: Executor, clientId: string) {
  const [r] = await ex
    .select({
      spent: sql<string>`coalesce(sum(${orders.itemsTotal}), 0)`,
      savings: sql<string>`coalesce(sum(${orders.originalTotal} - ${orders.itemsTotal}), 0)`,
      paidOrders: count(),
    })
    .from(orders)
    .where(and(eq(orders.clientId, clientId), spent));
  return { totalSpent: Number(r?.spent ?? 0), savings: Number(r?.savings ?? 0), paidOrders: r?.paidOrders ?? 0 };
}

/** The scope of a seller's figures: its supplier's orders, or those of stores it works in. */
export function sellerScope(supplierId: string | null, storeIds: readonly string[], storeId?: string): SQL {
  const parts: SQL[] = [];
  if (supplierId) parts.push(eq(orders.supplierId, supplierId));
  if (storeIds.length) parts.push(inArray(orders.storeId, [...storeIds]));
  return and(parts.length ? or(...parts) : sql`false`, storeId ? eq(orders.storeId, storeId) : undefined)!;
}

/**
 * Completed orders: how many, units, gross, commission and net. The commission is rounded per
 * order (each at its frozen rate) with the platform's one rule, `commissionOf`: orders are read
 * grouped by amount and rate, so equal orders are rounded once.
 */
export async function salesTotals(ex: Executor, scope: SQL) {
  const groups = await ex
    .select({ amount: orders.itemsTotal, bps: orders.commissionBps, n: count() })
    .from(orders)
    .where(and(scope, completed))
    .groupBy(orders.itemsTotal, orders.commissionBps);
  const [u] = await ex
    .select({ units: sql<string>`coalesce(sum(${orderItems.quantity}), 0)` })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(scope, completed));
  const gross = groups.reduce((s, g) => s + g.amount * g.n, 0);
  const commission = groups.reduce((s, g) => s + commissionOf(g.amount, g.bps) * g.n, 0);
  const completedOrders = groups.reduce((s, g) => s + g.n, 0);
  return {
    completedOrders,
    unitsSold: Number(u?.units ?? 0),
    revenueGross: gross,
    commission,
    revenueNet: gross - commission,
  };
}

export const PERIODS = { day: 30, week: 12, month: 12 } as const;
export type Period = keyof typeof PERIODS;

/**
 * Orders per UTC day, week (from Monday) or month, the last N periods up to `now`, empty ones
 * included: orders placed (not cancelled) and the gross of those completed.
 */
export async function perPeriod(ex: Executor, scope: SQL, period: Period, now: Date) {
  const unit = sql.raw(`'${period}'`);
  const step = sql.raw(`interval '1 ${period}'`);
  const at = sql`(${now.toISOString()}::timestamptz at time zone 'UTC')`;
  const r = await rows<{ start: string; orders: number; completed: number; gross: string }>(
    ex,
    sql`select to_char(b.start, 'YYYY-MM-DD') as start,
      (count(${orders.id}) filter (where ${orders.status} <> 'CANCELLED'))::int as orders,
      (count(${orders.id}) filter (where ${completed}))::int as completed,
      coalesce(sum(${orders.itemsTotal}) filter (where ${completed}), 0) as gross
    from generate_series(date_trunc(${unit}, ${at}) - ${sql.raw(String(PERIODS[period] - 1))} * ${step}, date_trunc(${unit}, ${at}), ${step}) as b(start)
    left join ${orders} on date_trunc(${unit}, ${orders.createdAt} at time zone 'UTC') = b.start and ${scope}
    group by b.start order by b.start`,
  );
  return r.map((x) => ({
    periodStart: x.start,
    orders: Number(x.orders),
    completedOrders: Number(x.completed),
    revenueGross: Number(x.gross),
  }));
}

/** The products most sold in completed orders. */
export async function popularProducts(ex: Executor, scope: SQL, limit: number) {
  const units = sql<string>`sum(${orderItems.quantity})`;
  const r = await ex
    .select({
      productId: orderItems.productId,
      name: sql<string>`max(${orderItems.productName})`,
      units,
      revenue: sql<string>`sum(${orderItems.quantity} * ${orderItems.unitPrice})`,
      orders: count(),
    })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(scope, completed))
    .groupBy(orderItems.productId)
    .orderBy(desc(units), orderItems.productId)
    .limit(limit);
  return r.map((x) => ({
    productId: x.productId,
    name: x.name,
    unitsSold: Number(x.units),
    orders: x.orders,
    revenue: Number(x.revenue),
  }));
}

/** Per product: units sold, completed orders and revenue (the products module's sales figures). */
export async function salesOfProducts(ex: Executor, productIds: readonly string[]) {
  if (!productIds.length) return [];
  const r = await ex
    .select({
      productId: orderItems.productId,
      units: sql<string>`sum(${orderItems.quantity})`,
      orders: count(),
      revenue: sql<string>`sum(${orderItems.quantity} * ${orderItems.unitPrice})`,
    })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(inArray(orderItems.productId, [...productIds]), completed))
    .groupBy(orderItems.productId);
  return r.map((x) => ({
    productId: x.productId,
    unitsSold: Number(x.units),
    orders: x.orders,
    revenue: Number(x.revenue),
  }));
}
