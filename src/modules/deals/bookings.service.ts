import { createHmac } from 'node:crypto';
import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { dealBookings } from '../../db/schema/deals.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { localParts } from '../../shared/opening-hours.js';
import { pageMeta } from '../../shared/schemas.js';
import type { NotificationsApi } from '../notifications/index.js';
import { zonedInstant, newPickupCode, PickupTokens } from '../orders/index.js';
import type { StaffApi } from '../staff/index.js';
import { roleCan, type StoresApi } from '../stores/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import * as repo from './deals.repository.js';
import type { BookingRecord, DealRecord } from './deals.repository.js';
import type { BookBody, BookingView, MyBookingsQuery, StoreBookingsQuery, ValidateBody } from './deals.schemas.js';
import { toBookingView } from './deals.views.js';

/** Marks a booking NO_SHOW once its pickup window ended unused (sent at booking, due at the window's end). */
export const NO_SHOW_JOB = 'deals.booking-no-show';
/** Catches what the per-booking job missed (a job lost with its queue): every 10 minutes. */
export const NO_SHOW_SWEEP_JOB = 'deals.no-show-sweep';

export interface BookingsDeps {
  stores: StoresApi;
  members: StaffApi['members'];
  suppliers: SuppliersApi;
  notifications: NotificationsApi;
}

const DAY_MS = 86_400_000;
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const normalizeCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

/** The booking id a token claims (unverified: codeFrom checks the signature against it). */
function claimedId(token: string): string | null {
  try {
    const body = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { o?: unknown };
    return typeof body.o === 'string' && /^[0-9a-f-]{36}$/i.test(body.o) ? body.o : null;
  } catch {
    return null;
  }
}

const invalidToken = () =>
  new AppError(400, 'INVALID_BOOKING_TOKEN', 'This QR code is not a booking of this service, or it was altered', [
    { field: 'body.token', message: 'is not a valid booking token' },
  ]);

export type BookingsService = ReturnType<typeof createBookingsService>;

