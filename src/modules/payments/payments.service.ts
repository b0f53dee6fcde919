import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import {
  PAYMENT_METHODS,
  PaymentProviderError,
  type CheckoutSession,
  type CreateSessionInput,
  type PaymentMethod,
  type PaymentProvider,
} from '../../providers/payments/types.js';
import { uuidv7 } from '../../shared/ids.js';
import type { SettingsApi } from '../settings/index.js';
import { PaymentSubjects } from './payment-subjects.js';
import * as repo from './payments.repository.js';
import type { NewPayment, PaymentRecord, PaymentSubject } from './payments.repository.js';

/** Opens the provider session of a payment whose inline attempt failed (or never ran: a crash after commit). */
export const OPEN_SESSION_JOB = 'payments.open-session';
/** Closes the provider session of a payment whose order was cancelled or timed out. */
export const EXPIRE_SESSION_JOB = 'payments.expire-session';
// The inline attempt right after commit normally wins; the job is the safety net, run
// MOBILEMONEY_SESSION_RETRY_SECONDS after the order and tried with backoff (5 s doubling, 10 tries:
// beyond any payment deadline the settings allow).
const SESSION_JOB_RETRIES = { retryLimit: 10, retryDelaySeconds: 5 };
/** How long an order's answer waits for the provider's session before answering without it. */
const INLINE_SESSION_WAIT_MS = 3_000;

export interface PaymentsDeps {
  settings: SettingsApi;
  /** The payment provider in use (null while none is configured: sessions wait in the job). */
  provider: () => PaymentProvider | null;
  /** Where the provider sends the payer back, per payment. */
  returnUrls: (paymentId: string) => { successUrl: string; errorUrl: string };
}

/**
 * When a waiting payment has no page yet, ask again after this long: the call to the provider goes on
 * in the background after the answer (it gives up after 10 s) and the job retries from 5 s.
 */
export const PAGE_PENDING_RETRY_SECONDS = 5;

const KIND: Record<PaymentMethod, 'mobile_money' | 'card'> = {
  wave: 'mobile_money',
  orangeMoney: 'mobile_money',
  freeMoney: 'mobile_money',
  card: 'card',
};

export const toPaymentView = (p: PaymentRecord) => ({
  transactionId: p.id,
  method: p.method,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  attempt: p.attempt,
  redirectUrl: p.status === 'PENDING' ? p.launchUrl : null,
  retryAfterSeconds: p.status === 'PENDING' && !p.launchUrl ? PAGE_PENDING_RETRY_SECONDS : null,
  expiresAt: p.expiresAt.toISOString(),
  paidAt: p.paidAt?.toISOString() ?? null,
  failureReason: p.failureReason,
});
export type PaymentView = ReturnType<typeof toPaymentView>;

export type PaymentsService = ReturnType<typeof createPaymentsService>;

/** What `startFor` needs to open a payment of any subject. */
export interface PaymentStart {
  subject: PaymentSubject;
  method: PaymentMethod;
  amount: number;
  currency: string;
  payerPhone: string | null;
  expiresAt: Date;
  /** The subject was created in this transaction: this is attempt 1, without counting. */
  firstOfSubject?: boolean;
  /** The payment's id, when the caller needs it before (an Idempotency-Key claimed with it). */
  id?: string;
}

/**
 * Payments of orders and other subjects (subscription charges, ...): one row per attempt, inserted
 * in the subject's transaction. A remote provider's checkout session is opened after commit
 * (nothing leaves the process inside a transaction), with the payment id as idempotency key, so
 * the inline call and the job never open two; the sandbox, which lives in this database, opens it
 * in the transaction itself.
 */
