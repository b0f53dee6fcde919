import type { AppContext } from '../../context.js';
import { together, type Executor } from '../../db/client.js';
import { PaymentProviderError, type Payout } from '../../providers/payments/types.js';
import { uuidv7 } from '../../shared/ids.js';
import { associationPayable, providerClearing, supplierPayable, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import * as repo from './payouts.repository.js';
import type { PayoutRecord } from './payouts.repository.js';

/** Sends a payout to the provider (after the release commits, and again after each new payout number). */
export const SEND_PAYOUT_JOB = 'payouts.send';
/** Asks the provider about a payout it answered `processing`, until it settles (the webhook may be faster). */
export const CHECK_PAYOUT_JOB = 'payouts.check';
/** Why a PENDING payout waits. */
export const NO_PAYOUT_PHONE = 'NO_PAYOUT_PHONE';
// Outages are retried with backoff (10 s doubling, 8 tries: about 40 minutes); then the payout is FAILED
// and waits for an administrator or a new payout number. A processing payout is checked for about a day.
export const SEND_RETRIES = { retryLimit: 8, retryDelaySeconds: 10 };
const CHECK_RETRIES = { retryLimit: 10, retryDelaySeconds: 60 };
const CHECK_DELAY_S = 60;

export interface PayoutsDeps {
  ledger: LedgerApi;
  suppliers: SuppliersApi;
  notifications: NotificationsApi;
}

export type PayoutOutcome = 'applied' | 'ignored' | 'unknown_payout';

/** The provider's idempotency key of a payout's current try: derived from the release it pays. */
export const payoutKey = (p: PayoutRecord) => `payout:${p.releaseTransactionId}:${p.generation}`;

/** The view of an order's payout (a supplier's; an association's payout has no order). */
export const toPayoutView = (p: PayoutRecord) => ({
  id: p.id,
  supplierId: p.supplierId!,
  orderId: p.orderId!,
  amount: p.amount,
  currency: p.currency,
  mobile: p.mobile,
  state: p.state,
  waitingReason: p.waitingReason,
  providerPayoutId: p.providerPayoutId,
  attempts: p.attempts,
  lastError: p.lastError,
  releaseTransactionId: p.releaseTransactionId,
  createdAt: p.createdAt.toISOString(),
  sentAt: p.sentAt?.toISOString() ?? null,
  succeededAt: p.succeededAt?.toISOString() ?? null,
  failedAt: p.failedAt?.toISOString() ?? null,
});

export type PayoutsService = ReturnType<typeof createPayoutsService>;

/** Who a payout pays: the user told, the wallet number (null: it waits for one), the name sent with it. */
export interface Payee {
  userId: string;
  payoutPhone: string | null;
  name: string;
}
/** Finds an association payee (declared by the module that owns associations' money: donations). */
export type AssociationPayeeLookup = (ex: Executor, associationId: string) => Promise<Payee | undefined>;

export function createPayoutsService(ctx: AppContext, deps: PayoutsDeps) {
  const now = () => ctx.clock.now();
  const provider = () => ctx.payments;
  let associationPayee: AssociationPayeeLookup | undefined;

  /** A payout pays a supplier (an order's release) or an association (a financial donation). */
  async function payeeOf(ex: Executor, p: PayoutRecord): Promise<Payee | undefined> {
    if (p.associationId) return associationPayee?.(ex, p.associationId);
    const s = await deps.suppliers.findProfile(p.supplierId!, ex);
    return s && { userId: s.userId, payoutPhone: s.payoutPhone, name: s.businessName };
  }
  const payableOf = (p: PayoutRecord) =>
    p.associationId ? associationPayable(p.associationId) : supplierPayable(p.supplierId!);

  async function tellSupplier(
    tx: Executor,
    p: PayoutRecord,
    type: 'payout_sent' | 'payout_failed' | 'payout_waiting_for_number',
    extra: Record<string, unknown> = {},
  ) {
    const payee = await payeeOf(tx, p);
    if (!payee) return;
    const data = {
      payoutId: p.id,
      ...(p.donationId
        ? { donationId: p.donationId }
        : p.bookingId
          ? { bookingId: p.bookingId }
          : { orderId: p.orderId }),
      amount: p.amount,
      currency: p.currency,
      mobile: p.mobile,
      ...extra,
    };
    await deps.notifications.notify(tx, payee.userId, type, data, {
      sourceKey: `payout:${p.id}:${p.generation}:${type}`,
    });
  }

  async function failForGood(tx: Executor, p: PayoutRecord, error: string, providerPayoutId?: string) {
    const t = now();
    const row = await repo.movePayout(tx, p.id, ['PROCESSING'], {
      state: 'FAILED',
      lastError: error.slice(0, 500),
      failedAt: t,
      updatedAt: t,
      ...(providerPayoutId && { providerPayoutId }),
    });
    if (row) await tellSupplier(tx, row, 'payout_failed', { error: row.lastError });
    return row;
  }

  /** Applies what the provider says of a payout (its answer, a check, or a webhook) inside `tx`. */
  async function apply(tx: Executor, payoutId: string, result: Payout): Promise<PayoutOutcome> {
    const p = await repo.findPayout(tx, payoutId, { lock: true });
    if (!p) return 'unknown_payout';
    // An answer about an earlier try (before a new number) or another payout changes nothing.
    if (p.providerPayoutId && p.providerPayoutId !== result.id) return 'ignored';
    const t = now();
    if (result.status === 'succeeded') {
      // A payout failed after an outage may still have left: the provider's word wins.
      const row = await repo.movePayout(tx, p.id, ['PROCESSING', 'FAILED'], {
        state: 'SUCCEEDED',
        providerPayoutId: result.id,
        succeededAt: t,
        updatedAt: t,
        waitingReason: null,
      });
      if (!row) return 'ignored';
      await deps.ledger.post(tx, {
        kind: 'payout_sent',
        reference: { type: 'payout', id: p.id },
        idempotencyKey: `payout:${p.id}:paid`,
        currency: p.currency,
        lines: [
          { account: payableOf(p), amount: p.amount },
          { account: providerClearing, amount: -p.amount },
        ],
      });
      await tellSupplier(tx, row, 'payout_sent');
      return 'applied';
    }
    if (result.status === 'failed') {
      const why = result.error ? `${result.error.code}: ${result.error.message}` : 'refused by the provider';
      return (await failForGood(tx, p, why, result.id)) ? 'applied' : 'ignored';
    }
    if (p.state !== 'PROCESSING' || p.providerPayoutId) return 'ignored';
    await repo.movePayout(tx, p.id, ['PROCESSING'], { providerPayoutId: result.id, updatedAt: t });
    await ctx.jobs.send(CHECK_PAYOUT_JOB, { payoutId: p.id }, { tx, startAfterSeconds: CHECK_DELAY_S });
    return 'applied';
  }

  /** Takes a payout for sending: PROCESSING to the supplier's number, or waiting (PENDING) without one. */
  async function claim(payoutId: string) {
    return ctx.db.transaction(async (tx) => {
      const p = await repo.findPayout(tx, payoutId, { lock: true });
      // Sent and answered already (the check job follows it), settled, or failed: nothing to send.
      if (!p || p.providerPayoutId || (p.state !== 'PENDING' && p.state !== 'PROCESSING')) return null;
      const payee = await payeeOf(tx, p);
      if (!payee?.payoutPhone && p.state === 'PENDING') {
        if (p.waitingReason !== NO_PAYOUT_PHONE) {
          const row = await repo.movePayout(tx, p.id, ['PENDING'], {
            waitingReason: NO_PAYOUT_PHONE,
            updatedAt: now(),
          });
          if (row) await tellSupplier(tx, row, 'payout_waiting_for_number');
        }
        return null;
      }
      // A retried send keeps the number of its first try: the same key must carry the same request.
      const mobile = p.state === 'PROCESSING' && p.mobile ? p.mobile : payee!.payoutPhone!;
      const t = now();
      const row = await repo.movePayout(tx, p.id, ['PENDING', 'PROCESSING'], {
        state: 'PROCESSING',
        mobile,
        waitingReason: null,
        attempts: p.attempts + 1,
        sentAt: t,
        updatedAt: t,
      });
      return row ? { payout: row, name: payee?.name ?? 'Payee' } : null;
    });
  }

  ctx.jobs.work(
    SEND_PAYOUT_JOB,
    async (job: { payoutId: string }, info) => {
      const claimed = await claim(job.payoutId);
      if (!claimed) return;
      const p = claimed.payout;
      let result: Payout;
      try {
        result = await provider().createPayout({
          amount: p.amount,
          currency: p.currency,
          mobile: p.mobile!,
          name: claimed.name,
          clientReference: p.id,
          idempotencyKey: payoutKey(p),
        });
      } catch (err) {
        const retryable = !(err instanceof PaymentProviderError) || err.retryable;
        const message = err instanceof Error ? err.message : String(err);
        await ctx.db.transaction(async (tx) => {
          if (retryable && info.retryCount < SEND_RETRIES.retryLimit) {
            await repo.movePayout(tx, p.id, ['PROCESSING'], { lastError: message.slice(0, 500), updatedAt: now() });
          } else await failForGood(tx, p, retryable ? `provider unreachable: ${message}` : message);
        });
        if (retryable && info.retryCount < SEND_RETRIES.retryLimit) throw err;
        return;
      }
      await ctx.db.transaction((tx) => apply(tx, p.id, result));
    },
    SEND_RETRIES,
  );

  ctx.jobs.work(
    CHECK_PAYOUT_JOB,
    async (job: { payoutId: string }) => {
      const p = await repo.findPayout(ctx.db, job.payoutId);
      if (!p || p.state !== 'PROCESSING' || !p.providerPayoutId) return;
      const result = await provider().getPayout(p.providerPayoutId);
      if (result.status === 'processing') throw new Error(`payout ${p.id} still processing at the provider`);
      await ctx.db.transaction((tx) => apply(tx, p.id, result));
    },
    CHECK_RETRIES,
  );

  // A new payout number sends again what waited for a number or was refused for the old one.
  async function retry(find: (tx: Executor) => Promise<PayoutRecord[]>) {
    await ctx.db.transaction(async (tx) => {
      for (const p of await find(tx)) {
        const t = now();
        const patch =
          p.state === 'FAILED'
            ? {
                state: 'PENDING' as const,
                generation: p.generation + 1,
                providerPayoutId: null,
                failedAt: null,
                waitingReason: null,
                updatedAt: t,
              }
            : { waitingReason: null, updatedAt: t };
        if (await repo.movePayout(tx, p.id, [p.state], patch))
          await ctx.jobs.send(SEND_PAYOUT_JOB, { payoutId: p.id }, { tx });
      }
    });
  }
  ctx.events.subscribe('suppliers.payout_phone_changed', 'payouts_retry', ({ supplierId }) =>
    retry((tx) => repo.retryableOfSupplier(tx, supplierId)),
  );
  ctx.events.subscribe('associations.payout_phone_changed', 'payouts_retry', ({ associationId }) =>
    retry((tx) => repo.retryableOfAssociation(tx, associationId)),
  );

  // Money owed to a supplier (a payout not paid yet, or a payable balance) blocks deleting it.
  ctx.workInProgress.register(async (ex, scope) => {
    if (!('supplierId' in scope)) return null;
    const [n, payable] = await together(ex, [
      () => repo.unpaidCount(ex, scope.supplierId),
      () => deps.ledger.balance(ex, supplierPayable(scope.supplierId)),
    ]);
    if (n) return `${n} payout${n > 1 ? 's' : ''} not paid yet`;
    return payable < 0 ? `${-payable} owed to the supplier` : null;
  });

  return {
    /**
     * Creates the payout of a release inside its transaction, with the job that sends it after
     * commit. The same release again answers the existing payout.
     */
    /** The payout of a released escrow: an order's (`orderId`) or a booking's paid in the app (`bookingId`). */
    async createForRelease(
      tx: Executor,
      r: { supplierId: string; releaseTransactionId: string; amount: number; currency: string } & (
        | { orderId: string }
        | { bookingId: string }
      ),
    ): Promise<PayoutRecord | undefined> {
      if (r.amount <= 0) return undefined; // a 100 % commission leaves nothing to pay out
      const t = now();
      const row = await repo.insertPayout(tx, { id: uuidv7(t.getTime()), ...r, createdAt: t, updatedAt: t });
      if (row) await ctx.jobs.send(SEND_PAYOUT_JOB, { payoutId: row.id }, { tx });
      return row;
    },
    /** Declares how an association payee is found (its payout number, its user). */
    setAssociationPayee(lookup: AssociationPayeeLookup) {
      associationPayee = lookup;
    },
    /**
     * Creates the payout of a financial donation's succeeded payment inside its transaction (the money
     * is in association_payable), with the job that sends it after commit; the same payment again
     * answers nothing.
     */
    async createForDonation(
      tx: Executor,
      d: { associationId: string; donationId: string; paymentId: string; amount: number; currency: string },
    ): Promise<PayoutRecord | undefined> {
      const t = now();
      const row = await repo.insertPayout(tx, {
        id: uuidv7(t.getTime()),
        associationId: d.associationId,
        donationId: d.donationId,
        releaseTransactionId: d.paymentId,
        amount: d.amount,
        currency: d.currency,
        createdAt: t,
        updatedAt: t,
      });
      if (row) await ctx.jobs.send(SEND_PAYOUT_JOB, { payoutId: row.id }, { tx });
      return row;
    },
    ofDonations: (ex: Executor, donationIds: readonly string[]) => repo.payoutsOfDonations(ex, donationIds),
    /** The payout event of the provider's webhook (`payout.completed` / `payout.failed`), in its transaction. */
    async applyProviderPayout(tx: Executor, payout: Payout): Promise<PayoutOutcome> {
      const p =
        (await repo.findByProviderId(tx, payout.id)) ??
        (/^[0-9a-f-]{36}$/i.test(payout.clientReference)
          ? await repo.findPayout(tx, payout.clientReference)
          : undefined);
      return p ? apply(tx, p.id, payout) : 'unknown_payout';
    },
    ofOrders: (ex: Executor, orderIds: readonly string[]) => repo.payoutsOfOrders(ex, orderIds),
  };
}
