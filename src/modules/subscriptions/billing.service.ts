import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import type { PaymentMethod } from '../../providers/payments/types.js';
import { AppError, conflict, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { platformSubscriptions } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { type LockedSubject, toPaymentView, type PaymentRecord, type PaymentsApi } from '../payments/index.js';
import type { SettingsApi } from '../settings/index.js';
import type { PlansService } from './plans.service.js';
import type { PromoCodesService } from './promo-codes.service.js';
import { tellDowngraded } from './downgrade-notice.js';
import * as repo from './subscriptions.repository.js';
import type { ChargeRecord, PlanRecord, SubscriptionRecord } from './subscriptions.repository.js';
import type { RenewBody, SubscribeBody } from './subscriptions.schemas.js';
import type { SubscriptionsService } from './subscriptions.service.js';

/** Closes a charge nobody paid by its deadline (and its waiting payment), freeing its promo code's use. */
export const CHARGE_TIMEOUT_JOB = 'subscriptions.charge-timeout';
/** Warns of periods ending within three days, and ends the periods that are over. */
export const SWEEP_JOB = 'subscriptions.sweep';
const DAY_MS = 86_400_000;
const WARN_BEFORE_MS = 3 * DAY_MS;
const SWEEP_BATCH = 200;

export interface BillingDeps {
  subscriptions: SubscriptionsService;
  plans: PlansService;
  promos: PromoCodesService;
  payments: PaymentsApi;
  settings: SettingsApi;
  suppliers: SupplierDirectory;
  notifications: NotificationsApi;
}

/** What billing reads of supplier profiles; the suppliers module (built after this one) provides it. */
export interface SupplierDirectory {
  lockProfile(ex: Executor, by: { userId: string }): Promise<SupplierRef | undefined>;
  findProfile(id: string, ex?: Executor): Promise<SupplierRef | undefined>;
  findOwnProfile(userId: string): Promise<SupplierRef | undefined>;
}
interface SupplierRef {
  id: string;
  userId: string;
}

export type BillingService = ReturnType<typeof createBillingService>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const toChargeView = (c: ChargeRecord, promoCode: string | null) => ({
  id: c.id,
  kind: c.kind,
  status: c.status,
  planId: c.planId,
  listPrice: c.listPrice,
  discountAmount: c.discountAmount,
  amount: c.amount,
  currency: c.currency,
  periodDays: c.periodDays,
  promoCode,
  expiresAt: c.expiresAt.toISOString(),
  paidAt: iso(c.paidAt),
  refundedAt: iso(c.refundedAt),
  createdAt: c.createdAt.toISOString(),
});

type LockedCharge = LockedSubject & { charge: ChargeRecord };

/**
 * Paying for plans. A paid plan is bought one period at a time through a charge (subscription_charges),
 * the subject of a payment like any order: the webhook, reconciliation and refunds are the payments
 * module's; this module says what a paid charge does (the plan starts, or its period is extended) and
 * where its money goes (provider_clearing -> platform_subscriptions).
 */
export function createBillingService(ctx: AppContext, deps: BillingDeps) {
  const now = () => ctx.clock.now();
  const subjectOf = (c: { id: string }) => ({ type: 'subscription' as const, id: c.id });

  async function requireSupplier(tx: Executor, user: AuthUser) {
    const profile = await deps.suppliers.lockProfile(tx, { userId: user.id });
    if (!profile)
      throw new AppError(
        404,
        'SUPPLIER_PROFILE_REQUIRED',
        'Create your supplier profile first (POST /suppliers/profile)',
      );
    return profile;
  }

  /** Before the transaction: the offered methods are read from the settings on the database. */
  async function checkMethod(method: PaymentMethod | undefined): Promise<void> {
    if (method && !(await deps.payments.methods()).some((m) => m.method === method))
      throw validationError('body.paymentMethod', 'is not offered at the moment (see GET /orders/payments/providers)');
  }
  const requireMethod = (method: PaymentMethod | undefined): PaymentMethod => {
    if (!method) throw validationError('body.paymentMethod', 'is required for a paid plan');
    return method;
  };

  /** Closes the supplier's waiting charge and its payment (a new one replaces it, or the plan changed). */
  async function dropPending(tx: Executor, supplierId: string): Promise<void> {
    for (const c of await repo.cancelPendingCharges(tx, supplierId, now()))
      await deps.payments.closeForSubject(tx, subjectOf(c), 'CANCELLED');
  }

  /**
   * Prices a period of `plan` with the promo code (checked under its row lock: the last use is won by
   * one supplier) and records the charge; a charge of 0 is paid at once, any other opens a payment.
   */
  async function openCharge(
    tx: Executor,
    a: {
      supplierId: string;
      userId: string;
      plan: PlanRecord;
      kind: ChargeRecord['kind'];
      subscriptionId: string | null;
      method: PaymentMethod;
      promoCode?: string;
    },
  ) {
    await dropPending(tx, a.supplierId);
    let promo;
    if (a.promoCode) {
      promo = await deps.promos.findByCode(tx, a.promoCode, { lock: true });
      const reason = await deps.promos.refusal(tx, promo, a.plan, a.supplierId);
      if (reason) throw conflict(reason, `The promo code ${a.promoCode} cannot be used: ${reason}`);
    }
    const quote = deps.promos.quoteOf(a.plan, promo, null);
    const t = now();
    const business = await deps.settings.get('business', tx);
    const charge = await repo.insertCharge(tx, {
      id: uuidv7(t.getTime()),
      supplierId: a.supplierId,
      userId: a.userId,
      planId: a.plan.id,
      kind: a.kind,
      subscriptionId: a.subscriptionId,
      method: a.method,
      listPrice: quote.listPrice,
      discountAmount: quote.discountAmount,
      amount: quote.price,
      currency: a.plan.currency,
      periodDays: a.plan.periodDays!,
      promoCodeId: promo?.id ?? null,
      expiresAt: new Date(t.getTime() + business.paymentTimeoutMinutes * 60_000),
      createdAt: t,
      updatedAt: t,
    });
    if (charge.amount === 0) {
      // Nothing to pay (a 100 % code): the period starts now and the code's use counts now.
      return { charge: await applyPaid(tx, charge), payment: null, promoCode: promo?.code ?? null };
    }
    const payment = await deps.payments.startFor(tx, {
      subject: subjectOf(charge),
      method: a.method,
      amount: charge.amount,
      currency: charge.currency,
      payerPhone: null,
      expiresAt: charge.expiresAt,
    });
    await ctx.jobs.send(
      CHARGE_TIMEOUT_JOB,
      { chargeId: charge.id },
      { tx, startAfterSeconds: business.paymentTimeoutMinutes * 60 },
    );
    return { charge, payment, promoCode: promo?.code ?? null };
  }

  /** The charge is paid: its promo use counts, and the plan starts (SUBSCRIBE) or its period is extended (RENEW). */
  async function applyPaid(tx: Executor, c: ChargeRecord): Promise<ChargeRecord> {
    const t = now();
    if (c.promoCodeId) await deps.promos.countUse(tx, c.promoCodeId);
    const running = c.subscriptionId ? await repo.lockSubscription(tx, c.subscriptionId) : undefined;
    // The subscription this payment starts or extends: what a refund takes the period back from.
    let applied: string;
    if (c.kind === 'RENEW' && running?.status === 'ACTIVE' && running.endsAt && running.endsAt > t) {
      applied = running.id;
      await repo.updateSubscription(tx, running.id, {
        endsAt: new Date(running.endsAt.getTime() + c.periodDays * DAY_MS),
        cancelAtPeriodEnd: false,
        expiryWarnedAt: null,
        updatedAt: t,
      });
    } else {
      // A new plan, or a renewal paid after its period ended: a period starting now.
      applied = uuidv7(t.getTime());
      await repo.cancelActive(tx, c.supplierId, t);
      await repo.insertSubscription(tx, {
        id: applied,
        supplierId: c.supplierId,
        planId: c.planId,
        status: 'ACTIVE',
        startedAt: t,
        endsAt: new Date(t.getTime() + c.periodDays * DAY_MS),
        createdAt: t,
        updatedAt: t,
      });
    }
    const paid = (await repo.moveCharge(tx, c.id, 'PENDING', {
      status: 'PAID',
      paidAt: t,
      appliedSubscriptionId: applied,
      updatedAt: t,
    }))!;
    await deps.notifications.notify(
      tx,
      c.userId,
      'subscription_payment_received',
      { chargeId: c.id, planId: c.planId, amount: c.amount, currency: c.currency, kind: c.kind },
      { sourceKey: `subscription-charge:${c.id}:paid` },
    );
    return paid;
  }

  deps.payments.registerSubject<LockedCharge>('subscription', {
    async lock(tx, chargeId) {
      const charge = await repo.lockCharge(tx, chargeId);
      return charge && { payerUserId: charge.userId, charge };
    },
    creditAccount: () => platformSubscriptions,
    async succeeded(tx, _p, { charge }, { late }) {
      // Paid after its deadline, or replaced by another charge meanwhile: nobody waits for this money.
      if (late || charge.status !== 'PENDING') return 'refund';
      await applyPaid(tx, charge);
      return 'applied';
    },
    async failed(tx, _p, { charge }, status) {
      // A refused attempt may be tried again on the same page until the deadline; an expired session may not.
      if (status === 'EXPIRED' && charge.status === 'PENDING')
        await repo.moveCharge(tx, charge.id, 'PENDING', { status: 'EXPIRED', updatedAt: now() });
    },
    async refunded(tx, p: PaymentRecord, { charge }) {
      // REFUNDED: an administrator refunded the paid charge; otherwise the payment came when nobody waited for it.
      const reason = charge.status === 'REFUNDED' ? 'ADMIN' : 'NOT_WANTED';
      await deps.notifications.notify(
        tx,
        charge.userId,
        'subscription_payment_refunded',
        { chargeId: charge.id, amount: p.amount, currency: p.currency, reason },
        { sourceKey: `payment:${p.id}:refunded` },
      );
    },
  });

  ctx.jobs.work(CHARGE_TIMEOUT_JOB, async (job: { chargeId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const c = await repo.lockCharge(tx, job.chargeId);
      if (!c || c.status !== 'PENDING' || c.expiresAt > now()) return;
      await repo.moveCharge(tx, c.id, 'PENDING', { status: 'EXPIRED', updatedAt: now() });
      await deps.payments.closeForSubject(tx, subjectOf(c), 'EXPIRED');
    });
  });

  async function userOf(tx: Executor, s: SubscriptionRecord): Promise<string | undefined> {
    return (await deps.suppliers.findProfile(s.supplierId, tx))?.userId;
  }

  /** One pass of the sweep: answers how many subscriptions were warned and ended. */
  async function sweep(): Promise<{ warned: number; ended: number }> {
    const t = now();
    let warned = 0;
    let endedCount = 0;
    for (const s of await repo.toWarn(ctx.db, t, new Date(t.getTime() + WARN_BEFORE_MS), SWEEP_BATCH)) {
      await ctx.db.transaction(async (tx) => {
        if (!(await repo.markWarned(tx, s.id, t))) return;
        const userId = await userOf(tx, s);
        if (userId)
          await deps.notifications.notify(
            tx,
            userId,
            'subscription_expiring',
            { subscriptionId: s.id, planId: s.planId, endsAt: iso(s.endsAt) },
            { sourceKey: `subscription:${s.id}:expiring:${s.endsAt!.getTime()}` },
          );
        warned++;
      });
    }
    for (const s of await repo.ended(ctx.db, t, SWEEP_BATCH)) {
      await ctx.db.transaction(async (tx) => {
        const done = await repo.endIfOver(tx, s.id, t);
        if (!done) return;
        const userId = await userOf(tx, s);
        const reason = done.status === 'CANCELLED' ? 'CANCELLED' : 'UNPAID';
        if (userId) await tellDowngraded(tx, deps, { userId, subscription: s, reason }, `subscription:${s.id}:ended`);
        endedCount++;
      });
    }
    return { warned, ended: endedCount };
  }

  ctx.jobs.work(SWEEP_JOB, async () => {
    await sweep();
  });
  ctx.jobs.schedule(SWEEP_JOB, '*/10 * * * *');

  return {
    sweep,

    /** The caller's supplier profile id (404 SUPPLIER_PROFILE_REQUIRED without one). */
    async supplierIdOf(userId: string): Promise<string> {
      const p = await deps.suppliers.findOwnProfile(userId);
      if (!p)
        throw new AppError(
          404,
          'SUPPLIER_PROFILE_REQUIRED',
          'Create your supplier profile first (POST /suppliers/profile)',
        );
      return p.id;
    },

    /**
     * Free plan: the switch is immediate. Paid plan: a charge and its payment; the plan applies when
     * the payment succeeds. Subscribing to the plan one already runs is a renewal (409).
     */
    async subscribe(user: AuthUser, body: SubscribeBody) {
      await checkMethod(body.paymentMethod);
      const opened = await ctx.db.transaction(async (tx) => {
        const supplier = await requireSupplier(tx, user);
        const plan = await deps.plans.subscribable(tx, body.planId);
        if (plan.priceAmount === 0) {
          if (body.promoCode) throw validationError('body.promoCode', 'a free plan takes no promo code');
          await dropPending(tx, supplier.id);
          await deps.subscriptions.changePlan(tx, supplier.id, plan.code);
          return null;
        }
        const method = requireMethod(body.paymentMethod);
        const { plan: current, subscription } = await deps.subscriptions.current(tx, supplier.id);
        if (subscription && current.id === plan.id)
          throw conflict(
            'ALREADY_SUBSCRIBED',
            `You are on the ${plan.code} plan: renew it (POST /subscriptions/renew) to pay the next period`,
          );
        return {
          supplierId: supplier.id,
          ...(await openCharge(tx, {
            supplierId: supplier.id,
            userId: user.id,
            plan,
            kind: 'SUBSCRIBE',
            subscriptionId: null,
            method,
            promoCode: body.promoCode,
          })),
        };
      });
      return answer(opened, user);
    },

    /** Pays the next period of the running paid plan ahead (at the plan's price now). */
    async renew(user: AuthUser, body: RenewBody) {
      await checkMethod(body.paymentMethod);
      const opened = await ctx.db.transaction(async (tx) => {
        const supplier = await requireSupplier(tx, user);
        const { plan, subscription } = await deps.subscriptions.current(tx, supplier.id);
        if (!subscription?.endsAt || plan.priceAmount === 0)
          throw conflict('NO_PAID_SUBSCRIPTION', 'You are on a free plan: subscribe to a paid plan instead');
        if (!plan.isActive || plan.deletedAt)
          throw conflict('PLAN_UNAVAILABLE', `The ${plan.code} plan is no longer offered: subscribe to another plan`);
        if (subscription.endsAt.getTime() - now().getTime() > plan.periodDays! * DAY_MS)
          throw conflict(
            'ALREADY_RENEWED',
            `Your period is paid until ${subscription.endsAt.toISOString()}: renew within its last ${plan.periodDays} days`,
          );
        return {
          supplierId: supplier.id,
          ...(await openCharge(tx, {
            supplierId: supplier.id,
            userId: user.id,
            plan,
            kind: 'RENEW',
            subscriptionId: subscription.id,
            method: body.paymentMethod,
            promoCode: body.promoCode,
          })),
        };
      });
      return answer(opened, user);
    },

    /** The paid plan stays until the end of its period, then FREE (the sweep); a waiting charge is dropped. */
    async cancel(user: AuthUser) {
      const supplierId = await ctx.db.transaction(async (tx) => {
        const supplier = await requireSupplier(tx, user);
        const { plan, subscription } = await deps.subscriptions.current(tx, supplier.id);
        await dropPending(tx, supplier.id);
        if (!subscription?.endsAt || plan.priceAmount === 0)
          throw conflict('NO_PAID_SUBSCRIPTION', 'You are on a free plan: there is nothing to cancel');
        if (!subscription.cancelAtPeriodEnd)
          await repo.updateSubscription(tx, subscription.id, {
            cancelAtPeriodEnd: true,
            cancelledAt: now(),
            updatedAt: now(),
          });
        return supplier.id;
      });
      return deps.subscriptions.getLimits(ctx.db, supplierId);
    },
  };

  async function answer(
    opened: (Awaited<ReturnType<typeof openCharge>> & { supplierId: string }) | null,
    user: AuthUser,
  ) {
    const supplierId = opened?.supplierId ?? (await deps.suppliers.findOwnProfile(user.id))!.id;
    const payment = opened?.payment ? await deps.payments.openAfterCommit(opened.payment) : null;
    const limits = await deps.subscriptions.getLimits(ctx.db, supplierId);
    return {
      status: opened?.payment ? ('PAYMENT_PENDING' as const) : ('ACTIVE' as const),
      charge: opened ? toChargeView(opened.charge, opened.promoCode) : null,
      payment: payment && toPaymentView(payment),
      limits,
    };
  }
}
