import { and, asc, count, desc, eq, gte, inArray, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { orderItems, orders, orderStatusHistory, type OrderStatus } from '../../db/schema/orders.js';
import type { PageQuery } from '../../shared/schemas.js';
import { pageOffset } from '../../shared/schemas.js';
import type { WorkScope } from '../../shared/work-in-progress.js';
import { FINAL_ORDER_STATUSES } from './order-status.js';

export type OrderRecord = typeof orders.$inferSelect;
export type OrderItemRecord = typeof orderItems.$inferSelect;
export type HistoryRecord = typeof orderStatusHistory.$inferSelect;

const open = notInArray(orders.status, [...FINAL_ORDER_STATUSES]);

export async function insertOrder(ex: Executor, values: typeof orders.$inferInsert): Promise<OrderRecord> {
  const [row] = await ex.insert(orders).values(values).returning();
  return row!;
}

export async function insertItems(ex: Executor, values: (typeof orderItems.$inferInsert)[]): Promise<OrderItemRecord[]> {
  return ex.insert(orderItems).values(values).returning();
}

export async function insertHistory(ex: Executor, values: typeof orderStatusHistory.$inferInsert): Promise<void> {
  await ex.insert(orderStatusHistory).values(values);
}

export async function findOrder(ex: Executor, id: string, opts: { lock?: boolean } = {}): Promise<OrderRecord | undefined> {
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
  const rows = await ex.select().from(orderItems).where(inArray(orderItems.orderId, [...orderIds])).orderBy(asc(orderItems.id));
  for (const r of rows) out.set(r.orderId, [...(out.get(r.orderId) ?? []), r]);
  return out;
}

export function historyOf(ex: Executor, orderId: string): Promise<HistoryRecord[]> {
  return ex.select().from(orderStatusHistory).where(eq(orderStatusHistory.orderId, orderId)).orderBy(asc(orderStatusHistory.at), asc(orderStatusHistory.id));
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
export async function listOrders(ex: Executor, f: OrderFilters, page: PageQuery): Promise<{ items: OrderRecord[]; total: number }> {
  const w = where(f);
  const [items, [total]] = await Promise.all([
    ex.select().from(orders).where(w).orderBy(desc(orders.createdAt), desc(orders.id)).limit(page.limit).offset(pageOffset(page)),
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
export async function hasCompletedPurchase(ex: Executor, clientId: string, of: { productId: string } | { supplierId: string }): Promise<boolean> {
  const done = and(eq(orders.clientId, clientId), eq(orders.status, 'COMPLETED'));
  const [row] =
    'productId' in of
      ? await ex.select({ id: orders.id }).from(orders).innerJoin(orderItems, eq(orderItems.orderId, orders.id)).where(and(done, eq(orderItems.productId, of.productId))).limit(1)
      : await ex.select({ id: orders.id }).from(orders).where(and(done, eq(orders.supplierId, of.supplierId))).limit(1);
  return row !== undefined;
}
