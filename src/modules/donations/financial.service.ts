import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { FinancialDonationStatus } from '../../db/schema/donations.js';
import type { AuthUser } from '../../http/access.js';
import type { TransactionalKey } from '../../http/idempotency.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { assertTransition, canTransition } from '../../shared/state-machine.js';
import type { AssociationsApi } from '../associations/index.js';
import { associationPayable } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { type LockedSubject, toPaymentView, type PaymentsApi } from '../payments/index.js';
import type { PayoutsApi } from '../payouts/index.js';
import { requireFeature, type SettingsApi } from '../settings/index.js';
import { FINANCIAL_DONATION_TRANSITIONS } from './donation-status.js';
import * as repo from './donations.repository.js';
import type { DonationRecord } from './donations.repository.js';
import type { CreateFinancialBody } from './donations.schemas.js';

/** Closes a financial donation still waiting for its payment at its deadline. */
export const PAYMENT_TIMEOUT_JOB = 'donations.payment-timeout';
export const DONATION_CURRENCY = 'XOF';

export interface FinancialDeps {
  associations: AssociationsApi;
  notifications: NotificationsApi;
  payments: PaymentsApi;
  payouts: PayoutsApi;
  settings: SettingsApi;
}

interface LockedDonation extends LockedSubject {
  donation: DonationRecord;
}

export type FinancialService = ReturnType<typeof createFinancialService>;

/**
 * Money given to an association: a donation paid through the provider as a payment subject
 * (`donation`). Its money goes provider_clearing -> association_payable:<id> (posted by the payments
 * module from `creditAccount`), then leaves by a payout to the association's number
 * (association_payable -> provider_clearing, posted when the provider confirms).
 */