export function createBookingsService(ctx: AppContext, deps: BookingsDeps) {
  const now = () => ctx.clock.now();
  // Their own key: an order's QR token is not a booking's, nor the reverse.
  const tokens = new PickupTokens(
    createHmac('sha256', ctx.config.JWT_ACCESS_SECRET).update('deal-booking-codes').digest('hex'),
  );

  /** The client's own view: with the token its QR code carries, so an app can draw it offline. */
  const forClient = (v: BookingView): BookingView => ({ ...v, qrToken: tokens.sign(v.id, v.code) });

  const supplierUser = async (ex: Executor, supplierId: string) =>
    (await deps.suppliers.findProfile(supplierId, ex))?.userId;

  async function noShow(tx: Executor, b: BookingRecord): Promise<void> {
    if (b.status !== 'CONFIRMED' || b.pickupEndsAt > now()) return;
    const row = await repo.closeBooking(tx, b.id, 'NO_SHOW', { updatedAt: now() });
    if (row)
      await deps.notifications.notify(
        tx,
        b.clientId,
        'deal_booking_no_show',
        { bookingId: b.id },
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

  /**
   * Who may validate bookings of a store: the supplier who owns it, or a member whose role has
   * `bookings.validate`. Anyone else: 404 (another store's booking is not theirs to see).
   */
  async function assertValidator(ex: Executor, user: AuthUser, storeId: string): Promise<void> {
    const { role } = await deps.stores.resolveRole(ex, user.id, storeId).catch(() => ({ role: null }));
    if (!role) throw notFound('Booking');
    if (!roleCan(role, 'bookings.validate'))
      throw new AppError(403, 'FORBIDDEN', `Your role on this store (${role}) does not allow bookings.validate`);
  }

  /** The booking a short code names among the stores the user validates for (the newest when used ones share it). */
  async function byCode(ex: Executor, user: AuthUser, code: string, storeId?: string): Promise<BookingRecord> {
    const found = (
      await ex
        .select()
        .from(dealBookings)
        .where(and(eq(dealBookings.code, code), storeId ? eq(dealBookings.storeId, storeId) : undefined))
    ).sort(
      (a, b) =>
        (a.status === 'CONFIRMED' ? 0 : 1) - (b.status === 'CONFIRMED' ? 0 : 1) ||
        b.createdAt.getTime() - a.createdAt.getTime(),
    );
    const allowed: BookingRecord[] = [];
    for (const b of found) {
      if (
        await assertValidator(ex, user, b.storeId).then(
          () => true,
          () => false,
        )
      )
        allowed.push(b);
    }
    const open = allowed.filter((b) => b.status === 'CONFIRMED');
    if (new Set(open.map((b) => b.storeId)).size > 1)
      throw conflict(
        'AMBIGUOUS_BOOKING_CODE',
        'This code is open in several of your stores: give storeId, or scan the QR code',
      );
    const b = open[0] ?? allowed[0];
    if (!b) throw notFound('Booking');
    return b;
  }

  /** 409 when the deal takes no booking now, saying why. */
  function refuseUnbookable(deal: DealRecord, t: Date): void {
    if (deal.validUntil <= t) throw conflict('DEAL_EXPIRED', 'This deal has expired');
    if (deal.status === 'PAUSED') throw conflict('DEAL_PAUSED', 'The supplier has paused this deal');
    if (deal.status !== 'ACTIVE') throw notFound('Deal');
  }

  /** 409 for a booking that cannot be used any more, saying why. */
  function refuseClosed(b: BookingRecord): never {
    if (b.status === 'USED') {
      throw new AppError(409, 'BOOKING_ALREADY_USED', `This booking was already used at ${b.usedAt!.toISOString()}`, [
        { field: 'usedAt', message: b.usedAt!.toISOString() },
      ]);
    }
    if (b.status === 'CANCELLED') throw conflict('BOOKING_CANCELLED', 'This booking was cancelled by the client');
    throw conflict(
      'PICKUP_WINDOW_PASSED',
      `The pickup window of this booking ended at ${b.pickupEndsAt.toISOString()}`,
    );
  }

  async function viewOf(ex: Executor, id: string): Promise<BookingView> {
    const row = await repo.bookingRowOf(ex, id);
    if (!row) throw notFound('Booking');
    return toBookingView(row);
  }

  return {
    tokens,

    async book(user: AuthUser, dealId: string, body: BookBody): Promise<BookingView> {
      return ctx.db.transaction(async (tx) => {
        const t = now();
        const deal = await repo.findDeal(tx, dealId);
        if (!deal || deal.status === 'PENDING_REVIEW' || deal.status === 'REJECTED') throw notFound('Deal');
        refuseUnbookable(deal, t);
        await deps.stores.assertAcceptingOrders(tx, deal.storeId, t).catch((err: unknown) => {
          if (err instanceof AppError && err.statusCode === 404) throw notFound('Deal');
          throw err;
        });
        const store = (await deps.stores.findStore(tx, deal.storeId))!;
        const limit = (held: number) =>
          conflict(
            'BOOKING_LIMIT_REACHED',
            `A client may book ${deal.placesPerClient} place(s) of this deal; you hold ${held}`,
          );
        const heldBefore = await repo.placesOfClient(tx, deal.id, user.id);
        if (heldBefore + body.quantity > deal.placesPerClient) throw limit(heldBefore);
        const pickup = pickupOf(deal, store.timezone, body.pickupDate, t);
        let code = newPickupCode();
        while (await repo.codeInUse(tx, store.id, code)) code = newPickupCode();
        const b = await repo.insertBooking(tx, {
          id: uuidv7(t.getTime()),
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
          code,
          createdAt: t,
          updatedAt: t,
        });
        await ctx.jobs.send(
          NO_SHOW_JOB,
          { bookingId: b.id },
          { tx, startAfterSeconds: Math.max(1, Math.ceil((pickup.endsAt.getTime() - t.getTime()) / 1000)) },
        );
        const data = {
          bookingId: b.id,
          dealId: deal.id,
          dealTitle: deal.title,
          storeName: store.name,
          quantity: b.quantity,
          pickupStartsAt: b.pickupStartsAt.toISOString(),
        };
        await deps.notifications.notify(tx, user.id, 'deal_booked', data, { sourceKey: `booking:${b.id}:booked` });
        const owner = await supplierUser(tx, deal.supplierId);
        if (owner)
          await deps.notifications.notify(tx, owner, 'deal_booking_received', data, {
            sourceKey: `booking:${b.id}:received`,
          });
        // The places are taken last: the guarded UPDATE locks the deal's row until commit, so the
        // bookings of one deal wait for each other during one statement and the commit, not the whole
        // booking. Behind that lock the client's places are counted again (this booking included):
        // a parallel booking of the same client committed before is seen. Refused, all of the above rolls back.
        if (!(await repo.takePlaces(tx, deal.id, body.quantity, t))) {
          const now2 = (await repo.findDeal(tx, deal.id))!;
          refuseUnbookable(now2, t);
          const left = now2.totalPlaces - now2.placesTaken;
          throw conflict(
            'DEAL_SOLD_OUT',
            left > 0 ? `Only ${left} place(s) left` : 'Every place of this deal is booked',
          );
        }
        const held = await repo.placesOfClient(tx, deal.id, user.id);
        if (held > deal.placesPerClient) throw limit(held - body.quantity);
        return forClient(toBookingView({ booking: b, dealTitle: deal.title, storeName: store.name }));
      });
    },

    async cancel(user: AuthUser, id: string): Promise<BookingView> {
      await ctx.db.transaction(async (tx) => {
        const b = await repo.findBooking(tx, id, { lock: true });
        if (!b || b.clientId !== user.id) throw notFound('Booking');
        if (b.status !== 'CONFIRMED') throw conflict('BOOKING_NOT_CANCELLABLE', `This booking is ${b.status}`);
        const t = now();
        if (t >= b.pickupStartsAt)
          throw conflict(
            'PICKUP_WINDOW_STARTED',
            `A booking can be cancelled until its pickup window starts (${b.pickupStartsAt.toISOString()})`,
          );
        await repo.closeBooking(tx, b.id, 'CANCELLED', { cancelledAt: t, updatedAt: t });
        await repo.releasePlaces(tx, b.dealId, b.quantity);
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
      return forClient(await viewOf(ctx.db, id));
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
      return { items: items.map((r) => forClient(toBookingView(r))), meta: pageMeta(q, total) };
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

    /**
     * The counter's scan (the QR token) or typed short code: the booking becomes USED once. A
     * second scan, even at the same instant, is 409 BOOKING_ALREADY_USED with when it was used.
     */
    async validate(user: AuthUser, body: ValidateBody): Promise<BookingView> {
      if ((body.token === undefined) === (body.code === undefined))
        throw validationError('body.token', 'give either token (the QR code) or code');
      let b: BookingRecord | undefined;
      if (body.token !== undefined) {
        const id = claimedId(body.token);
        const code = id && tokens.codeFrom(body.token, id);
        if (!id || !code) throw invalidToken();
        b = await repo.findBooking(ctx.db, id);
        if (!b || b.code !== code) throw invalidToken();
        if (body.storeId && body.storeId !== b.storeId) throw notFound('Booking');
        await assertValidator(ctx.db, user, b.storeId);
      } else {
        b = await byCode(ctx.db, user, normalizeCode(body.code!), body.storeId);
      }
      const t = now();
      if (b.status !== 'CONFIRMED') refuseClosed(b);
      if (t >= b.pickupEndsAt) refuseClosed({ ...b, status: 'NO_SHOW' });
      const booking = b;
      await ctx.db.transaction(async (tx) => {
        const used = await repo.closeBooking(tx, booking.id, 'USED', { usedAt: t, usedBy: user.id, updatedAt: t });
        if (!used) refuseClosed((await repo.findBooking(tx, booking.id))!);
        await deps.notifications.notify(
          tx,
          booking.clientId,
          'deal_booking_used',
          { bookingId: booking.id, dealId: booking.dealId },
          { sourceKey: `booking:${booking.id}:used` },
        );
      });
      return viewOf(ctx.db, booking.id);
    },
  };
}
