import type { AppContext } from '../../context.js';
import { afterCommit } from '../../db/after-commit.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import type { TransactionalKey } from '../../http/idempotency.js';
import { AppError, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta } from '../../shared/schemas.js';
import { canTransition } from '../../shared/state-machine.js';
import { advertiserBalance, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { toPaymentView, type LockedSubject, type PaymentsApi } from '../payments/index.js';
import { requireFeature, type SettingsApi } from '../settings/index.js';
import { AD_CURRENCY, type AdSpend } from './ad-spend.js';
import * as adRepo from './advertising.repository.js';
import type { AdvertiserRecord } from './advertising.repository.js';
import * as repo from './billing.repository.js';
import type { TopUpRecord } from './billing.repository.js';
import type { BalanceView, HistoryQuery, MovementView, TopUpBody, TopUpsQuery, TopUpView } from './billing.schemas.js';
import { TOPUP_TRANSITIONS } from './campaign-status.js';

/** Expires a top-up still waiting for its payment at its deadline. */
export const TOPUP_TIMEOUT_JOB = 'advertising.topup-timeout';

export interface AdBillingDeps {
  ledger: LedgerApi;
  notifications: NotificationsApi;
  payments: PaymentsApi;
  settings: SettingsApi;
  spend: AdSpend;
  /** Drops the served set on every instance (campaigns resumed by a top-up). */
  changed: () => void;
}

interface LockedTopUp extends LockedSubject {
  topUp: TopUpRecord;
}

const isAdmin = (u: AuthUser) => u.role === 'ADMIN' || u.role === 'SUPER_ADMIN';
const iso = (d: Date | null) => d?.toISOString() ?? null;

export const toTopUpView = (t: TopUpRecord): TopUpView => ({
  id: t.id,
  advertiserId: t.advertiserId,
  status: t.status,
  amount: t.amount,
  currency: t.currency,
  method: t.method,
  expiresAt: t.expiresAt.toISOString(),
  paidAt: iso(t.paidAt),
  createdAt: t.createdAt.toISOString(),
});

export type AdBilling = ReturnType<typeof createAdBilling>;

/**
 * An advertiser's prepaid balance: top-ups paid through the provider as a payment subject
 * (`advertising_topup`: provider_clearing -> advertiser_balance:<id>, posted by the payments module),
 * spent by clicks and impressions (ad-spend.ts), read with its history from the ledger.
 */
export function createAdBilling(ctx: AppContext, deps: AdBillingDeps) {
  const now = () => ctx.clock.now();
  const subjectOf = (id: string) => ({ type: 'advertising_topup' as const, id });

  deps.payments.registerSubject<LockedTopUp>('advertising_topup', {
    async lock(tx, id) {
      const topUp = await repo.findTopUp(tx, id, { lock: true });
      return topUp && { payerUserId: topUp.userId, topUp };
    },
    creditAccount: (_p, { topUp }) => advertiserBalance(topUp.advertiserId),
    async succeeded(tx, p, { topUp }) {
      // Paid even after its deadline: the money is the advertiser's and stays on its balance.
      if (!canTransition(TOPUP_TRANSITIONS, topUp.status, 'PAID')) return 'refund';
      const t = now();
      await repo.moveTopUp(tx, topUp.id, topUp.status, { status: 'PAID', paidAt: t, updatedAt: t });
      // Campaigns paused for want of balance that it pays again start again.
      const left = (await deps.spend.lock(tx, [topUp.advertiserId])).get(topUp.advertiserId)!;
      const resumed = await repo.resumeFunded(tx, topUp.advertiserId, left, t);
      if (resumed.length) afterCommit(tx, deps.changed);
      await deps.notifications.notify(
        tx,
        topUp.userId,
        'ad_topup_paid',
        { topUpId: topUp.id, amount: p.amount, currency: p.currency, balance: left, resumed: resumed.length },
        { sourceKey: `ad_topup:${topUp.id}:paid` },
      );
      return 'applied';
    },
    async failed(tx, _p, { topUp }, status) {
      // A refused attempt may be tried again on the same page until the deadline; an expired session may not.
      if (status === 'EXPIRED' && topUp.status === 'PENDING')
        await repo.moveTopUp(tx, topUp.id, 'PENDING', { status: 'EXPIRED', updatedAt: now() });
    },
  });

  ctx.jobs.work(TOPUP_TIMEOUT_JOB, async (job: { topUpId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const t = await repo.findTopUp(tx, job.topUpId, { lock: true });
      if (!t || t.status !== 'PENDING' || t.expiresAt > now()) return;
      await repo.moveTopUp(tx, t.id, 'PENDING', { status: 'EXPIRED', updatedAt: now() });
      await deps.payments.closeForSubject(tx, subjectOf(t.id), 'EXPIRED');
    });
  });

  const profileRequired = () =>
    new AppError(
      404,
      'ADVERTISER_PROFILE_REQUIRED',
      'Create your advertiser profile first (POST /advertising/profile)',
    );

  /** The advertiser the caller reads: its own, or (administrators) the one named; another's is 404. */
  async function advertiserOf(user: AuthUser, advertiserId?: string): Promise<AdvertiserRecord> {
    const own = await adRepo.findProfileOfUser(ctx.db, user.id);
    if (!advertiserId || advertiserId === own?.id) {
      if (!own) throw profileRequired();
      return own;
    }
    const other = isAdmin(user) ? await adRepo.findProfile(ctx.db, advertiserId) : undefined;
    if (!other) throw notFound('Advertiser');
    return other;
  }

  const available = async (ex: Executor, advertiserId: string) =>
    -(await deps.ledger.balance(ex, advertiserBalance(advertiserId)));

  return {
    advertiserOf,

    /** Adds money to the caller's balance: a top-up and its payment; the money counts once paid. */
    async topUp(user: AuthUser, body: TopUpBody, idempotency?: TransactionalKey) {
      // The same request, whose top-up committed but whose answer was lost with its process: that top-up.
      const made = idempotency?.madeBefore();
      if (made) {
        const payment = await deps.payments.latestOpened(subjectOf(made));
        return {
          topUp: toTopUpView((await repo.findTopUp(ctx.db, made))!),
          payment: payment ? toPaymentView(payment) : null,
        };
      }
      if (!(await deps.payments.methods()).some((m) => m.method === body.paymentMethod))
        throw validationError(
          'body.paymentMethod',
          'is not offered at the moment (see GET /orders/payments/providers)',
        );
      const { topUp, payment } = await ctx.db.transaction(async (tx) => {
        const profile = await adRepo.findProfileOfUser(tx, user.id);
        if (!profile) throw profileRequired();
        const at = now();
        const id = uuidv7(at.getTime());
        await idempotency?.claim(tx, id);
        // Checked once the key is claimed: a request made before advertising was switched off is answered again.
        await requireFeature(deps.settings, 'advertisingEnabled', tx);
        const { paymentTimeoutMinutes } = await deps.settings.get('business', tx);
        const topUp = await repo.insertTopUp(tx, {
          id,
          advertiserId: profile.id,
          userId: user.id,
          amount: body.amount,
          currency: AD_CURRENCY,
          method: body.paymentMethod,
          expiresAt: new Date(at.getTime() + paymentTimeoutMinutes * 60_000),
          createdAt: at,
          updatedAt: at,
        });
        const payment = await deps.payments.startFor(tx, {
          subject: subjectOf(id),
          method: body.paymentMethod,
          amount: body.amount,
          currency: AD_CURRENCY,
          payerPhone: body.payerPhone ?? null,
          expiresAt: topUp.expiresAt,
        });
        await ctx.jobs.send(TOPUP_TIMEOUT_JOB, { topUpId: id }, { tx, startAfterSeconds: paymentTimeoutMinutes * 60 });
        return { topUp, payment };
      });
      const opened = await deps.payments.openAfterCommit(payment);
      return { topUp: toTopUpView(topUp), payment: toPaymentView(opened) };
    },

    async topUps(user: AuthUser, q: TopUpsQuery) {
      const a = await advertiserOf(user, q.advertiserId);
      const { items, total } = await repo.listTopUps(ctx.db, a.id, q);
      return { items: items.map(toTopUpView), meta: pageMeta(q, total) };
    },

    /** The balance, what was ever topped up and spent (from the ledger), and top-ups not paid yet. */
    async balance(user: AuthUser, advertiserId?: string): Promise<BalanceView> {
      const a = await advertiserOf(user, advertiserId);
      const [moves, pendingTopUps] = await Promise.all([
        deps.ledger.movements(ctx.db, advertiserBalance(a.id), {}),
        repo.pendingTopUps(ctx.db, a.id),
      ]);
      const sum = (kind: string) => moves.filter((m) => m.kind === kind).reduce((s, m) => s + m.amount, 0);
      return {
        advertiserId: a.id,
        currency: AD_CURRENCY,
        balance: -moves.reduce((s, m) => s + m.amount, 0),
        toppedUp: -sum('payment_received'),
        spent: sum('ad_spend'),
        pendingTopUps,
      };
    },

    /** Every movement of the balance, newest first. */
    async history(user: AuthUser, q: HistoryQuery) {
      const a = await advertiserOf(user, q.advertiserId);
      const from = q.from ? new Date(q.from) : undefined;
      const to = q.to ? new Date(q.to) : undefined;
      const { items, total } = await deps.ledger.history(ctx.db, advertiserBalance(a.id), {
        from,
        to,
        limit: q.limit,
        offset: (q.page - 1) * q.limit,
      });
      const view = items.map(
        (l): MovementView => ({
          transactionId: l.transactionId,
          at: l.createdAt.toISOString(),
          type: l.kind === 'payment_received' ? 'TOP_UP' : l.kind === 'ad_spend' ? 'SPEND' : 'OTHER',
          amount: -l.amount,
          campaignId: l.reference.type === 'ad_campaign' ? l.reference.id : null,
          topUpId: l.reference.type === 'advertising_topup' ? l.reference.id : null,
          memo: l.memo,
        }),
      );
      return { items: view, meta: pageMeta(q, total) };
    },

    available,
  };
}