export function createFinancialService(ctx: AppContext, deps: FinancialDeps) {
  const now = () => ctx.clock.now();
  const subjectOf = (id: string) => ({ type: 'donation' as const, id });

  // Payouts find an association's payout number and user through here.
  deps.payouts.setAssociationPayee(async (ex, associationId) => {
    const a = await deps.associations.findById(associationId, ex);
    return a && { userId: a.userId, payoutPhone: a.payoutPhone, name: a.name };
  });

  /** Moves a financial donation (locked by the caller) along its table, with its history row. */
  async function moveTo(
    tx: Executor,
    d: DonationRecord,
    to: FinancialDonationStatus,
    actorId: string | null,
    reason: string | null,
  ) {
    assertTransition(FINANCIAL_DONATION_TRANSITIONS, d.status as FinancialDonationStatus, to, 'Donation status');
    const at = now();
    const row = await repo.update(tx, d.id, {
      status: to,
      updatedAt: at,
      ...(to === 'PAID' && { paidAt: at }),
      ...(reason && { closingReason: reason }),
    });
    await repo.addHistory(tx, {
      id: uuidv7(at.getTime()),
      donationId: d.id,
      fromStatus: d.status,
      toStatus: to,
      actorId,
      reason,
      at,
    });
    return row;
  }

  deps.payments.registerSubject<LockedDonation>('donation', {
    async lock(tx, donationId) {
      const donation = await repo.find(tx, donationId, true);
      return donation && { payerUserId: donation.donorUserId, donation };
    },
    creditAccount: (_p, { donation }) => associationPayable(donation.associationId),
    async succeeded(tx, p, { donation }, { late }) {
      // Paid after the deadline, a refusal or a cancellation: the donor gets the money back.
      if (late || donation.status !== 'PENDING_PAYMENT') return 'refund';
      const paid = await moveTo(tx, donation, 'PAID', null, null);
      await deps.payouts.createForDonation(tx, {
        associationId: donation.associationId,
        donationId: donation.id,
        paymentId: p.id,
        amount: p.amount,
        currency: p.currency,
      });
      const association = await deps.associations.findById(donation.associationId, tx);
      const data = {
        donationId: donation.id,
        amount: p.amount,
        currency: p.currency,
        associationName: association?.name ?? null,
      };
      await deps.notifications.notify(tx, donation.donorUserId, 'donation_paid', data, {
        sourceKey: `donation:${donation.id}:paid`,
      });
      if (association) {
        await deps.notifications.notify(
          tx,
          association.userId,
          'donation_payment_received',
          { ...data, anonymous: paid.anonymous },
          { sourceKey: `donation:${donation.id}:received` },
        );
      }
      return 'applied';
    },
    async failed(tx, _p, { donation }, status) {
      // A refused attempt may be tried again on the same page until the deadline (as orders and
      // subscription charges are); a session the provider let expire cannot be paid any more.
      if (status === 'EXPIRED' && donation.status === 'PENDING_PAYMENT')
        await moveTo(tx, donation, 'EXPIRED', null, 'payment session expired');
    },
    async refunded(tx, p, { donation }) {
      await deps.notifications.notify(
        tx,
        donation.donorUserId,
        'donation_payment_refunded',
        { donationId: donation.id, amount: p.amount, currency: p.currency },
        { sourceKey: `payment:${p.id}:refunded` },
      );
    },
  });

  ctx.jobs.work(PAYMENT_TIMEOUT_JOB, async (job: { donationId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const d = await repo.find(tx, job.donationId, true);
      if (!d || d.status !== 'PENDING_PAYMENT') return;
      await moveTo(tx, d, 'EXPIRED', null, 'not paid in time');
      await deps.payments.closeForSubject(tx, subjectOf(d.id), 'EXPIRED');
    });
  });

  return {
    /** Any signed-in user gives money to a verified association; answers the donation and its payment. */
    async create(user: AuthUser, body: CreateFinancialBody, idempotency?: TransactionalKey) {
      // The same request, whose donation committed but whose answer was lost with its process: that donation.
      const made = idempotency?.madeBefore();
      if (made) {
        const payment = await deps.payments.latestOpened(subjectOf(made));
        return { donationId: made, payment: payment && toPaymentView(payment) };
      }
      if (!(await deps.payments.methods()).some((m) => m.method === body.paymentMethod)) {
        throw validationError(
          'body.paymentMethod',
          'is not offered at the moment (see GET /orders/payments/providers)',
        );
      }
      const { donation, payment } = await ctx.db.transaction(async (tx) => {
        const association = await deps.associations.requirePublic(body.associationId, tx).catch((err: unknown) => {
          if (err instanceof AppError && err.statusCode === 404)
            throw new AppError(404, 'NOT_FOUND', 'Association not found', [
              { field: 'body.associationId', message: 'no verified association with this id' },
            ]);
          throw err;
        });
        if (association.userId === user.id) throw conflict('OWN_ASSOCIATION', 'An association cannot give to itself');
        const at = now();
        const id = uuidv7(at.getTime());
        // The key commits with the donation (a concurrent request with it waits here, then is answered by the key).
        await idempotency?.claim(tx, id);
        // Checked once the key is claimed: a request made before the feature was switched off is answered
        // again from its key, not refused.
        await requireFeature(deps.settings, 'donationsEnabled', tx);
        const business = await deps.settings.get('business', tx);
        const { donation } = await repo.insert(
          tx,
          {
            id,
            kind: 'FINANCIAL',
            donorUserId: user.id,
            supplierId: null,
            associationId: association.id,
            status: 'PENDING_PAYMENT',
            amount: body.amount,
            currency: DONATION_CURRENCY,
            anonymous: body.anonymous ?? false,
            message: body.message ?? null,
            createdAt: at,
            updatedAt: at,
          },
          [],
        );
        await repo.addHistory(tx, {
          id: uuidv7(at.getTime()),
          donationId: donation.id,
          fromStatus: null,
          toStatus: 'PENDING_PAYMENT',
          actorId: user.id,
          reason: null,
          at,
        });
        const expiresAt = new Date(at.getTime() + business.paymentTimeoutMinutes * 60_000);
        const payment = await deps.payments.startFor(tx, {
          subject: subjectOf(donation.id),
          method: body.paymentMethod,
          amount: body.amount,
          currency: DONATION_CURRENCY,
          payerPhone: body.payerPhone ?? null,
          expiresAt,
        });
        await ctx.jobs.send(
          PAYMENT_TIMEOUT_JOB,
          { donationId: donation.id },
          { tx, startAfterSeconds: business.paymentTimeoutMinutes * 60 },
        );
        return { donation, payment };
      });
      const opened = await deps.payments.openAfterCommit(payment);
      return { donationId: donation.id, payment: toPaymentView(opened) };
    },

    /** The donor cancels a financial donation still waiting for its payment (its session is expired after commit). */
    async cancel(tx: Executor, d: DonationRecord, user: AuthUser, reason?: string) {
      if (d.donorUserId !== user.id) throw new AppError(403, 'FORBIDDEN', 'Only the donor may cancel a donation');
      if (!canTransition(FINANCIAL_DONATION_TRANSITIONS, d.status as FinancialDonationStatus, 'CANCELLED')) {
        throw conflict(
          'INVALID_TRANSITION',
          d.status === 'PAID'
            ? 'A paid donation cannot be cancelled'
            : `Donation status cannot change from ${d.status} to CANCELLED`,
        );
      }
      const row = await moveTo(tx, d, 'CANCELLED', user.id, reason ?? null);
      await deps.payments.closeForSubject(tx, subjectOf(d.id), 'CANCELLED');
      return row;
    },

    /** The latest payment of a financial donation, as its donor sees it. */
    async paymentOf(ex: Executor, donationId: string) {
      const list = await deps.payments.listOfSubject(ex, subjectOf(donationId));
      const latest = [...list].sort((a, b) => b.attempt - a.attempt)[0];
      return latest ? toPaymentView(latest) : null;
    },

    requireFinancial(d: DonationRecord | undefined): DonationRecord {
      if (!d || d.kind !== 'FINANCIAL') throw notFound('Donation');
      return d;
    },
  };
}
