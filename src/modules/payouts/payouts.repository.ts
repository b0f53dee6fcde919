import { and, desc, eq, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { payouts, type PayoutState } from '../../db/schema/payouts.js';

export type PayoutRecord = typeof payouts.$inferSelect;
export type PayoutPatch = Partial<
  Omit<
    PayoutRecord,
    | 'id'
    | 'supplierId'
    | 'orderId'
    | 'bookingId'
    | 'associationId'
    | 'donationId'
    | 'releaseTransactionId'
    | 'amount'
    | 'currency'
    | 'createdAt'
  >
>;

/** Inserts the payout of a release; undefined when that release already has one. */
export async function insertPayout(
  ex: Executor,
  values: typeof payouts.$inferInsert,
): Promise<PayoutRecord | undefined> {
  const [row] = await ex
    .insert(payouts)
    .values(values)
    .onConflictDoNothing({ target: payouts.releaseTransactionId })
    .returning();
  return row;
}

export async function findPayout(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<PayoutRecord | undefined> {
  const q = ex.select().from(payouts).where(eq(payouts.id, id)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function findByProviderId(ex: Executor, providerPayoutId: string): Promise<PayoutRecord | undefined> {
  const [row] = await ex.select().from(payouts).where(eq(payouts.providerPayoutId, providerPayoutId)).limit(1);
  return row;
}

/** Moves a payout out of one of `from`; undefined when it was no longer there (a concurrent change). */
export async function movePayout(
  ex: Executor,
  id: string,
  from: readonly PayoutState[],
  patch: PayoutPatch,
): Promise<PayoutRecord | undefined> {
  const [row] = await ex
    .update(payouts)
    .set(patch)
    .where(and(eq(payouts.id, id), inArray(payouts.state, [...from])))
    .returning();
  return row;
}

export function payoutsOfOrders(ex: Executor, orderIds: readonly string[]): Promise<PayoutRecord[]> {
  if (!orderIds.length) return Promise.resolve([]);
  return ex
    .select()
    .from(payouts)
    .where(inArray(payouts.orderId, [...orderIds]))
    .orderBy(desc(payouts.createdAt));
}

export function payoutsOfDonations(ex: Executor, donationIds: readonly string[]): Promise<PayoutRecord[]> {
  if (!donationIds.length) return Promise.resolve([]);
  return ex
    .select()
    .from(payouts)
    .where(inArray(payouts.donationId, [...donationIds]))
    .orderBy(desc(payouts.createdAt));
}

/** A supplier's payouts a new payout number may unblock: failed for good, or waiting for a number. */
export function retryableOfSupplier(ex: Executor, supplierId: string): Promise<PayoutRecord[]> {
  return retryableOf(ex, eq(payouts.supplierId, supplierId));
}

/** The same for an association's payouts. */
export function retryableOfAssociation(ex: Executor, associationId: string): Promise<PayoutRecord[]> {
  return retryableOf(ex, eq(payouts.associationId, associationId));
}

function retryableOf(ex: Executor, payee: SQL): Promise<PayoutRecord[]> {
  return ex
    .select()
    .from(payouts)
    .where(
      and(payee, or(eq(payouts.state, 'FAILED'), and(eq(payouts.state, 'PENDING'), isNotNull(payouts.waitingReason)))),
    )
    .orderBy(payouts.id)
    .for('update');
}

/** Payouts of a supplier not yet SUCCEEDED: money still owed to it. */
export async function unpaidCount(ex: Executor, supplierId: string): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(payouts)
    .where(and(eq(payouts.supplierId, supplierId), inArray(payouts.state, ['PENDING', 'PROCESSING', 'FAILED'])));
  return row?.n ?? 0;
}
