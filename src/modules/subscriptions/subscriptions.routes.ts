import { Type } from 'typebox';
import { perAccountBucket, type TokenBucket } from '../../http/rate-limits.js';
import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import type { BillingService } from './billing.service.js';
import type { ChargeRefundsService } from './charge-refunds.service.js';
import type { PlansService } from './plans.service.js';
import type { PromoCodesService } from './promo-codes.service.js';
import * as S from './subscriptions.schemas.js';
import type { SubscriptionsService } from './subscriptions.service.js';

// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const sup = { access: 'SUP' } as const;
const adm = { access: 'ADM' } as const;
/**
 * Validation answers whether a code exists: a guessing oracle without a limit per supplier account.
 * Apps check as the user types, so a burst passes; the steady rate bounds guessing (600 an hour).
 */
export const PROMO_VALIDATE_LIMIT: TokenBucket = { burst: 30, perMinute: 10 };

export interface SubscriptionsRouteDeps {
  subscriptions: SubscriptionsService;
  plans: PlansService;
  promos: PromoCodesService;
  billing: BillingService;
  refunds: ChargeRefundsService;
  /** The caller's supplier profile id (404 SUPPLIER_PROFILE_REQUIRED without one). */
  supplierIdOf: (userId: string) => Promise<string>;
}

