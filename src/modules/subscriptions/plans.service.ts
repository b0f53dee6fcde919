import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { recordAdminAction } from '../audit/index.js';
import * as repo from './subscriptions.repository.js';
import type { PlanRecord } from './subscriptions.repository.js';
import type { AdminPlanView, CreatePlanBody, PlanView, UpdatePlanBody } from './subscriptions.schemas.js';
import { FREE_PLAN_CODE } from './commission-discount.js';
import { toPlanView } from './subscriptions.service.js';

const DEFAULT_PERIOD_DAYS = 30;

export type PlansService = ReturnType<typeof createPlansService>;

const toAdminView = (p: PlanRecord, subscriberCount: number): AdminPlanView => ({
  ...toPlanView(p),
  isPublic: p.isPublic,
  isActive: p.isActive,
  subscriberCount,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

/**
 * Plans as administrators see and change them, and the public list. A price change is a change of
 * the plan row only: a running subscription keeps the period it paid for, and the next charge (a
 * renewal) reads the new price. The FREE plan, every supplier's fallback, stays free, active and undeleted.
 */
export function createPlansService(ctx: AppContext) {
  const now = () => ctx.clock.now();

  async function withCounts(plans: PlanRecord[]): Promise<AdminPlanView[]> {
    const counts = await repo.subscriberCounts(
      ctx.db,
      plans.map((p) => p.id),
      now(),
    );
    return plans.map((p) => toAdminView(p, counts.get(p.id) ?? 0));
  }

  return {
    async listPublic(): Promise<PlanView[]> {
      return (await repo.listPlans(ctx.db, { publicOnly: true })).map(toPlanView);
    },

    listAll: async (): Promise<AdminPlanView[]> => withCounts(await repo.listPlans(ctx.db, { publicOnly: false })),

    /** A plan a supplier may subscribe to now (active, not deleted); 404 otherwise. */
    async subscribable(ex: Parameters<typeof repo.findPlan>[0], planId: string): Promise<PlanRecord> {
      const plan = await repo.findPlan(ex, planId);
      if (!plan || !plan.isActive) throw notFound('Subscription plan');
      return plan;
    },

    async create(admin: AuthUser, body: CreatePlanBody): Promise<AdminPlanView> {
      const t = now();
      const plan = await ctx.db.transaction(async (tx) => {
        const created = await repo.insertPlan(tx, {
          id: uuidv7(t.getTime()),
          code: body.code.toUpperCase(),
          name: body.name.trim(),
          description: body.description?.trim() ?? '',
          priceAmount: body.priceAmount,
          currency: body.currency ?? 'XOF',
          periodDays: body.periodDays ?? DEFAULT_PERIOD_DAYS,
          maxProducts: body.maxProducts,
          commissionDiscountBps: body.commissionDiscountBps ?? 0,
          features: body.features?.map((f) => f.trim()) ?? [],
          isPublic: body.isPublic ?? true,
          sortOrder: body.sortOrder ?? 0,
          isActive: body.isActive ?? true,
          createdAt: t,
          updatedAt: t,
        });
        if (!created)
          throw new AppError(
            409,
            'ALREADY_EXISTS',
            `A plan with code ${body.code.toUpperCase()} exists (codes of deleted plans are not reused)`,
          );
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'subscription_plan.created',
          targetType: 'subscription_plan',
          targetId: created.id,
          data: { code: created.code, priceAmount: created.priceAmount },
          at: t,
        });
        return created;
      });
      return toAdminView(plan, 0);
    },

    async update(admin: AuthUser, planId: string, body: UpdatePlanBody): Promise<AdminPlanView> {
      const t = now();
      const plan = await ctx.db.transaction(async (tx) => {
        const before = await repo.findPlan(tx, planId, { lock: true });
        if (!before) throw notFound('Subscription plan');
        if (before.code === FREE_PLAN_CODE) {
          if (body.priceAmount !== undefined && body.priceAmount !== 0)
            throw validationError('body.priceAmount', 'the FREE plan stays free');
          if (body.isActive === false)
            throw validationError('body.isActive', "the FREE plan is every supplier's fallback: it stays active");
        }
        const patch = {
          ...body,
          ...(body.name !== undefined && { name: body.name.trim() }),
          ...(body.description !== undefined && { description: body.description.trim() }),
          ...(body.features !== undefined && { features: body.features.map((f) => f.trim()) }),
          // The FREE plan has no period (it never ends): keep it so.
          ...(before.code === FREE_PLAN_CODE && { periodDays: before.periodDays }),
          updatedAt: t,
        };
        const after = (await repo.updatePlan(tx, planId, patch))!;
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'subscription_plan.updated',
          targetType: 'subscription_plan',
          targetId: planId,
          data: { changes: body, previousPrice: before.priceAmount },
          at: t,
        });
        return after;
      });
      return (await withCounts([plan]))[0]!;
    },

    /** Refused while any supplier runs on it (409 with the count: deactivate it instead). */
    async remove(admin: AuthUser, planId: string): Promise<void> {
      const t = now();
      await ctx.db.transaction(async (tx) => {
        const plan = await repo.findPlan(tx, planId, { lock: true });
        if (!plan) throw notFound('Subscription plan');
        if (plan.code === FREE_PLAN_CODE)
          throw conflict('PLAN_REQUIRED', "The FREE plan is every supplier's fallback and cannot be deleted");
        const n = (await repo.subscriberCounts(tx, [planId], t)).get(planId) ?? 0;
        if (n > 0) {
          throw new AppError(
            409,
            'PLAN_HAS_SUBSCRIBERS',
            `${n} supplier(s) are subscribed to this plan: deactivate it instead (isActive: false)`,
            [{ field: 'subscriberCount', message: String(n) }],
          );
        }
        await repo.updatePlan(tx, planId, { deletedAt: t, isActive: false, isPublic: false, updatedAt: t });
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'subscription_plan.deleted',
          targetType: 'subscription_plan',
          targetId: planId,
          data: { code: plan.code },
          at: t,
        });
      });
    },
  };
}
