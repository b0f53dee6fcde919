import { and, asc, count, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  subscriptionCharges,
  subscriptionPlans,
  supplierSubscriptions,
  type ChargeStatus,
} from '../../db/schema/subscriptions.js';

export type PlanRecord = typeof subscriptionPlans.$inferSelect;
export type SubscriptionRecord = typeof supplierSubscriptions.$inferSelect;
export type ChargeRecord = typeof subscriptionCharges.$inferSelect;

const live = isNull(subscriptionPlans.deletedAt);

export async function findActivePlanByCode(ex: Executor, code: string): Promise<PlanRecord | undefined> {
  const [row] = await ex
    .select()
    .from(subscriptionPlans)
    .where(and(eq(subscriptionPlans.code, code), eq(subscriptionPlans.isActive, true), live))
    .limit(1);
  return row;
}

export async function findPlanByCode(ex: Executor, code: string): Promise<PlanRecord | undefined> {
  const [row] = await ex.select().from(subscriptionPlans).where(eq(subscriptionPlans.code, code)).limit(1);
  return row;
}

/** A plan not deleted (active or not). */
export async function findPlan(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<PlanRecord | undefined> {
  const q = ex
    .select()
    .from(subscriptionPlans)
    .where(and(eq(subscriptionPlans.id, id), live))
    .limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function countPlans(ex: Executor, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const [row] = await ex
    .select({ n: count() })
    .from(subscriptionPlans)
    .where(and(inArray(subscriptionPlans.id, ids), live));
  return row?.n ?? 0;
}

/** Plans in display order: every plan not deleted, or only the public, active ones. */
export function listPlans(ex: Executor, opts: { publicOnly: boolean }): Promise<PlanRecord[]> {
  const where = opts.publicOnly
    ? and(live, eq(subscriptionPlans.isActive, true), eq(subscriptionPlans.isPublic, true))
    : live;
  return ex
    .select()
    .from(subscriptionPlans)
    .where(where)
    .orderBy(asc(subscriptionPlans.sortOrder), asc(subscriptionPlans.priceAmount), asc(subscriptionPlans.code));
}

export async function insertPlan(
  ex: Executor,
  row: typeof subscriptionPlans.$inferInsert,
): Promise<PlanRecord | undefined> {
  const [created] = await ex.insert(subscriptionPlans).values(row).onConflictDoNothing().returning();
  return created;
}

export async function updatePlan(
  ex: Executor,
  id: string,
  patch: Partial<typeof subscriptionPlans.$inferInsert>,
): Promise<PlanRecord | undefined> {
  const [row] = await ex
    .update(subscriptionPlans)
    .set(patch)
    .where(and(eq(subscriptionPlans.id, id), live))
    .returning();
  return row;
}

/** Suppliers whose running subscription is on each plan (ACTIVE and not past its end). */
export async function subscriberCounts(ex: Executor, planIds: string[], now: Date): Promise<Map<string, number>> {
  if (!planIds.length) return new Map();
  const rows = await ex
    .select({ planId: supplierSubscriptions.planId, n: count() })
    .from(supplierSubscriptions)
    .where(
      and(
        inArray(supplierSubscriptions.planId, planIds),
        eq(supplierSubscriptions.status, 'ACTIVE'),
        or(isNull(supplierSubscriptions.endsAt), gt(supplierSubscriptions.endsAt, now)),
      ),
    )
    .groupBy(supplierSubscriptions.planId);
  return new Map(rows.map((r) => [r.planId, r.n]));
}

/** The running subscription (ACTIVE and not past its end) with its plan. */
export async function findRunning(ex: Executor, supplierId: string, now: Date) {
  const [row] = await ex
    .select({ subscription: supplierSubscriptions, plan: subscriptionPlans })
    .from(supplierSubscriptions)
    .innerJoin(subscriptionPlans, eq(subscriptionPlans.id, supplierSubscriptions.planId))
    .where(
      and(
        eq(supplierSubscriptions.supplierId, supplierId),
        eq(supplierSubscriptions.status, 'ACTIVE'),
        or(isNull(supplierSubscriptions.endsAt), gt(supplierSubscriptions.endsAt, now)),
      ),
    )
    .limit(1);
  return row;
}

export async function lockSubscription(ex: Executor, id: string): Promise<SubscriptionRecord | undefined> {
  const [row] = await ex
    .select()
    .from(supplierSubscriptions)
    .where(eq(supplierSubscriptions.id, id))
    .limit(1)
    .for('update');
  return row;
}

export async function insertSubscription(
  ex: Executor,
  row: typeof supplierSubscriptions.$inferInsert,
): Promise<SubscriptionRecord> {
  const [created] = await ex.insert(supplierSubscriptions).values(row).returning();
  return created!;
}

export async function updateSubscription(
  ex: Executor,
  id: string,
  patch: Partial<typeof supplierSubscriptions.$inferInsert>,
): Promise<SubscriptionRecord | undefined> {
  const [row] = await ex.update(supplierSubscriptions).set(patch).where(eq(supplierSubscriptions.id, id)).returning();
  return row;
}

/** Closes every ACTIVE row of the supplier, including one already past its end. */
export async function cancelActive(ex: Executor, supplierId: string, now: Date): Promise<void> {
  await ex
    .update(supplierSubscriptions)
    .set({ status: 'CANCELLED', cancelledAt: now, updatedAt: now })
    .where(and(eq(supplierSubscriptions.supplierId, supplierId), eq(supplierSubscriptions.status, 'ACTIVE')));
}

/** ACTIVE subscriptions ending within (now, until], not yet warned and not cancelled by the supplier. */
export function toWarn(ex: Executor, now: Date, until: Date, limit: number): Promise<SubscriptionRecord[]> {
  return ex
    .select()
    .from(supplierSubscriptions)
    .where(
      and(
        eq(supplierSubscriptions.status, 'ACTIVE'),
        gt(supplierSubscriptions.endsAt, now),
        lte(supplierSubscriptions.endsAt, until),
        isNull(supplierSubscriptions.expiryWarnedAt),
        eq(supplierSubscriptions.cancelAtPeriodEnd, false),
      ),
    )
    .orderBy(asc(supplierSubscriptions.endsAt))
    .limit(limit);
}

/** ACTIVE subscriptions whose period is over, oldest end first. */
export function ended(ex: Executor, now: Date, limit: number): Promise<SubscriptionRecord[]> {
  return ex
    .select()
    .from(supplierSubscriptions)
    .where(and(eq(supplierSubscriptions.status, 'ACTIVE'), lte(supplierSubscriptions.endsAt, now)))
    .orderBy(asc(supplierSubscriptions.endsAt))
    .limit(limit);
}

/** Marks a subscription warned; false when another run did it first. */
export async function markWarned(ex: Executor, id: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(supplierSubscriptions)
    .set({ expiryWarnedAt: now, updatedAt: now })
    .where(and(eq(supplierSubscriptions.id, id), isNull(supplierSubscriptions.expiryWarnedAt)))
    .returning({ id: supplierSubscriptions.id });
  return rows.length > 0;
}

/** Ends a subscription whose period is over; undefined when it was no longer ACTIVE or was renewed meanwhile. */
export async function endIfOver(ex: Executor, id: string, now: Date): Promise<SubscriptionRecord | undefined> {
  const [row] = await ex
    .update(supplierSubscriptions)
    .set({
      status: sql`case when ${supplierSubscriptions.cancelAtPeriodEnd} then 'CANCELLED' else 'EXPIRED' end`,
      updatedAt: now,
    })
    .where(
      and(
        eq(supplierSubscriptions.id, id),
        eq(supplierSubscriptions.status, 'ACTIVE'),
        lte(supplierSubscriptions.endsAt, now),
      ),
    )
    .returning();
  return row;
}

// --- charges -------------------------------------------------------------------------------

export async function insertCharge(ex: Executor, row: typeof subscriptionCharges.$inferInsert): Promise<ChargeRecord> {
  const [created] = await ex.insert(subscriptionCharges).values(row).returning();
  return created!;
}

export async function lockCharge(ex: Executor, id: string): Promise<ChargeRecord | undefined> {
  const [row] = await ex
    .select()
    .from(subscriptionCharges)
    .where(eq(subscriptionCharges.id, id))
    .limit(1)
    .for('update');
  return row;
}

export async function findCharge(ex: Executor, id: string): Promise<ChargeRecord | undefined> {
  const [row] = await ex.select().from(subscriptionCharges).where(eq(subscriptionCharges.id, id)).limit(1);
  return row;
}

/** Moves a charge from `from`; undefined when it was no longer there. */
export async function moveCharge(
  ex: Executor,
  id: string,
  from: ChargeStatus,
  patch: Partial<typeof subscriptionCharges.$inferInsert> & { status: ChargeStatus },
): Promise<ChargeRecord | undefined> {
  const [row] = await ex
    .update(subscriptionCharges)
    .set(patch)
    .where(and(eq(subscriptionCharges.id, id), eq(subscriptionCharges.status, from)))
    .returning();
  return row;
}

/** Cancels the supplier's waiting charge (a new one replaces it, or the supplier cancelled); answers those cancelled. */
export function cancelPendingCharges(ex: Executor, supplierId: string, now: Date): Promise<ChargeRecord[]> {
  return ex
    .update(subscriptionCharges)
    .set({ status: 'CANCELLED', updatedAt: now })
    .where(and(eq(subscriptionCharges.supplierId, supplierId), eq(subscriptionCharges.status, 'PENDING')))
    .returning();
}

/** Whether the supplier ever paid a plan (a refunded charge was paid too: first-subscription codes stay used). */
export async function hasPaidCharge(ex: Executor, supplierId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: subscriptionCharges.id })
    .from(subscriptionCharges)
    .where(
      and(eq(subscriptionCharges.supplierId, supplierId), inArray(subscriptionCharges.status, ['PAID', 'REFUNDED'])),
    )
    .limit(1);
  return !!row;
}

