import type { AppContext } from '../../context.js';
import { together, type Executor } from '../../db/client.js';
import { conflict, notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { FREE_PLAN_CODE } from './commission-discount.js';
import * as repo from './subscriptions.repository.js';
import type { PlanRecord, SubscriptionRecord } from './subscriptions.repository.js';
import type { LimitsView, PlanView } from './subscriptions.schemas.js';

const DAY_MS = 86_400_000;

/** Counts a supplier's products (those that count against the plan). */
export type ProductCounter = (ex: Executor, supplierId: string) => Promise<number>;

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

export const toPlanView = (p: PlanRecord): PlanView => ({
  id: p.id,
  code: p.code,
  name: p.name,
  description: p.description,
  maxProducts: p.maxProducts,
  priceAmount: p.priceAmount,
  currency: p.currency,
  periodDays: p.periodDays,
  commissionDiscountBps: p.commissionDiscountBps,
  features: p.features,
  sortOrder: p.sortOrder,
});

/**
 * The plan a supplier is on: the FREE plan (seeded by the migration) unless it has a running
 * subscription to another plan, and the product limit that follows. Paying for plans lives in
 * billing.service.ts; plans and promo codes are administered in plans.service.ts and promo-codes.service.ts.
 */
export function createSubscriptionsService(ctx: AppContext) {
  // The products module registers its counter when it exists. Until then no supplier has
  // products, so 0 is the true count, not a guess.
  let countProducts: ProductCounter = async () => 0;

  async function freePlan(ex: Executor): Promise<PlanRecord> {
    const plan = await repo.findPlanByCode(ex, FREE_PLAN_CODE);
    if (!plan) throw new Error('The FREE subscription plan is missing (it is seeded by the migrations)');
    return plan;
  }

  async function current(
    ex: Executor,
    supplierId: string,
  ): Promise<{ plan: PlanRecord; subscription: SubscriptionRecord | null }> {
    const running = await repo.findRunning(ex, supplierId, ctx.clock.now());
    return running ?? { plan: await freePlan(ex), subscription: null };
  }

  async function getLimits(ex: Executor, supplierId: string): Promise<LimitsView> {
    const [{ plan, subscription }, currentProducts] = await together(ex, [
      () => current(ex, supplierId),
      () => countProducts(ex, supplierId),
    ]);
    const max = plan.maxProducts;
    return {
      allowed: max === null || currentProducts < max,
      maxProducts: max,
      currentProducts,
      remaining: max === null ? null : Math.max(0, max - currentProducts),
      plan: toPlanView(plan),
      subscription: subscription && {
        id: subscription.id,
        status: subscription.status,
        startedAt: subscription.startedAt.toISOString(),
        endsAt: subscription.endsAt?.toISOString() ?? null,
        cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
      },
    };
  }

  return {
    registerProductCounter(counter: ProductCounter): void {
      countProducts = counter;
    },

    getLimits,
    current,

    freePlan,

    /**
     * Moves the supplier to another plan. The caller holds a lock on the supplier (one change at
     * a time) and passes its transaction. Fewer allowed products than the supplier already has is
     * accepted: existing products stay, new ones are refused until the count is under the limit.
     */
    async changePlan(ex: Executor, supplierId: string, planCode: string): Promise<LimitsView> {
      const plan = await repo.findActivePlanByCode(ex, planCode.toUpperCase());
      if (!plan) throw notFound('Subscription plan');
      if (plan.priceAmount > 0) {
        throw conflict(
          'PAYMENT_REQUIRED',
          `The ${plan.code} plan is paid: subscribe through POST /subscriptions/subscribe`,
        );
      }
      const now = ctx.clock.now();
      const { plan: currentPlan } = await current(ex, supplierId);
      // Asking for the plan one is already on changes nothing (and keeps its end date).
      if (currentPlan.id !== plan.id) {
        await repo.cancelActive(ex, supplierId, now);
        await repo.insertSubscription(ex, {
          id: uuidv7(now.getTime()),
          supplierId,
          planId: plan.id,
          status: 'ACTIVE',
          startedAt: now,
          endsAt: plan.periodDays ? new Date(now.getTime() + plan.periodDays * DAY_MS) : null,
          createdAt: now,
          updatedAt: now,
        });
      }
      return getLimits(ex, supplierId);
    },

    /** Ends whatever the supplier subscribed to (its profile is being deleted). */
    cancelAll: (ex: Executor, supplierId: string) => repo.cancelActive(ex, supplierId, ctx.clock.now()),
  };
}