export function createPaymentsService(ctx: AppContext, deps: PaymentsDeps) {
  const now = () => ctx.clock.now();
  const subjects = new PaymentSubjects();

  /** What the provider is asked to open for a payment (its id is the idempotency key: one session per payment). */
  const sessionInput = (
    p: Pick<PaymentRecord, 'id' | 'amount' | 'currency' | 'method' | 'payerPhone'>,
  ): CreateSessionInput => ({
    amount: p.amount,
    currency: p.currency,
    clientReference: p.id,
    method: p.method,
    ...deps.returnUrls(p.id),
    ...(p.payerPhone && { payerPhone: p.payerPhone }),
    idempotencyKey: p.id,
  });
  /** The payment's columns that record its session (it lasts no longer than the payment's own deadline). */
  const sessionColumns = (provider: PaymentProvider, session: CheckoutSession, expiresAt: Date) => ({
    provider: provider.name,
    providerSessionId: session.id,
    launchUrl: session.launchUrl,
    expiresAt: expiresAt < session.expiresAt ? expiresAt : session.expiresAt,
  });

  async function startFor(tx: Executor, o: PaymentStart): Promise<PaymentRecord> {
    const t = now();
    const id = o.id ?? uuidv7(t.getTime());
    const values: NewPayment = {
      id,
      subjectType: o.subject.type,
      subjectId: o.subject.id,
      orderId: o.subject.type === 'order' ? o.subject.id : null,
      attempt: o.firstOfSubject ? 1 : await repo.nextAttempt(tx, o.subject),
      method: o.method,
      amount: o.amount,
      currency: o.currency,
      payerPhone: o.payerPhone,
      provider: null,
      providerSessionId: null,
      launchUrl: null,
      createdAt: t,
      updatedAt: t,
      expiresAt: o.expiresAt,
    };
    // A provider inside this database opens its session in this transaction: the payment is
    // inserted with it, and neither the job nor the call after commit is needed.
    const provider = deps.provider();
    if (provider?.createSessionIn) {
      const session = await provider.createSessionIn(tx, sessionInput(values));
      return repo.insertPayment(tx, { ...values, ...sessionColumns(provider, session, o.expiresAt) });
    }
    const row = await repo.insertPayment(tx, values);
    await ctx.jobs.send(
      OPEN_SESSION_JOB,
      { paymentId: row.id },
      { tx, startAfterSeconds: ctx.config.MOBILEMONEY_SESSION_RETRY_SECONDS },
    );
    return row;
  }

  async function closeForSubject(
    tx: Executor,
    subject: PaymentSubject,
    status: 'CANCELLED' | 'EXPIRED',
  ): Promise<void> {
    for (const p of await repo.closePending(tx, subject, status, now())) {
      if (p.providerSessionId) await ctx.jobs.send(EXPIRE_SESSION_JOB, { paymentId: p.id }, { tx });
      // An attempt that expired with its subject's deadline is a failed payment, as one the provider let expire.
      if (status === 'EXPIRED') {
        await ctx.events.publish(tx, 'payments.failed', {
          paymentId: p.id,
          subjectType: subject.type,
          subjectId: subject.id,
          orderId: subject.type === 'order' ? subject.id : null,
          status,
          reason: 'the payment deadline passed',
        });
      }
    }
    // A refused attempt's page stays open at the provider (the payer may try again there): close it
    // too, so nobody pays a subject that stopped waiting (money taken anyway is refunded).
    for (const p of await repo.failedWithSession(tx, subject))
      await ctx.jobs.send(EXPIRE_SESSION_JOB, { paymentId: p.id }, { tx });
  }

  /** Calls the provider for a PENDING payment without a session; answers the row with its session. */
  async function open(paymentId: string, known?: PaymentRecord): Promise<PaymentRecord | undefined> {
    // The row just committed needs no second read; if it changed meanwhile, setSession finds out.
    const p = known ?? (await repo.findPayment(ctx.db, paymentId));
    if (!p || p.status !== 'PENDING' || p.providerSessionId) return p;
    const provider = deps.provider();
    if (!provider) throw new PaymentProviderError('no payment provider is configured', true);
    const session = await provider.createSession(sessionInput(p));
    const saved = await repo.setSession(ctx.db, p.id, sessionColumns(provider, session, p.expiresAt), now());
    if (saved) return saved;
    // The order was cancelled while the session was being opened: nobody may pay it.
    const current = await repo.findPayment(ctx.db, p.id);
    if (current && current.status !== 'PENDING' && current.providerSessionId === null)
      await provider.expireSession(session.id);
    return current;
  }

  ctx.jobs.work(
    OPEN_SESSION_JOB,
    async (job: { paymentId: string }) => {
      try {
        await open(job.paymentId);
      } catch (err) {
        if (err instanceof PaymentProviderError && !err.retryable) {
          // Refused for good (bad amount, method not offered): the attempt failed; the client may retry.
          await repo.transition(
            ctx.db,
            job.paymentId,
            'PENDING',
            { status: 'FAILED', failureReason: err.message.slice(0, 500) },
            now(),
          );
          return;
        }
        throw err;
      }
    },
    SESSION_JOB_RETRIES,
  );

  ctx.jobs.work(
    EXPIRE_SESSION_JOB,
    async (job: { paymentId: string }) => {
      const p = await repo.findPayment(ctx.db, job.paymentId);
      if (!p?.providerSessionId) return;
      const provider = deps.provider();
      if (!provider) throw new PaymentProviderError('no payment provider is configured', true);
      // Expiring a session already expired or complete is not an error: safe to run twice.
      await provider.expireSession(p.providerSessionId);
    },
    SESSION_JOB_RETRIES,
  );

  return {
    /**
     * Declares what a subject type's payments do when they succeed, fail or come late (see
     * payment-subjects.ts). Each module owning a payable subject calls it once, at start.
     */
    registerSubject: subjects.register.bind(subjects),
    /** The handler of a subject type (for the settlement code). */
    subjectHandler: subjects.get.bind(subjects),

    /**
     * Inserts the next payment attempt of a subject inside its transaction, with the job that
     * opens its provider session should the inline attempt after commit (`openAfterCommit`) not succeed.
     */
    startFor,

    /** `startFor` an order. */
    start: (
      tx: Executor,
      o: {
        orderId: string;
        method: PaymentMethod;
        amount: number;
        currency: string;
        payerPhone: string | null;
        expiresAt: Date;
        firstOfOrder?: boolean;
        id?: string;
      },
    ) =>
      startFor(tx, {
        subject: { type: 'order', id: o.orderId },
        method: o.method,
        amount: o.amount,
        currency: o.currency,
        payerPhone: o.payerPhone,
        expiresAt: o.expiresAt,
        firstOfSubject: o.firstOfOrder,
        id: o.id,
      }),

    /**
     * The inline attempt, after the order committed: the row with its session, or as it was when
     * the provider could not be reached (the job tries again).
     */
    async openAfterCommit(payment: PaymentRecord): Promise<PaymentRecord> {
      const attempt = open(payment.id, payment).then(
        (row) => row ?? payment,
        (err: unknown) => {
          ctx.log.warn({ err, paymentId: payment.id }, 'payment session not opened; the job will retry');
          return payment;
        },
      );
      // A slow provider does not hold the client: past the wait the call goes on in the background
      // (its session is stored if it succeeds) and the answer says the page is being prepared.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<PaymentRecord>((resolve) => {
        timer = setTimeout(() => resolve(payment), INLINE_SESSION_WAIT_MS);
        timer.unref();
      });
      try {
        return await Promise.race([attempt, waited]);
      } finally {
        clearTimeout(timer);
      }
    },

    /**
     * The subject's latest attempt with its session, opened now if still missing: the answer of a request
     * given again after its process died (see `madeBefore` in src/http/idempotency.ts).
     */
    async latestOpened(subject: PaymentSubject): Promise<PaymentRecord | undefined> {
      const [latest] = await repo.listOfSubject(ctx.db, subject);
      return latest && this.openAfterCommit(latest);
    },

    /** Closes a payment's provider session by a job after commit (a session already closed is no error). */
    expireSession: async (tx: Executor, paymentId: string): Promise<void> => {
      await ctx.jobs.send(EXPIRE_SESSION_JOB, { paymentId }, { tx });
    },

    /** Closes the subject's waiting payment; its provider session, if any, is expired by a job after commit. */
    closeForSubject,
    /** `closeForSubject` an order. */
    closeForOrder: (tx: Executor, orderId: string, status: 'CANCELLED' | 'EXPIRED') =>
      closeForSubject(tx, { type: 'order', id: orderId }, status),

    /** For the webhook: a PENDING payment succeeded. Undefined when it was not PENDING (a repeated delivery). */
    recordSucceeded: (tx: Executor, paymentId: string, d: { providerTransactionId: string | null; paidAt: Date }) =>
      repo.transition(
        tx,
        paymentId,
        'PENDING',
        { status: 'SUCCEEDED', providerTransactionId: d.providerTransactionId, paidAt: d.paidAt },
        now(),
      ),

    find: (ex: Executor, paymentId: string) => repo.findPayment(ex, paymentId),
    listOfOrder: (ex: Executor, orderId: string) => repo.listOfOrder(ex, orderId),
    listOfSubject: (ex: Executor, subject: PaymentSubject) => repo.listOfSubject(ex, subject),
    latestOfOrders: (ex: Executor, orderIds: readonly string[]) => repo.latestOfOrders(ex, orderIds),
    latestOfSubjects: (ex: Executor, type: PaymentSubject['type'], ids: readonly string[]) =>
      repo.latestOfSubjects(ex, type, ids),

    /** The methods offered to clients now (the `mobilemoney` settings), in a fixed order. */
    async methods() {
      const s = await deps.settings.get('mobilemoney');
      return PAYMENT_METHODS.filter((m) => s[m].enabled).map((m) => ({
        method: m,
        displayName: s[m].displayName,
        kind: KIND[m],
        feeBps: s[m].feeBps,
      }));
    },
  };
}