/**
 * Uses of promo codes (paid, and refunded: a refund gives the money back, not the use) and
 * reservations (waiting charges), in total and by this supplier.
 */
export async function promoUses(
  ex: Executor,
  promoIds: string[],
  supplierId: string,
): Promise<Map<string, { total: number; bySupplier: number }>> {
  if (!promoIds.length) return new Map();
  const rows = await ex
    .select({
      promoCodeId: subscriptionCharges.promoCodeId,
      total: count(),
      bySupplier: sql<number>`count(*) filter (where ${subscriptionCharges.supplierId} = ${supplierId})::int`,
    })
    .from(subscriptionCharges)
    .where(
      and(
        inArray(subscriptionCharges.promoCodeId, promoIds),
        inArray(subscriptionCharges.status, ['PENDING', 'PAID', 'REFUNDED']),
      ),
    )
    .groupBy(subscriptionCharges.promoCodeId);
  return new Map(rows.map((r) => [r.promoCodeId!, { total: r.total, bySupplier: r.bySupplier }]));
}

export async function chargesOfPromo(ex: Executor, promoId: string): Promise<number> {
  const [row] = await ex
    .select({ n: count() })
    .from(subscriptionCharges)
    .where(eq(subscriptionCharges.promoCodeId, promoId));
  return row?.n ?? 0;
}
