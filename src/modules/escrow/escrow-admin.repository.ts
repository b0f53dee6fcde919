import { and, eq, exists, gte, inArray, lt, notExists, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import { escrows, type EscrowState } from '../../db/schema/escrow.js';
import { orders } from '../../db/schema/orders.js';
import { providerEvents } from '../../db/schema/payments.js';
import { payouts, type PayoutState } from '../../db/schema/payouts.js';
import { stores } from '../../db/schema/stores.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { users } from '../../db/schema/users.js';
import type { SortOf } from '../../shared/schemas.js';
import type { EscrowSortField } from './escrow-admin.schemas.js';
import { HOLDING_STATES } from './escrow-status.js';

/*
 * The administrators' reads of escrows. They filter and show escrows with their order's store,
 * supplier and client and their payout's state: joins in one query, read-only, rather than one
 * service call per row. Writes to those tables stay with their modules.
 */

/** What a release needs of the order (status, who, the frozen commission rate). */
export async function orderFacts(ex: Executor, orderId: string) {
  const [row] = await ex
    .select({
      id: orders.id,
      status: orders.status,
      clientId: orders.clientId,
      supplierId: orders.supplierId,
      storeId: orders.storeId,
      commissionBps: orders.commissionBps,
      completedAt: orders.completedAt,
    })
    .from(orders)
    .where(eq(orders.id, orderId))
    .limit(1);
  return row;
}
export type OrderFacts = NonNullable<Awaited<ReturnType<typeof orderFacts>>>;

export interface EscrowListFilter {
  state?: EscrowState;
  supplierId?: string;
  storeId?: string;
  from?: Date;
  to?: Date;
  payout?: PayoutState | 'NONE';
}

function where(f: EscrowListFilter): SQL | undefined {
  const payoutOf = (state?: PayoutState) =>
    state
      ? exists(
          sql`(select 1 from ${payouts} where ${payouts.orderId} = ${escrows.orderId} and ${payouts.state} = ${state})`,
        )
      : notExists(sql`(select 1 from ${payouts} where ${payouts.orderId} = ${escrows.orderId})`);
  return and(
    f.state ? eq(escrows.state, f.state) : undefined,
    f.supplierId ? eq(orders.supplierId, f.supplierId) : undefined,
    f.storeId ? eq(orders.storeId, f.storeId) : undefined,
    f.from ? gte(escrows.heldAt, f.from) : undefined,
    f.to ? lt(escrows.heldAt, f.to) : undefined,
    f.payout ? payoutOf(f.payout === 'NONE' ? undefined : f.payout) : undefined,
  );
}

const listColumns = {
  escrow: escrows,
  orderStatus: orders.status,
  clientId: orders.clientId,
  supplierId: orders.supplierId,
  storeId: orders.storeId,
  commissionBps: orders.commissionBps,
  itemsTotal: orders.itemsTotal,
  createdAt: orders.createdAt,
  completedAt: orders.completedAt,
  storeName: stores.name,
  businessName: supplierProfiles.businessName,
  clientFirstName: users.firstName,
  clientLastName: users.lastName,
};

const joined = (ex: Executor) =>
  ex
    .select(listColumns)
    .from(escrows)
    .innerJoin(orders, eq(orders.id, escrows.orderId))
    .innerJoin(stores, eq(stores.id, orders.storeId))
    .innerJoin(supplierProfiles, eq(supplierProfiles.id, orders.supplierId))
    .innerJoin(users, eq(users.id, orders.clientId));

export type EscrowListRow = Awaited<ReturnType<ReturnType<typeof joined>['execute']>>[number];

const SORT_KEYS: Record<EscrowSortField, SortKey> = {
  heldAt: escrows.heldAt,
  amount: escrows.amount,
  state: byteOrderKey(escrows.state),
  releaseAfter: escrows.releaseAfter,
  releasedAt: escrows.releasedAt,
  refundedAt: escrows.refundedAt,
  updatedAt: escrows.updatedAt,
};

/** Newest held first unless sorted otherwise; an escrow's id is its order's. */
export async function listEscrows(
  ex: Executor,
  f: EscrowListFilter,
  page: { limit: number; offset: number; sort?: SortOf<EscrowSortField> },
) {
  const w = where(f);
  const [items, [count]] = await Promise.all([
    joined(ex)
      .where(w)
      .orderBy(...toOrderBy(page.sort ?? '-heldAt', SORT_KEYS, escrows.orderId))
      .limit(page.limit)
      .offset(page.offset),
    ex
      .select({ n: sql<number>`count(*)::int` })
      .from(escrows)
      .innerJoin(orders, eq(orders.id, escrows.orderId))
      .where(w),
  ]);
  return { items, total: count?.n ?? 0 };
}

export async function escrowWithOrder(ex: Executor, orderId: string): Promise<EscrowListRow | undefined> {
  const [row] = await joined(ex).where(eq(escrows.orderId, orderId)).limit(1);
  return row;
}

/** The provider's events about the order's payments, oldest first. */
export function providerEventsOf(ex: Executor, paymentIds: readonly string[]) {
  if (!paymentIds.length) return Promise.resolve([]);
  return ex
    .select({
      id: providerEvents.id,
      type: providerEvents.type,
      paymentId: providerEvents.paymentId,
      outcome: providerEvents.outcome,
      receivedAt: providerEvents.receivedAt,
    })
    .from(providerEvents)
    .where(inArray(providerEvents.paymentId, [...paymentIds]))
    .orderBy(providerEvents.receivedAt);
}

/** Escrows still holding money for a supplier's or a store's orders (they block deleting it). */
export async function holdingCount(ex: Executor, scope: { supplierId: string } | { storeId: string }): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(escrows)
    .innerJoin(orders, eq(orders.id, escrows.orderId))
    .where(
      and(
        inArray(escrows.state, [...HOLDING_STATES]),
        'supplierId' in scope ? eq(orders.supplierId, scope.supplierId) : eq(orders.storeId, scope.storeId),
      ),
    );
  return row?.n ?? 0;
}

/** HELD escrows whose release time has passed (the safety net of the release jobs). */
export function dueForRelease(ex: Executor, now: Date, limit: number) {
  return ex
    .select({ orderId: escrows.orderId })
    .from(escrows)
    .where(and(eq(escrows.state, 'HELD'), lt(escrows.releaseAfter, now)))
    .orderBy(escrows.releaseAfter)
    .limit(limit);
}
