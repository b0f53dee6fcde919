import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { PaymentMethod } from '../../shared/payment-methods.js';
import { commissionOf } from '../../shared/money.js';
import { bookingEscrow, platformCommission, supplierPayable, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { LockedSubject, PaymentRecord, PaymentsApi } from '../payments/index.js';
import type { PayoutsApi } from '../payouts/index.js';
import * as repo from './deals.repository.js';
import type { BookingRecord } from './deals.repository.js';

/** Frees the places of a booking paid in the app whose payment has not come by its deadline. */
export const PAYMENT_TIMEOUT_JOB = 'deals.booking-payment-timeout';

export interface BookingPaymentsDeps {
  ledger: LedgerApi;
  payments: PaymentsApi;
  payouts: PayoutsApi;
  notifications: NotificationsApi;
  /** A booking now confirmed: the bookings service's no-show timer and notices. */
  confirmed: (tx: Executor, b: BookingRecord) => Promise<void>;
}

interface LockedBooking extends LockedSubject {
  booking: BookingRecord;
}

export type BookingPayments = ReturnType<typeof createBookingPayments>;

/**
 * The money of bookings paid in the app, a payment subject (`booking`): the payment received into
 * the booking's escrow account (booking_escrow:<id>, posted by the payments module), released to the
 * shop less the commission frozen at booking (its payout follows), or refunded through the provider.
 * The booking row is locked first on every path (webhook, cancellation, deadline, counter), then the
 * payment: a cancellation and a payment of one booking wait for each other and end consistent.
 */
export function createBookingPayments(ctx: AppContext, deps: BookingPaymentsDeps) {
  const now = () => ctx.clock.now();
  const subjectOf = (id: string) => ({ type: 'booking' as const, id });

  /** The booking's first (and only) attempt, in its transaction, with the job freeing its places at the deadline. */
  async function start(
    tx: Executor,
    b: BookingRecord,
    o: { method: PaymentMethod; payerPhone: string | null },
  ): Promise<PaymentRecord> {
    const deadline = b.paymentDeadline!;
    const payment = await deps.payments.startFor(tx, {
      subject: subjectOf(b.id),
      method: o.method,
      amount: b.totalPrice,
      currency: b.currency,
      payerPhone: o.payerPhone,
      expiresAt: deadline,
      firstOfSubject: true,
    });
    const seconds = Math.max(1, Math.ceil((deadline.getTime() - now().getTime()) / 1000));
    await ctx.jobs.send(PAYMENT_TIMEOUT_JOB, { bookingId: b.id }, { tx, startAfterSeconds: seconds });
    return payment;
  }

  /**
   * A booking waiting for its payment stops waiting: EXPIRED (its deadline, or its payment page
   * expired) or CANCELLED (by its client). Its places come back and its attempt is closed (money
   * taken anyway comes back as a late payment, refunded). Undefined when it no longer waited.
   */
  async function stopWaiting(tx: Executor, b: BookingRecord, to: 'EXPIRED' | 'CANCELLED') {
    const t = now();
    const row = await repo.moveBooking(tx, b.id, 'PENDING_PAYMENT', to, {
      updatedAt: t,
      ...(to === 'CANCELLED' && { cancelledAt: t }),
    });
    if (!row) return undefined;
    await repo.releasePlaces(tx, b.dealId, b.quantity);
    await deps.payments.closeForSubject(tx, subjectOf(b.id), to);
    if (to === 'EXPIRED')
      await deps.notifications.notify(
        tx,
        b.clientId,
        'deal_booking_expired',
        { bookingId: b.id, dealId: b.dealId },
        { sourceKey: `booking:${b.id}:expired` },
      );
    return row;
  }

  /**
   * The held money goes to the shop: booking_escrow -> supplier_payable (net) and platform_commission
   * (the rate frozen at booking, half up), then the payout of the net. Nothing when it is no longer held.
   */
  async function release(tx: Executor, b: BookingRecord): Promise<void> {
    const t = now();
    if (!(await repo.moveBookingMoney(tx, b.id, 'PAID', 'RELEASED', { releasedAt: t, updatedAt: t }))) return;
    const commission = commissionOf(b.totalPrice, b.commissionBps!);
    const net = b.totalPrice - commission;
    // A zero part is left out: the ledger refuses zero lines.
    const lines = [{ account: bookingEscrow(b.id), amount: b.totalPrice }];
    if (net > 0) lines.push({ account: supplierPayable(b.supplierId), amount: -net });
    if (commission > 0) lines.push({ account: platformCommission, amount: -commission });
    const { transactionId } = await deps.ledger.post(tx, {
      kind: 'escrow_released',
      reference: { type: 'booking', id: b.id },
      idempotencyKey: `booking:${b.id}:release`,
      currency: b.currency,
      memo: `commission ${b.commissionBps} bps`,
      lines,
    });
    await deps.payouts.createForRelease(tx, {
      supplierId: b.supplierId,
      bookingId: b.id,
      releaseTransactionId: transactionId,
      amount: net,
      currency: b.currency,
    });
  }

  /** The held money goes back to the client: booking_escrow -> refunds_pending, then the provider job. */
  async function refund(tx: Executor, b: BookingRecord, reason: string): Promise<void> {
    if (!(await repo.moveBookingMoney(tx, b.id, 'PAID', 'REFUND_PENDING', { updatedAt: now() }))) return;
    const p = (await deps.payments.find(tx, b.paymentId!))!;
    await deps.payments.settlement.refundPayment(tx, p, bookingEscrow(b.id), reason);
  }

  deps.payments.registerSubject<LockedBooking>('booking', {
    async lock(tx, bookingId) {
      const booking = await repo.findBooking(tx, bookingId, { lock: true });
      return booking && { payerUserId: booking.clientId, booking };
    },
    creditAccount: (_p, { booking }) => bookingEscrow(booking.id),
    async succeeded(tx, p, { booking: b }, { late }) {
      const waiting = b.status === 'PENDING_PAYMENT' && b.paymentStatus === 'UNPAID';
      const t = now();
      if (late || !waiting || b.paymentDeadline! <= t) {
        // Past its deadline the places are no longer promised (the deadline job may not have run yet).
        if (waiting) await stopWaiting(tx, b, 'EXPIRED');
        return 'refund';
      }
      await repo.moveBookingMoney(tx, b.id, 'UNPAID', 'PAID', { paymentId: p.id, paidAt: t, updatedAt: t });
      const confirmed = (await repo.moveBooking(tx, b.id, 'PENDING_PAYMENT', 'CONFIRMED', { updatedAt: t }))!;
      await deps.confirmed(tx, confirmed);
      return 'applied';
    },
    async failed(tx, _p, { booking }, status) {
      // A refused attempt may be paid again on the same page until the deadline; an expired page cannot.
      if (status === 'EXPIRED' && booking.status === 'PENDING_PAYMENT') await stopWaiting(tx, booking, 'EXPIRED');
    },
    async refunded(tx, p, { booking }) {
      const t = p.refundedAt ?? now();
      if (booking.paymentId === p.id)
        await repo.moveBookingMoney(tx, booking.id, 'REFUND_PENDING', 'REFUNDED', { refundedAt: t, updatedAt: t });
      await deps.notifications.notify(
        tx,
        booking.clientId,
        'deal_booking_refunded',
        { bookingId: booking.id, amount: p.amount, currency: p.currency },
        { sourceKey: `payment:${p.id}:refunded` },
      );
    },
  });

  ctx.jobs.work(PAYMENT_TIMEOUT_JOB, async (job: { bookingId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const b = await repo.findBooking(tx, job.bookingId, { lock: true });
      // Paid in time, cancelled, or already expired: nothing to do (the job may also run twice).
      if (b?.status === 'PENDING_PAYMENT') await stopWaiting(tx, b, 'EXPIRED');
    });
  });

  return {
    start,
    stopWaiting,
    release,
    refund,
    /** Holds whose deadline passed and whose job was lost: freed (the bookings' sweep calls it). */
    async sweep(): Promise<void> {
      for (const b of await repo.unpaidPastDeadline(ctx.db, now())) {
        await ctx.db.transaction(async (tx) => {
          const locked = await repo.findBooking(tx, b.id, { lock: true });
          if (locked?.status === 'PENDING_PAYMENT') await stopWaiting(tx, locked, 'EXPIRED');
        });
      }
    },
    /** The latest attempt of each booking (a page of the client's bookings). */
    latestOf: (ex: Executor, ids: readonly string[]) => deps.payments.latestOfSubjects(ex, 'booking', ids),
  };
}
