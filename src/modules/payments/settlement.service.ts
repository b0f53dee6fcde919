import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { ProviderEventOutcome } from '../../db/schema/payments.js';
import {
  parseProviderEvent,
  UnknownEventTypeError,
  verifyWebhookSignature,
} from '../../providers/payments/signature.js';
import {
  PaymentProviderError,
  type CheckoutSession,
  type PaymentProvider,
  type ProviderEvent,
} from '../../providers/payments/types.js';
import { WireFormatError } from '../../providers/payments/wire.js';
import { AppError, notFound, unauthenticated, validationError } from '../../shared/errors.js';
import { canTransition } from '../../shared/state-machine.js';
import { providerClearing, refundsPending, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { paymentLedgerKeys, type LockedSubject, type PaymentSubjectHandler } from './payment-subjects.js';
import { OPEN_PAYMENT_STATUSES, PAYMENT_TRANSITIONS, REFUND_ON_SUCCESS } from './payment-status.js';
import * as repo from './payments.repository.js';
import type { PaymentRecord } from './payments.repository.js';
import { toPaymentView, type PaymentsService } from './payments.service.js';

/** Sends a refund to the provider; retried with backoff while the provider is unreachable. */
export const REFUND_JOB = 'payments.refund';
/** Every minute: asks the provider about attempts whose webhook may have been lost. */
export const RECONCILE_JOB = 'payments.reconcile';
// 30 s doubling over 12 tries: more than a day of provider outage before the dead-letter queue.
const REFUND_RETRIES = { retryLimit: 12, retryDelaySeconds: 30 };
const RECONCILE_AFTER_MS = 2 * 60_000;
const RECONCILE_BATCH = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type SessionEvent = Extract<ProviderEvent, { session: CheckoutSession }>;
export type PayoutEvent = Extract<ProviderEvent, { payout: unknown }>;
/** A session event, or the session's expiry as reconciliation reads it (the provider sends no event for that). */
type SettlementEvent = SessionEvent | { id: string; type: 'checkout.session.expired'; session: CheckoutSession };
/** Applies a payout event inside the webhook's transaction; answers the outcome recorded with it. */
export type PayoutHandler = (tx: Executor, event: PayoutEvent) => Promise<ProviderEventOutcome>;

export interface SettlementDeps {
  payments: PaymentsService;
  ledger: LedgerApi;
  notifications: NotificationsApi;
  provider: () => PaymentProvider;
}

export type SettlementService = ReturnType<typeof createSettlementService>;

/**
 * Money coming in and going back: the provider's webhook, reconciliation (the same code path, fed
 * by reading the session), refunds through the provider and the payer's return.
 * Every provider event is recorded under its id in the transaction applying it, so each applies once.
 * What a payment's money does is its subject's business (payment-subjects.ts): the module owning a
 * subject declares it through `payments.registerSubject`, and everything here goes through that handler.
 */
export function createSettlementService(ctx: AppContext, deps: SettlementDeps) {
  const now = () => ctx.clock.now();
  let payoutHandler: PayoutHandler | null = null;

  async function applyEvent(
    tx: Executor,
    ev: SettlementEvent | PayoutEvent,
    payload: unknown,
  ): Promise<ProviderEventOutcome | 'duplicate'> {
    if (
      !(await repo.insertProviderEvent(tx, {
        id: ev.id,
        type: ev.type,
        payload,
        outcome: 'applied',
        receivedAt: now(),
      }))
    )
      return 'duplicate';
    const { outcome, paymentId } =
      'payout' in ev
        ? { outcome: payoutHandler ? await payoutHandler(tx, ev) : 'unhandled', paymentId: null }
        : await settleSession(tx, ev);
    if (outcome !== 'applied' || paymentId) await repo.setEventOutcome(tx, ev.id, outcome, paymentId);
    return outcome;
  }

  async function settleSession(
    tx: Executor,
    ev: SettlementEvent,
  ): Promise<{ outcome: ProviderEventOutcome; paymentId: string | null }> {
    const ref = ev.session.clientReference;
    const seen = UUID.test(ref) ? await repo.findPayment(tx, ref) : undefined;
    if (!seen) {
      ctx.log.warn({ eventId: ev.id, clientReference: ref }, 'provider event for an unknown payment');
      return { outcome: 'unknown_payment', paymentId: null };
    }
    // Fixed lock order: the subject (an order...), then its payment.
    const handler = deps.payments.subjectHandler(seen.subjectType);
    const subject = await handler.lock(tx, seen.subjectId);
    if (!subject) throw new Error(`payment ${seen.id}: its ${seen.subjectType} ${seen.subjectId} is gone`);
    let p = (await repo.lockPayment(tx, seen.id))!;
    const s = ev.session;
    // A session opened but never stored (the server stopped between the provider's answer and
    // saving it): the signed event naming this payment, for its amount, says which one it is.
    // Refusing it would leave money taken at the provider unseen until reconciliation, or for
    // ever for an attempt closed meanwhile (reconciliation only asks about stored sessions).
    if (p.providerSessionId === null && p.amount === s.amount && p.currency === s.currency) {
      p =
        (await repo.adoptSession(
          tx,
          p.id,
          { provider: deps.provider().name, providerSessionId: s.id, launchUrl: s.launchUrl },
          now(),
        )) ?? p;
    }
    if (p.providerSessionId !== s.id || p.amount !== s.amount || p.currency !== s.currency) {
      ctx.log.error(
        {
          eventId: ev.id,
          paymentId: p.id,
          expected: { session: p.providerSessionId, amount: p.amount, currency: p.currency },
          got: { session: s.id, amount: s.amount, currency: s.currency },
        },
        'provider event does not match its payment: not applied',
      );
      return { outcome: 'rejected_mismatch', paymentId: p.id };
    }
    const outcome =
      ev.type === 'checkout.session.completed'
        ? s.paymentStatus === 'succeeded'
          ? await succeed(tx, p, handler, subject, s)
          : 'ignored'
        : ev.type === 'checkout.session.payment_failed'
          ? await fail(tx, p, handler, subject, 'FAILED', s.lastPaymentError?.message ?? 'payment failed')
          : await fail(tx, p, handler, subject, 'EXPIRED', 'checkout session expired');
    return { outcome, paymentId: p.id };
  }

  const subjectOf = (p: PaymentRecord) => ({ subjectType: p.subjectType, subjectId: p.subjectId, orderId: p.orderId });
  /** The payer's open streams hear the attempt's new state once the transaction commits. */
  const tellPayer = (tx: Executor, subject: LockedSubject, p: PaymentRecord) =>
    deps.notifications.live(tx, subject.payerUserId, 'payment', { ...subjectOf(p), ...toPaymentView(p) });

  async function succeed(
    tx: Executor,
    p: PaymentRecord,
    handler: PaymentSubjectHandler,
    subject: LockedSubject,
    s: CheckoutSession,
  ): Promise<ProviderEventOutcome> {
    // Never backwards, never twice: a repeated success under another event id changes nothing.
    if (!canTransition(PAYMENT_TRANSITIONS, p.status, 'SUCCEEDED')) return 'ignored';
    const t = now();
    const late = REFUND_ON_SUCCESS.includes(p.status);
    const paid = (await repo.transition(
      tx,
      p.id,
      p.status,
      { status: 'SUCCEEDED', providerTransactionId: s.transactionId, paidAt: s.completedAt ?? t, failureReason: null },
      t,
    ))!;
    await ctx.events.publish(tx, 'payments.succeeded', {
      paymentId: p.id,
      ...subjectOf(p),
      amount: p.amount,
      currency: p.currency,
    });
    const account = handler.creditAccount?.(paid, subject);
    if (account) await postReceived(tx, paid, account);
    const done = await handler.succeeded(tx, paid, subject, { late });
    if (done === 'refund') {
      if (!account)
        throw new Error(`payment subject ${p.subjectType} asked for a refund but declares no creditAccount`);
      await refundReceived(tx, paid, account, late ? 'PAYMENT_AFTER_EXPIRY' : 'NOT_WANTED');
    }
    // Applied, the payment is as moved above; refunded, it went on to REFUND_PENDING.
    tellPayer(tx, subject, done === 'applied' ? paid : (await repo.findPayment(tx, p.id))!);
    return done === 'refund' ? 'refunded' : done;
  }

  async function fail(
    tx: Executor,
    p: PaymentRecord,
    handler: PaymentSubjectHandler,
    subject: LockedSubject,
    status: 'FAILED' | 'EXPIRED',
    reason: string,
  ): Promise<ProviderEventOutcome> {
    if (p.status === status || !canTransition(PAYMENT_TRANSITIONS, p.status, status)) return 'ignored';
    const moved = (await repo.transition(tx, p.id, p.status, { status, failureReason: reason.slice(0, 500) }, now()))!;
    await ctx.events.publish(tx, 'payments.failed', {
      paymentId: p.id,
      ...subjectOf(p),
      status,
      reason: reason.slice(0, 500),
    });
    await handler.failed?.(tx, moved, subject, status);
    tellPayer(tx, subject, moved);
    return 'applied';
  }

  /** provider_clearing -> the subject's account, once per payment (the key is the payment's). */
  async function postReceived(tx: Executor, p: PaymentRecord, account: string): Promise<void> {
    await deps.ledger.post(tx, {
      kind: 'payment_received',
      reference: { type: p.subjectType, id: p.subjectId },
      idempotencyKey: paymentLedgerKeys.received(p.id),
      currency: p.currency,
      memo: `payment ${p.id}`,
      lines: [
        { account: providerClearing, amount: p.amount },
        { account, amount: -p.amount },
      ],
    });
  }

  /** A succeeded payment's money goes back: `from` -> refunds_pending:<paymentId>, then the provider job. */
  async function refundReceived(tx: Executor, p: PaymentRecord, from: string, reason: string): Promise<void> {
    const { transactionId } = await deps.ledger.post(tx, {
      kind: 'refund_started',
      reference: { type: p.subjectType, id: p.subjectId },
      idempotencyKey: paymentLedgerKeys.refund(p.id),
      currency: p.currency,
      memo: reason.slice(0, 200),
      lines: [
        { account: from, amount: p.amount },
        { account: refundsPending(p.id), amount: -p.amount },
      ],
    });
    await beginRefund(tx, p.id, transactionId);
  }

  async function beginRefund(tx: Executor, paymentId: string, ledgerTransactionId: string): Promise<void> {
    if (!(await repo.transition(tx, paymentId, 'SUCCEEDED', { status: 'REFUND_PENDING' }, now()))) {
      throw new AppError(409, 'INVALID_TRANSITION', 'Only a succeeded payment can be refunded');
    }
    await ctx.jobs.send(REFUND_JOB, { paymentId, ledgerTransactionId }, { tx });
  }

  ctx.jobs.work(
    REFUND_JOB,
    async (job: { paymentId: string; ledgerTransactionId: string }) => {
      const p = await repo.findPayment(ctx.db, job.paymentId);
      if (!p || p.status !== 'REFUND_PENDING' || p.refundFailedAt || !p.providerSessionId) return;
      try {
        // The key comes from the ledger transaction: a retried job asks for the same refund.
        await deps.provider().refundSession(p.providerSessionId, `refund:${job.ledgerTransactionId}`);
      } catch (err) {
        if (err instanceof PaymentProviderError && !err.retryable) {
          const reason = `${err.code ?? err.status ?? 'refused'}: ${err.message}`.slice(0, 500);
          await repo.markRefundFailed(ctx.db, p.id, reason, now());
          ctx.log.error(
            { paymentId: p.id, reason },
            'refund refused by the provider: to be settled by an administrator',
          );
          return;
        }
        throw err;
      }
      await ctx.db.transaction((tx) => completeRefund(tx, p));
    },
    REFUND_RETRIES,
  );

  async function completeRefund(tx: Executor, p: PaymentRecord): Promise<void> {
    const handler = deps.payments.subjectHandler(p.subjectType);
    const subject = await handler.lock(tx, p.subjectId);
    const t = now();
    const refunded = await repo.transition(tx, p.id, 'REFUND_PENDING', { status: 'REFUNDED', refundedAt: t }, t);
    if (!refunded) return;
    await deps.ledger.post(tx, {
      kind: 'refund_completed',
      reference: { type: 'payment', id: p.id },
      idempotencyKey: paymentLedgerKeys.refunded(p.id),
      currency: p.currency,
      lines: [
        { account: refundsPending(p.id), amount: p.amount },
        { account: providerClearing, amount: -p.amount },
      ],
    });
    if (subject) await handler.refunded?.(tx, refunded, subject);
    await ctx.events.publish(tx, 'payments.refunded', {
      paymentId: p.id,
      ...subjectOf(p),
      amount: p.amount,
      currency: p.currency,
    });
  }

  /** The session as it stands, as the event the webhook would have brought; null when there is nothing to apply. */
  function eventFromSession(p: PaymentRecord, s: CheckoutSession): SettlementEvent | null {
    if (s.paymentStatus === 'succeeded')
      return { id: `recon:${s.id}:succeeded`, type: 'checkout.session.completed', session: s };
    if (s.checkoutStatus === 'expired')
      return { id: `recon:${s.id}:expired`, type: 'checkout.session.expired', session: s };
    if (s.lastPaymentError && p.status === 'PENDING')
      return {
        id: `recon:${s.id}:failed:${s.lastPaymentError.code}`.slice(0, 200),
        type: 'checkout.session.payment_failed',
        session: s,
      };
    return null;
  }

  /** Reads the payment's session from the provider and applies what it says; answers the payment as it is then. */
  async function reconcileOne(p: PaymentRecord): Promise<PaymentRecord> {
    const session = await deps.provider().getSession(p.providerSessionId!);
    const ev = eventFromSession(p, session);
    if (ev) await ctx.db.transaction((tx) => applyEvent(tx, ev, { source: 'reconciliation', session }));
    return (await repo.findPayment(ctx.db, p.id))!;
  }

  async function reconcile(): Promise<number> {
    const due = await repo.toReconcile(ctx.db, new Date(now().getTime() - RECONCILE_AFTER_MS), RECONCILE_BATCH);
    let changed = 0;
    for (const p of due) {
      try {
        if ((await reconcileOne(p)).status !== p.status) changed++;
      } catch (err) {
        // One unreachable session does not hold the others back; the next run asks again.
        ctx.log.warn({ err, paymentId: p.id }, 'payment not reconciled');
      }
    }
    return changed;
  }

  ctx.jobs.work(RECONCILE_JOB, async () => {
    await reconcile();
  });
  ctx.jobs.schedule(RECONCILE_JOB, '* * * * *');

  return {
    /**
     * The provider's webhook: the signature is checked on the raw bytes before anything is parsed
     * (401, nothing stored), then the event is recorded and applied in one transaction.
     */
    async receiveWebhook(
      rawBody: Buffer,
      signature: string | undefined,
    ): Promise<{ received: true; outcome: ProviderEventOutcome | 'duplicate' }> {
      const secrets = deps.provider().webhookSecrets;
      if (!verifyWebhookSignature(signature, rawBody, secrets, Math.floor(now().getTime() / 1000)))
        throw unauthenticated('Invalid or missing Wave-Signature');
      let ev: ProviderEvent;
      try {
        ev = parseProviderEvent(rawBody);
      } catch (err) {
        if (err instanceof UnknownEventTypeError) {
          ctx.log.info({ type: err.type }, 'provider event of a type not handled: acknowledged');
          return { received: true, outcome: 'ignored' };
        }
        if (err instanceof WireFormatError) throw validationError('body', err.message);
        throw err;
      }
      const payload = JSON.parse(rawBody.toString()) as unknown;
      const outcome = await ctx.db.transaction((tx) => applyEvent(tx, ev, payload));
      return { received: true, outcome };
    },

    /** Where the payouts work plugs in; until then payout events are recorded as `unhandled`. */
    onPayoutEvent(fn: PayoutHandler): void {
      payoutHandler = fn;
    },

    /** One reconciliation pass (the cron job's body): answers how many payments changed. */
    reconcile,

    /**
     * A succeeded payment of a subject declared with a `creditAccount` is sent back to its payer
     * (`from` that account, through refunds_pending and the provider job). Orders refund through
     * their escrow instead, whose refund hook calls `beginRefund`.
     */
    refundPayment: refundReceived,

    /**
     * A succeeded payment whose money was already moved to refunds_pending:<paymentId> (by ledger
     * transaction `ledgerTransactionId`) goes to REFUND_PENDING; the provider is asked by a job after commit.
     */
    beginRefund,

    /** The payer came back from the provider: the payment's state as the database (and, if still open, the provider) says. */
    async returned(ref: string): Promise<{
      orderId: string | null;
      subjectType: PaymentRecord['subjectType'];
      subjectId: string;
      paymentId: string;
      status: PaymentRecord['status'];
    }> {
      let p = await repo.findPayment(ctx.db, ref);
      if (!p) throw notFound('Payment');
      if (OPEN_PAYMENT_STATUSES.includes(p.status) && p.providerSessionId) {
        try {
          p = await reconcileOne(p);
        } catch (err) {
          ctx.log.warn({ err, paymentId: p.id }, 'payment state not read from the provider');
        }
      }
      return {
        orderId: p.orderId,
        subjectType: p.subjectType,
        subjectId: p.subjectId,
        paymentId: p.id,
        status: p.status,
      };
    },

    /** Refunds the provider refused for good, newest first: administrators settle them by hand. */
    refundFailures: (ex: Executor = ctx.db) => repo.refundFailures(ex),
  };
}