export function subscriptionsRoutes(d: SubscriptionsRouteDeps) {
  return async (app: App) => {
    const tags = ['subscriptions'];
    const validateTries = perAccountBucket(app, 'promo-validate', PROMO_VALIDATE_LIMIT);

    app.get(
      '/subscriptions/plans',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Public, active plans in display order',
          response: { 200: Ok(Type.Array(S.PlanSchema)) },
        },
      },
      async () => ok(await d.plans.listPublic()),
    );

    app.post(
      '/subscriptions/subscribe',
      {
        config: { ...sup, idempotency: true },
        schema: {
          tags,
          summary:
            'Subscribe to a plan: a free plan applies at once; a paid one once payment.redirectUrl is paid (Idempotency-Key honoured)',
          body: S.SubscribeBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.SubscribeAnswerSchema), 201: Ok(S.SubscribeAnswerSchema) },
        },
      },
      async (req, reply) => {
        const r = await d.billing.subscribe(req.user, req.body);
        return reply.code(r.charge ? 201 : 200).send(ok(r));
      },
    );

    app.post(
      '/subscriptions/cancel',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Cancel the paid plan: it stays until the end of its paid period, then FREE',
          errors: [404, 409],
          response: { 200: Ok(S.LimitsSchema) },
        },
      },
      async (req) => ok(await d.billing.cancel(req.user)),
    );

    app.post(
      '/subscriptions/renew',
      {
        config: { ...sup, idempotency: true },
        schema: {
          tags,
          summary: 'Pay the next period of the running plan ahead (at its current price)',
          body: S.RenewBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.SubscribeAnswerSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await d.billing.renew(req.user, req.body))),
    );

    app.get(
      '/subscriptions/limits',
      {
        config: sup,
        schema: {
          tags,
          summary: 'The current plan, its product limit and how much of it is used (as /suppliers/can-create-products)',
          errors: [404],
          response: { 200: Ok(S.LimitsSchema) },
        },
      },
      async (req) => ok(await d.subscriptions.getLimits(app.ctx.db, await d.supplierIdOf(req.user.id))),
    );

    app.post(
      '/subscriptions/promo-codes/validate',
      {
        config: sup,
        preHandler: validateTries,
        schema: {
          tags,
          summary: 'The price of a plan with a promo code, or why the code does not apply (rate limited per account)',
          body: S.ValidatePromoBodySchema,
          errors: [404],
          response: { 200: Ok(S.PromoQuoteSchema) },
        },
      },
      async (req) => {
        const supplierId = await d.supplierIdOf(req.user.id);
        const plan = await d.plans.subscribable(app.ctx.db, req.body.planId);
        return ok({ planId: plan.id, ...(await d.promos.quote(supplierId, plan, req.body.code)) });
      },
    );

    app.get(
      '/subscriptions/promo-codes/available',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Public promo codes the caller can use now',
          errors: [404],
          response: { 200: Ok(Type.Array(S.PublicPromoSchema)) },
        },
      },
      async (req) => ok(await d.promos.available(await d.supplierIdOf(req.user.id))),
    );

    // Administration
    const atags = ['admin: subscriptions'];
    app.get(
      '/admin/subscriptions/plans',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Every plan (inactive and private ones too) with its subscriber count',
          response: { 200: Ok(Type.Array(S.AdminPlanSchema)) },
        },
      },
      async () => ok(await d.plans.listAll()),
    );

    app.post(
      '/admin/subscriptions/plans',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Create a plan',
          body: S.CreatePlanBodySchema,
          errors: [409],
          response: { 201: Ok(S.AdminPlanSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await d.plans.create(req.user, req.body))),
    );

    app.put(
      '/admin/subscriptions/plans/:planId',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: "Change a plan (a new price applies from each subscriber's next period)",
          params: S.PlanIdParamsSchema,
          body: S.UpdatePlanBodySchema,
          errors: [404],
          response: { 200: Ok(S.AdminPlanSchema) },
        },
      },
      async (req) => ok(await d.plans.update(req.user, req.params.planId, req.body)),
    );

    app.delete(
      '/admin/subscriptions/plans/:planId',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Delete a plan; refused (409 with the count) while suppliers are subscribed',
          params: S.PlanIdParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DeletedSchema) },
        },
      },
      async (req) => {
        await d.plans.remove(req.user, req.params.planId);
        return ok({ deleted: true as const });
      },
    );

    app.post(
      '/admin/subscriptions/payments/:paymentId/refund',
      {
        config: { ...adm, idempotency: true },
        schema: {
          tags: atags,
          summary:
            'Refund a subscription payment in full: the paid period is taken off the plan (FREE if nothing is left), the money goes back through the provider (audited; Idempotency-Key honoured)',
          params: S.PaymentIdParamsSchema,
          body: S.RefundBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.SubscriptionRefundSchema) },
        },
      },
      async (req) => ok(await d.refunds.refund(req.user, req.params.paymentId, req.body.reason)),
    );

    app.get(
      '/admin/subscriptions/promo-codes',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Promo codes, newest first unless sorted',
          querystring: S.PromoListQuerySchema,
          response: { 200: OkPage(S.PromoSchema) },
        },
      },
      async (req) => {
        const r = await d.promos.list(req.query);
        return okPage(r.data, r.meta);
      },
    );

    app.post(
      '/admin/subscriptions/promo-codes',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Create a promo code (unique whatever its case)',
          body: S.CreatePromoBodySchema,
          errors: [409],
          response: { 201: Ok(S.PromoSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await d.promos.create(req.user, req.body))),
    );

    app.post(
      '/admin/subscriptions/promo-codes/bulk',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Create N unguessable codes with a common prefix, all or none',
          body: S.BulkPromoBodySchema,
          response: { 201: Ok(S.BulkAnswerSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await d.promos.createBulk(req.user, req.body))),
    );

    app.put(
      '/admin/subscriptions/promo-codes/:promoCodeId',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Change a promo code (disabled: false enables it again)',
          params: S.PromoIdParamsSchema,
          body: S.UpdatePromoBodySchema,
          errors: [404],
          response: { 200: Ok(S.PromoSchema) },
        },
      },
      async (req) => ok(await d.promos.update(req.user, req.params.promoCodeId, req.body)),
    );

    app.post(
      '/admin/subscriptions/promo-codes/:promoCodeId/disable',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Disable a promo code (waiting payments keep their price)',
          params: S.PromoIdParamsSchema,
          errors: [404],
          response: { 200: Ok(S.PromoSchema) },
        },
      },
      async (req) => ok(await d.promos.disable(req.user, req.params.promoCodeId)),
    );

    app.delete(
      '/admin/subscriptions/promo-codes/:promoCodeId',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Delete a promo code never used (409 otherwise: disable it)',
          params: S.PromoIdParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DeletedSchema) },
        },
      },
      async (req) => {
        await d.promos.remove(req.user, req.params.promoCodeId);
        return ok({ deleted: true as const });
      },
    );
  };
}
