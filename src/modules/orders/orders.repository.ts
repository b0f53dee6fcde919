import { and, asc, count, desc, eq, gte, inArray, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { placeholders, prefixed, preparedPer, type Executor } from '../../db/client.js';
import { orderItems, orders, orderStatusHistory, type OrderStatus } from '../../db/schema/orders.js';
import type { PageQuery } from '../../shared/schemas.js';
import { pageOffset } from '../../shared/schemas.js';
import type { WorkScope } from '../../shared/work-in-progress.js';
import { planDiscountBps } from '../subscriptions/index.js';
import { FINAL_ORDER_STATUSES } from './order-status.js';

export type OrderRecord = typeof orders.$inferSelect;
export type OrderItemRecord = typeof orderItems.$inferSelect;
export type HistoryRecord = typeof orderStatusHistory.$inferSelect;

const open = notInArray(orders.status, [...FINAL_ORDER_STATUSES]);

// What a new order is made of: every key is sent (null when absent), as the prepared insert below names them all.
const NEW_ORDER_KEYS = [
  'id',
  'clientId',
  'supplierId',
  'storeId',
  'currency',
  'itemsTotal',
  'originalTotal',
  'itemsWeightGrams',
  'pickupStartsAt',
  'pickupEndsAt',
  'pickupCode',
  'paymentMethod',
  'payerPhone',
  'note',
  'idempotencyKey',
  'paymentDeadline',
  'createdAt',
  'updatedAt',
] as const;
/** `commissionRateBps`: the supplier's rate; the order keeps it less the discount of the supplier's plan at `createdAt`. */
export type NewOrder = {
  [K in (typeof NEW_ORDER_KEYS)[number]]-?: Exclude<(typeof orders.$inferInsert)[K], undefined>;
} & { commissionRateBps: number };
const HISTORY_KEYS = ['id', 'orderId', 'fromStatus', 'toStatus', 'byUserId', 'byRole', 'reason', 'at'] as const;
export type NewHistory = {
  [K in (typeof HISTORY_KEYS)[number]]-?: Exclude<(typeof orderStatusHistory.$inferInsert)[K], undefined>;
};

// Every order runs it: prepared, one text whatever the number of lines (they come as arrays).
const insertOrderStatement = preparedPer((ex) => {
  const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}[]`;
  const lines = ex
    .$with('new_lines', {})
    .as(sql`insert into ${orderItems} (id, order_id, product_id, product_name, unit_price, original_unit_price, quantity)
    select l.id, ${sql.placeholder('id')}::uuid, l.product_id, l.product_name, l.unit_price, l.original_unit_price, l.quantity
    from unnest(${p('lineIds', 'uuid')}, ${p('lineProducts', 'uuid')}, ${p('lineNames', 'text')}, ${p('linePrices', 'int')}, ${p('lineOriginalPrices', 'int')}, ${p('lineQuantities', 'int')})
      as l(id, product_id, product_name, unit_price, original_unit_price, quantity)`);
  const entry = ex
    .$with('new_history', {})
    .as(ex.insert(orderStatusHistory).values(placeholders(HISTORY_KEYS, 'h_')).getSQL());
  // The plan's discount is read here rather than in a round trip of its own; a missing free plan leaves it null (refused).
  const discount = planDiscountBps(
    sql`${sql.placeholder('supplierId')}::uuid`,
    sql`${sql.placeholder('createdAt')}::timestamptz`,
  );
  const commissionBps = sql`(select case when d is null then null else greatest(0, ${sql.placeholder('commissionRateBps')}::int - d) end from (select ${discount} as d) x)`;
  return ex
    .with(lines, entry)
    .insert(orders)
    .values({ ...placeholders(NEW_ORDER_KEYS), commissionBps: commissionBps as never })
    .returning()
    .prepare('orders_insert');
});

/**
 * A new order with its lines and first history entry, in one statement (one round trip instead of
 * three): the lines' and the entry's foreign keys to the order are checked at the statement's end.
 */
export async function insertOrder(
  ex: Executor,
  values: NewOrder,
  items: OrderItemRecord[],
  first: NewHistory,
): Promise<OrderRecord> {
  const [row] = await insertOrderStatement(ex).execute({
    ...values,
    ...prefixed(first, 'h_'),
    lineIds: items.map((i) => i.id),
    lineProducts: items.map((i) => i.productId),
    lineNames: items.map((i) => i.productName),
    linePrices: items.map((i) => i.unitPrice),
    lineOriginalPrices: items.map((i) => i.originalUnitPrice),
    lineQuantities: items.map((i) => i.quantity),
  });
  return row!;
}

export async function insertHistory(ex: Executor, values: typeof orderStatusHistory.$inferInsert): Promise<void> {
  await ex.insert(orderStatusHistory).values(values);
}

export async function findOrder(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<OrderRecord | undefined> {
  const q = ex.select().from(orders).where(eq(orders.id, id)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function updateOrder(ex: Executor, id: string, patch: Partial<OrderRecord>): Promise<OrderRecord> {
  const [row] = await ex.update(orders).set(patch).where(eq(orders.id, id)).returning();
  return row!;
}

export async function itemsOf(ex: Executor, orderIds: readonly string[]): Promise<Map<string, OrderItemRecord[]>> {
  const out = new Map<string, OrderItemRecord[]>();
  if (!orderIds.length) return out;
  const rows = await ex
    .select()
    .from(orderItems)
    .where(inArray(orderItems.orderId, [...orderIds]))
    .orderBy(asc(orderItems.id));
  for (const r of rows) out.set(r.orderId, [...(out.get(r.orderId) ?? []), r]);
  return out;
}

export function historyOf(ex: Executor, orderId: string): Promise<HistoryRecord[]> {
  return ex
    .select()
    .from(orderStatusHistory)
    .where(eq(orderStatusHistory.orderId, orderId))
    .orderBy(asc(orderStatusHistory.at), asc(orderStatusHistory.id));
}

export interface OrderFilters {
  clientId?: string;
  /** Orders of this supplier, or of these stores (a member's), either matching. */
  supplierId?: string | null;
  storeIds?: readonly string[];
  storeId?: string;
  status?: OrderStatus;
  from?: Date;
  to?: Date;
}

function where(f: OrderFilters): SQL | undefined {
  const seller: SQL[] = [];
  if (f.supplierId) seller.push(eq(orders.supplierId, f.supplierId));
  if (f.storeIds?.length) seller.push(inArray(orders.storeId, [...f.storeIds]));
  const scoped = f.supplierId !== undefined || f.storeIds !== undefined;
  return and(
    f.clientId ? eq(orders.clientId, f.clientId) : undefined,
    scoped ? (seller.length ? or(...seller) : sql`false`) : undefined,
    f.storeId ? eq(orders.storeId, f.storeId) : undefined,
    f.status ? eq(orders.status, f.status) : undefined,
    f.from ? gte(orders.createdAt, f.from) : undefined,
    f.to ? lt(orders.createdAt, f.to) : undefined,
  );
}

/** A page of orders, newest first. */
export async function listOrders(
  ex: Executor,
  f: OrderFilters,
  page: PageQuery,
): Promise<{ items: OrderRecord[]; total: number }> {
  const w = where(f);
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(orders)
      .where(w)
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(page.limit)
      .offset(pageOffset(page)),
    ex.select({ n: count() }).from(orders).where(w),
  ]);
  return { items, total: total?.n ?? 0 };
}

/** How many orders of a supplier, store or product are not finished yet. */
export async function openCount(ex: Executor, scope: WorkScope): Promise<number> {
  if ('productId' in scope) {
    const [row] = await ex
      .select({ n: count() })
      .from(orderItems)
      .innerJoin(orders, eq(orders.id, orderItems.orderId))
      .where(and(eq(orderItems.productId, scope.productId), open));
    return row?.n ?? 0;
  }
  const [row] = await ex
    .select({ n: count() })
    .from(orders)
    .where(and('storeId' in scope ? eq(orders.storeId, scope.storeId) : eq(orders.supplierId, scope.supplierId), open));
  return row?.n ?? 0;
}

/** Whether the client has a COMPLETED order containing this product, or from this supplier. */
export async function hasCompletedPurchase(
  ex: Executor,
  clientId: string,
  of: { productId: string } | { supplierId: string },
): Promise<boolean> {
  const done = and(eq(orders.clientId, clientId), eq(orders.status, 'COMPLETED'));
  const [row] =
    'productId' in of
      ? await ex
          .select({ id: orders.id })
          .from(orders)
          .innerJoin(orderItems, eq(orderItems.orderId, orders.id))
          .where(and(done, eq(orderItems.productId, of.productId)))
          .limit(1)
      : await ex
          .select({ id: orders.id })
          .from(orders)
          .where(and(done, eq(orders.supplierId, of.supplierId)))
          .limit(1);
  return row !== undefined;
}
