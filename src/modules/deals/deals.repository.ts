import { and, asc, count, desc, eq, gt, inArray, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import { placeholders, preparedPer, type Executor } from '../../db/client.js';
import { listedColumns } from '../../listings/index.js';
import { dealBookings, deals, type BookingPaymentStatus, type BookingStatus } from '../../db/schema/deals.js';
import { stores } from '../../db/schema/stores.js';
import { canTransition } from '../../shared/state-machine.js';
import { planDiscountBps } from '../subscriptions/index.js';
import { commissionRateBps } from '../suppliers/index.js';
import type { PageQuery } from '../../shared/schemas.js';
import { pageOffset } from '../../shared/schemas.js';
import type { WorkScope } from '../../shared/work-in-progress.js';
import { BOOKING_PAYMENT_TRANSITIONS, BOOKING_TRANSITIONS, type DealViewStatus } from './deal-status.js';

export type DealRecord = Omit<typeof deals.$inferSelect, 'earth' | 'searchDoc' | 'searchVector'>;
export type NewDeal = Omit<typeof deals.$inferInsert, 'earth' | 'listed'>;
export type BookingRecord = typeof dealBookings.$inferSelect;
export type NewBooking = typeof dealBookings.$inferInsert;

const dealColumns = listedColumns(deals);
const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

/**
 * The one rule for which deals the public sees at `now`: `listed` (ACTIVE, store live and active,
 * supplier public: kept by triggers), its validity not over (so it leaves every list the second it
 * expires), its store not in a temporary closure now (the stores in a closure are one array per
 * query, as for products). Sold-out deals stay visible on their page, not in lists (`hasPlaces`).
 */
export const isPublicDeal = (now: Date | SQL): SQL => {
  const t = now instanceof Date ? at(now) : now;
  return sql`(${deals.listed} and ${deals.validUntil} > ${t} and not (${deals.storeId} = any(array(select s.id from ${stores} s where s.closure_starts_at is not null and s.closure_ends_at > ${t} and s.closure_starts_at <= ${t}))))`;
};
export const hasPlaces = sql`(${deals.placesTaken} < ${deals.totalPlaces})`;

/** The SQL of a shown state (SOLD_OUT and EXPIRED derived as effectiveStatus does). */
export function statusIs(status: DealViewStatus, now: Date): SQL {
  const live = sql`${deals.validUntil} > ${at(now)}`;
  switch (status) {
    case 'EXPIRED':
      return sql`(${deals.status} in ('ACTIVE', 'PAUSED') and not ${live})`;
    case 'SOLD_OUT':
      return sql`(${deals.status} = 'ACTIVE' and ${live} and not ${hasPlaces})`;
    case 'ACTIVE':
      return sql`(${deals.status} = 'ACTIVE' and ${live} and ${hasPlaces})`;
    case 'PAUSED':
      return sql`(${deals.status} = 'PAUSED' and ${live})`;
    default:
      return eq(deals.status, status);
  }
}

export async function insertDeal(ex: Executor, values: NewDeal): Promise<DealRecord> {
  // The position comes from the store (trigger deals_listed); a placeholder satisfies the column.
  const [row] = await ex
    .insert(deals)
    .values({ ...values, earth: '(0,0,0)' })
    .returning(dealColumns);
  return row!;
}

export async function updateDeal(ex: Executor, id: string, patch: Partial<NewDeal>): Promise<DealRecord> {
  const [row] = await ex.update(deals).set(patch).where(eq(deals.id, id)).returning(dealColumns);
  return row!;
}

const dealById = (ex: Executor, id: string | ReturnType<typeof sql.placeholder>) =>
  ex
    .select(dealColumns)
    .from(deals)
    .where(and(eq(deals.id, id), ne(deals.status, 'DELETED')));
// Every booking reads its deal: prepared, as the other statements of a booking.
const dealStatement = preparedPer((ex) => dealById(ex, sql.placeholder('id')).prepare('deals_find'));

/** A deal that is not deleted. */
export async function findDeal(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<DealRecord | undefined> {
  const [row] = opts.lock ? await dealById(ex, id).for('update') : await dealStatement(ex).execute({ id });
  return row;
}

export async function findPublicDeal(ex: Executor, id: string, now: Date): Promise<DealRecord | undefined> {
  const [row] = await ex
    .select(dealColumns)
    .from(deals)
    .where(and(eq(deals.id, id), isPublicDeal(now)));
  return row;
}

export async function listDeals(
  ex: Executor,
  f: { supplierId?: string; storeIds?: string[]; storeId?: string; status?: DealViewStatus; pending?: boolean },
  q: PageQuery,
  now: Date,
) {
  const owners = [
    f.supplierId ? eq(deals.supplierId, f.supplierId) : undefined,
    f.storeIds?.length ? inArray(deals.storeId, f.storeIds) : undefined,
  ].filter(Boolean) as SQL[];
  const where = and(
    ne(deals.status, 'DELETED'),
    f.pending ? eq(deals.status, 'PENDING_REVIEW') : owners.length ? sql`(${sql.join(owners, sql` or `)})` : undefined,
    f.storeId ? eq(deals.storeId, f.storeId) : undefined,
    f.status ? statusIs(f.status, now) : undefined,
  );
  const order = f.pending ? [asc(deals.createdAt), asc(deals.id)] : [desc(deals.createdAt), desc(deals.id)];
  const [items, [total]] = await Promise.all([
    ex
      .select(dealColumns)
      .from(deals)
      .where(where)
      .orderBy(...order)
      .limit(q.limit)
      .offset(pageOffset(q)),
    ex.select({ n: count() }).from(deals).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

const takePlacesStatement = preparedPer((ex) => {
  const n = sql`${sql.placeholder('n')}::int`;
  return ex
    .update(deals)
    .set({ placesTaken: sql`${deals.placesTaken} + ${n}` })
    .where(
      and(
        eq(deals.id, sql.placeholder('dealId')),
        eq(deals.status, 'ACTIVE'),
        gt(deals.validUntil, sql`${sql.placeholder('now')}::timestamptz`),
        lte(sql`${deals.placesTaken} + ${n}`, deals.totalPlaces),
      ),
    )
    .returning({ id: deals.id })
    .prepare('deals_take_places');
});

/**
 * Takes `n` places of an ACTIVE, unexpired deal in one guarded statement: never over the total,
 * whatever runs at the same time (the row stays locked by the caller's transaction until it
 * commits). False when too few are left or the deal takes no booking any more.
 */
export async function takePlaces(ex: Executor, dealId: string, n: number, now: Date): Promise<boolean> {
  const rows = await takePlacesStatement(ex).execute({ dealId, n, now: now.toISOString() });
  return rows.length === 1;
}

export async function releasePlaces(ex: Executor, dealId: string, n: number): Promise<void> {
  await ex
    .update(deals)
    .set({ placesTaken: sql`greatest(0, ${deals.placesTaken} - ${n})` })
    .where(eq(deals.id, dealId));
}

// ---- bookings

/** The states whose places are taken: held for a payment, to be collected, collected or missed. */
const HOLDING = sql`${dealBookings.status} not in ('CANCELLED', 'EXPIRED')`;

const placesOfClientStatement = preparedPer((ex) =>
  ex
    .select({ n: sql<number>`coalesce(sum(${dealBookings.quantity}), 0)`.mapWith(Number) })
    .from(dealBookings)
    .where(
      and(
        eq(dealBookings.dealId, sql.placeholder('dealId')),
        eq(dealBookings.clientId, sql.placeholder('clientId')),
        HOLDING,
      ),
    )
    .prepare('deals_places_of_client'),
);

/** Places a client holds on a deal (every booking not cancelled, nor expired unpaid). */
export async function placesOfClient(ex: Executor, dealId: string, clientId: string): Promise<number> {
  const [row] = await placesOfClientStatement(ex).execute({ dealId, clientId });
  return row?.n ?? 0;
}

/** Places of a deal held by bookings whose payment is awaited (they come free at their deadline if unpaid). */
export async function placesAwaitingPayment(ex: Executor, dealId: string): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`coalesce(sum(${dealBookings.quantity}), 0)`.mapWith(Number) })
    .from(dealBookings)
    .where(and(eq(dealBookings.dealId, dealId), eq(dealBookings.status, 'PENDING_PAYMENT')));
  return row?.n ?? 0;
}

const codeHolders = inArray(dealBookings.status, ['CONFIRMED', 'PENDING_PAYMENT']);

const NEW_BOOKING_KEYS = [
  'id',
  'dealId',
  'clientId',
  'supplierId',
  'storeId',
  'quantity',
  'unitPrice',
  'totalPrice',
  'currency',
  'pickupDate',
  'pickupStartsAt',
  'pickupEndsAt',
  'code',
  'status',
  'paymentMode',
  'paymentStatus',
  'paymentDeadline',
  'idempotencyKey',
  'createdAt',
  'updatedAt',
] as const;
/** The columns a booking is written with (the rest take their defaults). */
type BookingValues = {
  [K in (typeof NEW_BOOKING_KEYS)[number]]-?: Exclude<(typeof dealBookings.$inferInsert)[K], undefined>;
};

const insertBookingStatement = preparedPer((ex) => {
  const supplier = sql`${sql.placeholder('supplierId')}::uuid`;
  const discount = planDiscountBps(supplier, sql`${sql.placeholder('createdAt')}::timestamptz`);
  const commissionBps = sql`case when ${sql.placeholder('paymentMode')}::text = 'IN_APP' then (select case when d is null then null else greatest(0, ${commissionRateBps(supplier)} - d) end from (select ${discount} as d) x) end`;
  return (
    ex
      .insert(dealBookings)
      .values({
        ...placeholders(NEW_BOOKING_KEYS),
        // Null at the counter: given as text, as the column's own encoding cannot take a null here.
        paymentDeadline: sql`${sql.placeholder('paymentDeadline')}::timestamptz` as never,
        commissionBps: commissionBps as never,
      })
      // The index's own predicate, as literals: PostgreSQL matches it to deal_bookings_store_code_key.
      .onConflictDoNothing({
        target: [dealBookings.storeId, dealBookings.code],
        where: sql`status in ('CONFIRMED', 'PENDING_PAYMENT')`,
      })
      .returning()
      .prepare('deals_insert_booking')
  );
});

/**
 * A new booking. Paid in the app, it freezes the supplier's commission rate less the discount of its
 * plan at `createdAt` (both read in the insert, as orders do; a missing free plan leaves it null: refused).
 * Undefined when its code already names a live booking of the store (the caller draws another).
 */
export async function insertBooking(ex: Executor, values: BookingValues): Promise<BookingRecord | undefined> {
  const deadline = values.paymentDeadline?.toISOString() ?? null;
  const [row] = await insertBookingStatement(ex).execute({ ...values, paymentDeadline: deadline });
  return row;
}

export async function findBooking(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<BookingRecord | undefined> {
  const q = ex.select().from(dealBookings).where(eq(dealBookings.id, id));
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

/**
 * Moves a booking from `from` to `to` (a move of BOOKING_TRANSITIONS) in one guarded statement: of
 * two at once, one wins; undefined when it was no longer in `from`.
 */
export async function moveBooking(
  ex: Executor,
  id: string,
  from: BookingStatus,
  to: BookingStatus,
  patch: Partial<NewBooking>,
): Promise<BookingRecord | undefined> {
  if (!canTransition(BOOKING_TRANSITIONS, from, to)) throw new Error(`booking ${id}: no move from ${from} to ${to}`);
  const [row] = await ex
    .update(dealBookings)
    .set({ ...patch, status: to })
    .where(and(eq(dealBookings.id, id), eq(dealBookings.status, from)))
    .returning();
  return row;
}

/** Moves the money state of a booking paid in the app (BOOKING_PAYMENT_TRANSITIONS), guarded as `moveBooking`. */
export async function moveBookingMoney(
  ex: Executor,
  id: string,
  from: BookingPaymentStatus,
  to: BookingPaymentStatus,
  patch: Partial<NewBooking>,
): Promise<BookingRecord | undefined> {
  if (!canTransition(BOOKING_PAYMENT_TRANSITIONS, from, to))
    throw new Error(`booking ${id}: no money move from ${from} to ${to}`);
  const [row] = await ex
    .update(dealBookings)
    .set({ ...patch, paymentStatus: to })
    .where(and(eq(dealBookings.id, id), eq(dealBookings.paymentStatus, from)))
    .returning();
  return row;
}

/** Bookings still waiting for their payment at their deadline (the sweep behind the deadline job). */
export function unpaidPastDeadline(ex: Executor, now: Date, limit = 500): Promise<BookingRecord[]> {
  return ex
    .select()
    .from(dealBookings)
    .where(and(eq(dealBookings.status, 'PENDING_PAYMENT'), lte(dealBookings.paymentDeadline, now)))
    .orderBy(asc(dealBookings.paymentDeadline))
    .limit(limit);
}

/** Confirmed bookings whose pickup window ended by `now` (the no-show sweep). */
export function overdueBookings(ex: Executor, now: Date, limit = 500): Promise<BookingRecord[]> {
  return ex
    .select()
    .from(dealBookings)
    .where(and(eq(dealBookings.status, 'CONFIRMED'), lte(dealBookings.pickupEndsAt, now)))
    .orderBy(asc(dealBookings.pickupEndsAt))
    .limit(limit);
}

const bookingRow = { booking: dealBookings, dealTitle: deals.title, storeName: stores.name };
export type BookingRow = { booking: BookingRecord; dealTitle: string; storeName: string };

export async function listBookings(
  ex: Executor,
  where: SQL | undefined,
  q: PageQuery,
): Promise<{ items: BookingRow[]; total: number }> {
  const [items, [total]] = await Promise.all([
    ex
      .select(bookingRow)
      .from(dealBookings)
      .innerJoin(deals, eq(deals.id, dealBookings.dealId))
      .innerJoin(stores, eq(stores.id, dealBookings.storeId))
      .where(where)
      .orderBy(desc(dealBookings.createdAt), desc(dealBookings.id))
      .limit(q.limit)
      .offset(pageOffset(q)),
    ex.select({ n: count() }).from(dealBookings).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

export async function bookingRowOf(ex: Executor, id: string): Promise<BookingRow | undefined> {
  const [row] = await ex
    .select(bookingRow)
    .from(dealBookings)
    .innerJoin(deals, eq(deals.id, dealBookings.dealId))
    .innerJoin(stores, eq(stores.id, dealBookings.storeId))
    .where(eq(dealBookings.id, id));
  return row;
}

/**
 * Bookings still to be collected or paid (CONFIRMED or PENDING_PAYMENT, window not over), or whose
 * money paid in the app is still held, of a deal, a store or a supplier.
 */
export async function openBookings(ex: Executor, scope: WorkScope | { dealId: string }, now: Date): Promise<number> {
  const of =
    'dealId' in scope
      ? eq(dealBookings.dealId, scope.dealId)
      : 'storeId' in scope
        ? eq(dealBookings.storeId, scope.storeId)
        : 'supplierId' in scope
          ? eq(dealBookings.supplierId, scope.supplierId)
          : undefined;
  if (!of) return 0;
  const [row] = await ex
    .select({ n: count() })
    .from(dealBookings)
    .where(
      and(
        of,
        // A booking whose money is held until the no-show job settles it counts after its window too.
        or(and(codeHolders, gt(dealBookings.pickupEndsAt, now)), eq(dealBookings.paymentStatus, 'PAID')),
      ),
    );
  return row?.n ?? 0;
}

/** Every deal of a store or supplier goes with it (deleted with the store or profile). */
export async function deleteAllOf(
  ex: Executor,
  scope: { storeId: string } | { supplierId: string },
  now: Date,
): Promise<void> {
  const of = 'storeId' in scope ? eq(deals.storeId, scope.storeId) : eq(deals.supplierId, scope.supplierId);
  await ex
    .update(deals)
    .set({ status: 'DELETED', deletedAt: now, updatedAt: now })
    .where(and(of, ne(deals.status, 'DELETED')));
}
