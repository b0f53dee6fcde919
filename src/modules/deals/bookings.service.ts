import { createHmac } from 'node:crypto';
import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { dealBookings } from '../../db/schema/deals.js';
import type { AuthUser } from '../../http/access.js';
import type { TransactionalKey } from '../../http/idempotency.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { localParts } from '../../shared/opening-hours.js';
import { normalizePhone } from '../../shared/phone.js';
import { pageMeta } from '../../shared/schemas.js';
import type { LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { zonedInstant, newPickupCode, PickupTokens } from '../orders/index.js';
import { toPaymentView, type PaymentRecord, type PaymentsApi } from '../payments/index.js';
import type { PayoutsApi } from '../payouts/index.js';
import type { Settings, SettingsApi } from '../settings/index.js';
import type { StaffApi } from '../staff/index.js';
import type { StoresApi } from '../stores/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { createBookingCounter } from './booking-counter.js';
import { createBookingPayments } from './booking-payments.js';
import * as repo from './deals.repository.js';
import type { BookingRecord, DealRecord } from './deals.repository.js';
import type { BookBody, BookingView, MyBookingsQuery, StoreBookingsQuery } from './deals.schemas.js';
import { toBookingView } from './deals.views.js';

/** Marks a booking NO_SHOW once its pickup window ended unused (sent at booking, due at the window's end). */
export const NO_SHOW_JOB = 'deals.booking-no-show';
/** Catches what the per-booking job missed (a job lost with its queue): every 10 minutes. */
export const NO_SHOW_SWEEP_JOB = 'deals.no-show-sweep';

export interface BookingsDeps {
  settings: SettingsApi;
  stores: StoresApi;
  members: StaffApi['members'];
  suppliers: SuppliersApi;
  notifications: NotificationsApi;
  ledger: LedgerApi;
  payments: PaymentsApi;
  payouts: PayoutsApi;
}

const DAY_MS = 86_400_000;
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
export type BookingsService = ReturnType<typeof createBookingsService>;

export function createBookingsService(ctx: AppContext, deps: BookingsDeps) {
  const now = () => ctx.clock.now();
  // Their own key: an order's QR token is not a booking's, nor the reverse.
  const tokens = new PickupTokens(
    createHmac('sha256', ctx.config.JWT_ACCESS_SECRET).update('deal-booking-codes').digest('hex'),
  );

  /**
   * The client's own view: with the token its QR code carries, so an app can draw it offline, and
   * for a booking paid in the app its latest payment attempt.
   */
  const forClient = (v: BookingView, payment?: PaymentRecord): BookingView => ({
    ...v,
    qrToken: tokens.sign(v.id, v.code),
    ...(v.paymentMode === 'IN_APP' && { payment: payment ? toPaymentView(payment) : null }),
  });

  const supplierUser = async (ex: Executor, supplierId: string) =>
    (await deps.suppliers.findProfile(supplierId, ex))?.userId;

  /** The client and the shop hear of a booking to be collected (at booking, or once paid in the app). */
  async function announce(tx: Executor, b: BookingRecord, names?: { dealTitle: string; storeName: string }) {
    const named = names ?? (await repo.bookingRowOf(tx, b.id))!;
    const data = {
      bookingId: b.id,
      dealId: b.dealId,
      dealTitle: named.dealTitle,
      storeName: named.storeName,
      quantity: b.quantity,
      pickupStartsAt: b.pickupStartsAt.toISOString(),
      paid: b.paymentMode === 'IN_APP',
    };
    await deps.notifications.notify(tx, b.clientId, 'deal_booked', data, { sourceKey: `booking:${b.id}:booked` });
    const owner = await supplierUser(tx, b.supplierId);
    if (owner)
      await deps.notifications.notify(tx, owner, 'deal_booking_received', data, {
        sourceKey: `booking:${b.id}:received`,
      });
  }

  /** A booking to be collected (at booking, or once paid in the app): its no-show timer, and both sides told. */
  async function confirmed(tx: Executor, b: BookingRecord, names?: { dealTitle: string; storeName: string }) {
    const seconds = Math.ceil((b.pickupEndsAt.getTime() - now().getTime()) / 1000);
    await ctx.jobs.send(NO_SHOW_JOB, { bookingId: b.id }, { tx, startAfterSeconds: Math.max(1, seconds) });
    await announce(tx, b, names);
  }

  const money = createBookingPayments(ctx, { ...deps, confirmed: (tx, b) => confirmed(tx, b) });

  /**
   * The window ended unused: NO_SHOW (its places are not given back: the day is over). Money paid in
   * the app follows `business.noShowRefunded`: back to the client, or to the shop less the commission.
   */
  async function noShow(tx: Executor, b: BookingRecord): Promise<void> {
    if (b.status !== 'CONFIRMED' || b.pickupEndsAt > now()) return;
    const row = await repo.moveBooking(tx, b.id, 'CONFIRMED', 'NO_SHOW', { updatedAt: now() });
    if (!row) return;
    let refunded: boolean | undefined;
    if (row.paymentStatus === 'PAID') {
      refunded = (await deps.settings.get('business', tx)).noShowRefunded;
      if (refunded) await money.refund(tx, row, 'NO_SHOW: refunded by the platform rule');
      else await money.release(tx, row);
    }
    await deps.notifications.notify(
      tx,
      b.clientId,
      'deal_booking_no_show',
      { bookingId: b.id, ...(refunded !== undefined && { paid: true, refunded }) },
      { sourceKey: `booking:${b.id}:no_show` },
    );
  }
  ctx.jobs.work(NO_SHOW_JOB, async (job: { bookingId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const b = await repo.findBooking(tx, job.bookingId, { lock: true });
      if (b) await noShow(tx, b);
    });
  });
  ctx.jobs.work(NO_SHOW_SWEEP_JOB, async () => {
    await money.sweep();
    for (const b of await repo.overdueBookings(ctx.db, now())) await ctx.db.transaction((tx) => noShow(tx, b));
  });
  ctx.jobs.schedule(NO_SHOW_SWEEP_JOB, '*/10 * * * *');

  /** The pickup day and its window's instants, within the deal's validity and not over yet. */
  function pickupOf(deal: DealRecord, timezone: string, wanted: string | undefined, t: Date) {
    const window = (date: string) => ({
      date,
      startsAt: zonedInstant(date, deal.pickupStart, timezone),
      endsAt: zonedInstant(date, deal.pickupEnd, timezone),
    });
    const fits = (w: ReturnType<typeof window>) =>
      w.endsAt > t && w.startsAt < deal.validUntil && w.endsAt > deal.validFrom;
    if (wanted) {
      const w = window(wanted);
      if (w.endsAt <= t) throw validationError('body.pickupDate', 'the pickup window of this day is over');
      if (!fits(w)) throw validationError('body.pickupDate', "must be a day within the deal's validity");
      return w;
    }
    const first = [localParts(timezone, t).date, localParts(timezone, deal.validFrom).date].sort()[1]!;
    for (const date of [first, addDays(first, 1)]) {
      const w = window(date);
      if (fits(w)) return w;
    }
    throw conflict('DEAL_EXPIRED', 'No pickup window of this deal is left');
  }

  /** 409 when the deal takes no booking now, saying why. */
  function refuseUnbookable(deal: DealRecord, t: Date): void {
    if (deal.validUntil <= t) throw conflict('DEAL_EXPIRED', 'This deal has expired');
    if (deal.status === 'PAUSED') throw conflict('DEAL_PAUSED', 'The supplier has paused this deal');
    if (deal.status !== 'ACTIVE') throw notFound('Deal');
  }

  async function viewOf(ex: Executor, id: string): Promise<BookingView> {
    const row = await repo.bookingRowOf(ex, id);
    if (!row) throw notFound('Booking');
    return toBookingView(row);
  }

  const counter = createBookingCounter(ctx, {
    stores: deps.stores,
    notifications: deps.notifications,
    tokens,
    release: money.release,
    viewOf,
  });

  /** The client's view of a booking, with its latest payment when paid in the app. */
  async function clientView(id: string): Promise<BookingView> {
    const v = await viewOf(ctx.db, id);
    return forClient(v, v.paymentMode === 'IN_APP' ? (await money.latestOf(ctx.db, [id])).get(id) : undefined);
  }

  /** For a deal paid in the app: the method (required, offered now) and the payer's number; 400 otherwise. */
  function paymentOf(inApp: boolean, body: BookBody, methods: Settings['mobilemoney']) {
    if (!inApp) {
      if (body.paymentMethod !== undefined || body.payerPhone !== undefined)
        throw validationError(
          body.paymentMethod !== undefined ? 'body.paymentMethod' : 'body.payerPhone',
          'is only for a deal paid in the app: this one is paid at the counter',
        );
      return null;
    }
    if (!body.paymentMethod) throw validationError('body.paymentMethod', 'is required: this deal is paid in the app');
    if (!methods[body.paymentMethod].enabled)
      throw validationError('body.paymentMethod', 'is not offered at the moment (see GET /orders/payments/providers)');
    const payerPhone = body.payerPhone ? normalizePhone(body.payerPhone, 'body.payerPhone') : null;
    return { method: body.paymentMethod, payerPhone };
  }

  return {
    tokens,

    /**
     * Books places. At the counter: CONFIRMED at once. In the app: PENDING_PAYMENT, its places held
     * until paid or its payment deadline (the deal's payment timeout, never past the pickup window's
     * end), with its first payment attempt; the answer carries it (open `payment.redirectUrl`).
     */
    async book(user: AuthUser, dealId: string, body: BookBody, idempotency?: TransactionalKey): Promise<BookingView> {
      // The same request, whose booking committed but whose answer was lost with its process: that booking.
      const made = idempotency?.madeBefore();
      if (made) {
        const v = await viewOf(ctx.db, made);
        const payment =
          v.paymentMode === 'IN_APP' ? await deps.payments.latestOpened({ type: 'booking', id: made }) : undefined;
        return forClient(v, payment);
      }
      // Read before the transaction, from the settings' cache (as an order does).
      const [business, methods] = await Promise.all([deps.settings.get('business'), deps.settings.get('mobilemoney')]);
      const created = await ctx.db.transaction(async (tx) => {
        const t = now();
        const id = uuidv7(t.getTime());
        const deal = await repo.findDeal(tx, dealId);
        if (!deal || deal.status === 'PENDING_REVIEW' || deal.status === 'REJECTED') throw notFound('Deal');
        refuseUnbookable(deal, t);
        const store = await deps.stores.assertAcceptingOrders(tx, deal.storeId, t).catch((err: unknown) => {
          if (err instanceof AppError && err.statusCode === 404) throw notFound('Deal');
          throw err;
        });
        const inApp = deal.paymentMode === 'IN_APP';
        const pay = paymentOf(inApp, body, methods);
        const limit = (held: number) =>
          conflict(
            'BOOKING_LIMIT_REACHED',
            `A client may book ${deal.placesPerClient} place(s) of this deal; you hold ${held}`,
          );
        // A client's places are counted once, behind the deal's lock below (a refusal rolls all back).
        if (body.quantity > deal.placesPerClient) throw limit(0);
        const pickup = pickupOf(deal, store.timezone, body.pickupDate, t);
        const timeout = inApp ? business.paymentTimeoutMinutes : 0;
        const values = {
          id,
          dealId: deal.id,
          clientId: user.id,
          supplierId: deal.supplierId,
          storeId: deal.storeId,
          quantity: body.quantity,
          unitPrice: deal.price,
          totalPrice: deal.price * body.quantity,
          currency: deal.currency,
          pickupDate: pickup.date,
          pickupStartsAt: pickup.startsAt,
          pickupEndsAt: pickup.endsAt,
          status: inApp ? ('PENDING_PAYMENT' as const) : ('CONFIRMED' as const),
          paymentMode: deal.paymentMode,
          paymentStatus: inApp ? ('UNPAID' as const) : null,
          paymentDeadline: inApp ? new Date(Math.min(t.getTime() + timeout * 60_000, pickup.endsAt.getTime())) : null,
          idempotencyKey: idempotency?.key ?? null,
          createdAt: t,
          updatedAt: t,
        };
        // A code its store already uses for a live booking is skipped by the insert: draw another. A
        // concurrent request with the same Idempotency-Key waits here for this one, then is answered by the key.
        let b: BookingRecord | undefined;
        while (!b)
          b = await repo.insertBooking(tx, { ...values, code: newPickupCode() }).catch((err: unknown) => {
            throw idempotency && isUniqueViolation(err, 'deal_bookings_client_idempotency_key')
              ? idempotency.taken()
              : err;
          });
        // Paid in the app, the no-show timer starts and both sides hear of it once paid
        // (payment.succeeded of the booking subject).
        const payment = pay ? await money.start(tx, b, pay) : undefined;
        if (!pay) await confirmed(tx, b, { dealTitle: deal.title, storeName: store.name });
        const view = toBookingView({ booking: b, dealTitle: deal.title, storeName: store.name });
        // Known now (at the counter, or a page opened in this transaction): stored with the key, which
        // the commit settles with no write after it. A refusal below rolls the key back.
        const answer = !payment || payment.providerSessionId ? forClient(view, payment) : undefined;
        if (answer) await idempotency?.answer(tx, 201, answer);
        else await idempotency?.claim(tx, b.id);
        // The places are taken last: the guarded UPDATE locks the deal's row until commit, so the
        // bookings of one deal wait for each other during one statement and the commit, not the whole
        // booking. Behind that lock the client's places are counted (this booking included): a
        // parallel booking of the same client committed before is seen. Refused, all of the above rolls back.
        const overLimit = async () => {
          const held = await repo.placesOfClient(tx, deal.id, user.id);
          if (held > deal.placesPerClient) throw limit(held - body.quantity);
        };
        if (!(await repo.takePlaces(tx, deal.id, body.quantity, t))) {
          await overLimit();
          const now2 = (await repo.findDeal(tx, deal.id))!;
          refuseUnbookable(now2, t);
          const left = now2.totalPlaces - now2.placesTaken;
          const awaited = left > 0 ? 0 : await repo.placesAwaitingPayment(tx, deal.id);
          throw conflict(
            'DEAL_SOLD_OUT',
            left > 0
              ? `Only ${left} place(s) left`
              : awaited > 0
                ? `Every place of this deal is taken; ${awaited} are held for payments in progress and come free if not paid in time`
                : 'Every place of this deal is booked',
          );
        }
        await overLimit();
        return { view, payment, answer };
      });
      if (created.answer) return created.answer;
      // After commit: the provider is called outside the transaction; on failure its job opens the session.
      const payment = created.payment && (await deps.payments.openAfterCommit(created.payment));
      return forClient(created.view, payment);
    },

    /**
     * The client cancels: a booking awaiting its payment at any time (its attempt is closed), a
     * confirmed one until its pickup window starts (its money, if paid in the app, is refunded).
     * The places come back. Racing the payment's webhook, both lock the booking first: either the
     * payment came first and is refunded here, or the cancellation did and the payment is refunded on arrival.
     */
    async cancel(user: AuthUser, id: string): Promise<BookingView> {
      await ctx.db.transaction(async (tx) => {
        const b = await repo.findBooking(tx, id, { lock: true });
        if (!b || b.clientId !== user.id) throw notFound('Booking');
        if (b.status === 'PENDING_PAYMENT') {
          await money.stopWaiting(tx, b, 'CANCELLED');
          return;
        }
        if (b.status !== 'CONFIRMED') throw conflict('BOOKING_NOT_CANCELLABLE', `This booking is ${b.status}`);
        const t = now();
        if (t >= b.pickupStartsAt)
          throw conflict(
            'PICKUP_WINDOW_STARTED',
            `A booking can be cancelled until its pickup window starts (${b.pickupStartsAt.toISOString()})`,
          );
        const row = (await repo.moveBooking(tx, b.id, 'CONFIRMED', 'CANCELLED', { cancelledAt: t, updatedAt: t }))!;
        await repo.releasePlaces(tx, b.dealId, b.quantity);
        if (row.paymentStatus === 'PAID') await money.refund(tx, row, 'BOOKING_CANCELLED: by the client');
        const owner = await supplierUser(tx, b.supplierId);
        if (owner)
          await deps.notifications.notify(
            tx,
            owner,
            'deal_booking_cancelled',
            { bookingId: b.id, dealId: b.dealId, quantity: b.quantity },
            { sourceKey: `booking:${b.id}:cancelled` },
          );
      });
      return clientView(id);
    },
    /** The PNG of the booking's QR code (a signed token naming it), for its client. */
    async qr(user: AuthUser, id: string): Promise<Buffer> {
      const b = await repo.findBooking(ctx.db, id);
      if (!b || b.clientId !== user.id) throw notFound('Booking');
      return tokens.png(b.id, b.code);
    },

    async listMine(user: AuthUser, q: MyBookingsQuery) {
      const where = and(eq(dealBookings.clientId, user.id), q.status ? eq(dealBookings.status, q.status) : undefined);
      const { items, total } = await repo.listBookings(ctx.db, where, q);
      const inApp = items.filter((r) => r.booking.paymentMode === 'IN_APP').map((r) => r.booking.id);
      const payments = await money.latestOf(ctx.db, inApp);
      return {
        items: items.map((r) => forClient(toBookingView(r), payments.get(r.booking.id))),
        meta: pageMeta(q, total),
      };
    },

    /** Bookings of the stores the user owns, or validates for as a member. */
    async listForStores(user: AuthUser, q: StoreBookingsQuery) {
      const own = await deps.suppliers.findOwnProfile(user.id);
      const storeIds = await deps.members.storesWhere(ctx.db, user.id, 'bookings.validate');
      const scopes = [
        own ? eq(dealBookings.supplierId, own.id) : undefined,
        storeIds.length ? inArray(dealBookings.storeId, storeIds) : undefined,
      ].filter(Boolean) as SQL[];
      if (!scopes.length) return { items: [], meta: pageMeta(q, 0) };
      const where = and(
        or(...scopes),
        q.status ? eq(dealBookings.status, q.status) : undefined,
        q.storeId ? eq(dealBookings.storeId, q.storeId) : undefined,
        q.dealId ? eq(dealBookings.dealId, q.dealId) : undefined,
      );
      const { items, total } = await repo.listBookings(ctx.db, where, q);
      return { items: items.map(toBookingView), meta: pageMeta(q, total) };
    },

    /** The counter's scan or typed code (booking-counter.ts). */
    validate: counter.validate,
  };
}
