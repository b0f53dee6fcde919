import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { conflict, notFound } from '../../shared/errors.js';
import { recordAdminAction } from '../audit/index.js';
import { platformSubscriptions } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { toPaymentView, type PaymentsApi } from '../payments/index.js';
import { toChargeView } from './billing.service.js';
import { tellDowngraded } from './downgrade-notice.js';
import * as promoRepo from './promo-codes.repository.js';
import * as repo from './subscriptions.repository.js';
import type { ChargeRecord } from './subscriptions.repository.js';
import type { SubscriptionsService } from './subscriptions.service.js';

const DAY_MS = 86_400_000;

export interface ChargeRefundDeps {
  payments: PaymentsApi;
  subscriptions: SubscriptionsService;
  notifications: NotificationsApi;
}

export type ChargeRefundsService = ReturnType<typeof createChargeRefunds>;

/**
 * An administrator gives a subscription payment back: the charge goes PAID -> REFUNDED, its money
 * platform_subscriptions -> refunds_pending:<paymentId> (then the provider's refund, as every
 * refund), and the period it paid is taken off the subscription it started or extended.
 */
export function createChargeRefunds(ctx: AppContext, deps: ChargeRefundDeps) {
  const now = () => ctx.clock.now();

  /**
   * The paid period comes off the subscription's end. Nothing left of it: the subscription ends now
   * (CANCELLED) and the supplier is on FREE; a subscription already over is left as it is.
   */
  async function takePeriodBack(tx: Executor, c: ChargeRecord, t: Date) {
    const s = c.appliedSubscriptionId ? await repo.lockSubscription(tx, c.appliedSubscriptionId) : undefined;
    if (!s || s.status !== 'ACTIVE' || !s.endsAt || s.endsAt <= t) return { effect: 'NONE' as const, s };
    const endsAt = new Date(s.endsAt.getTime() - c.periodDays * DAY_MS);
    if (endsAt > t) {
      const shortened = await repo.updateSubscription(tx, s.id, { endsAt, expiryWarnedAt: null, updatedAt: t });
      return { effect: 'SHORTENED' as const, s: shortened };
    }
    const ended = await repo.updateSubscription(tx, s.id, {
      status: 'CANCELLED',
      endsAt: t,
      cancelledAt: t,
      updatedAt: t,
    });
    return { effect: 'ENDED' as const, s: ended };
  }

  return {
    /** Refunds a subscription payment in full, once: the same payment again answers its refund as it stands. */
    async refund(admin: AuthUser, paymentId: string, reason: string) {
      const found = await deps.payments.find(ctx.db, paymentId);
      if (!found || found.subjectType !== 'subscription') throw notFound('Subscription payment');
      const charge = await ctx.db.transaction(async (tx) => {
        // The fixed lock order of money paths: the subject (the charge), then its payment.
        const c = (await repo.lockCharge(tx, found.subjectId))!;
        if (c.status === 'REFUNDED') return c;
        const p = (await deps.payments.find(tx, paymentId))!;
        if (c.status !== 'PAID' || p.status !== 'SUCCEEDED')
          throw conflict(
            'INVALID_TRANSITION',
            `Only the succeeded payment of a paid charge can be refunded (charge ${c.status}, payment ${p.status})`,
          );
        const t = now();
        const refunded = (await repo.moveCharge(tx, c.id, 'PAID', {
          status: 'REFUNDED',
          refundedAt: t,
          updatedAt: t,
        }))!;
        await deps.payments.settlement.refundPayment(tx, p, platformSubscriptions, 'ADMIN_REFUND');
        const { effect, s } = await takePeriodBack(tx, c, t);
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'subscriptions.payment.refund',
          targetType: 'payment',
          targetId: p.id,
          reason,
          data: { chargeId: c.id, amount: p.amount, currency: p.currency, subscriptionId: s?.id ?? null, effect },
          at: t,
        });
        if (effect === 'ENDED') {
          const key = `subscription:${s!.id}:refunded:${c.id}`;
          await tellDowngraded(tx, deps, { userId: c.userId, subscription: s!, reason: 'REFUNDED' }, key);
        }
        return refunded;
      });
      const promo = charge.promoCodeId ? await promoRepo.findPromo(ctx.db, charge.promoCodeId) : undefined;
      const payment = (await deps.payments.find(ctx.db, paymentId))!;
      return {
        charge: toChargeView(charge, promo?.code ?? null),
        payment: toPaymentView(payment),
        limits: await deps.subscriptions.getLimits(ctx.db, charge.supplierId),
      };
    },
  };
}
