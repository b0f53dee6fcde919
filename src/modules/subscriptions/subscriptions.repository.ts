import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { subscriptionPlans, supplierSubscriptions } from '../../db/schema/subscriptions.js';

export type PlanRecord = typeof subscriptionPlans.$inferSelect;
export type SubscriptionRecord = typeof supplierSubscriptions.$inferSelect;

export async function findActivePlanByCode(ex: Executor, code: string): Promise<PlanRecord | undefined> {
  const [row] = await ex
    .select()
    .from(subscriptionPlans)
    .where(and(eq(subscriptionPlans.code, code), eq(subscriptionPlans.isActive, true)))
    .limit(1);
  return row;
}

export async function findPlanByCode(ex: Executor, code: string): Promise<PlanRecord | undefined> {
  const [row] = await ex.select().from(subscriptionPlans).where(eq(subscriptionPlans.code, code)).limit(1);
  return row;
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

export async function insertSubscription(ex: Executor, row: typeof supplierSubscriptions.$inferInsert): Promise<SubscriptionRecord> {
  const [created] = await ex.insert(supplierSubscriptions).values(row).returning();
  return created!;
}

/** Closes every ACTIVE row of the supplier, including one already past its end. */
export async function cancelActive(ex: Executor, supplierId: string, now: Date): Promise<void> {
  await ex
    .update(supplierSubscriptions)
    .set({ status: 'CANCELLED', cancelledAt: now, updatedAt: now })
    .where(and(eq(supplierSubscriptions.supplierId, supplierId), eq(supplierSubscriptions.status, 'ACTIVE')));
}
