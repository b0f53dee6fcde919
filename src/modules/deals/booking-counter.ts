import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { dealBookings } from '../../db/schema/deals.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { PickupTokens } from '../orders/index.js';
import { roleCan, type StoresApi } from '../stores/index.js';
import * as repo from './deals.repository.js';
import type { BookingRecord } from './deals.repository.js';
import type { BookingView, ValidateBody } from './deals.schemas.js';

export interface BookingCounterDeps {
  stores: StoresApi;
  notifications: NotificationsApi;
  tokens: PickupTokens;
  /** Pays the held money of a booking paid in the app to the shop (booking-payments.ts). */
  release: (tx: Executor, b: BookingRecord) => Promise<void>;
  viewOf: (ex: Executor, id: string) => Promise<BookingView>;
}

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

/** 409 for a booking that cannot be handed over (yet, or any more), saying why. */
function refuseClosed(b: BookingRecord): never {
  if (b.status === 'PENDING_PAYMENT' || b.status === 'EXPIRED')
    throw conflict(
      'BOOKING_NOT_PAID',
      b.status === 'EXPIRED'
        ? 'This booking was not paid in time: it was given up'
        : 'This booking waits for its payment in the app: it cannot be handed over yet',
    );
  if (b.status === 'USED') {
    throw new AppError(409, 'BOOKING_ALREADY_USED', `This booking was already used at ${b.usedAt!.toISOString()}`, [
      { field: 'usedAt', message: b.usedAt!.toISOString() },
    ]);
  }
  if (b.status === 'CANCELLED') throw conflict('BOOKING_CANCELLED', 'This booking was cancelled by the client');
  throw conflict('PICKUP_WINDOW_PASSED', `The pickup window of this booking ended at ${b.pickupEndsAt.toISOString()}`);
}

/** A booking a code names may still be handed over (or will be, once paid). */
const live = (b: BookingRecord) => (b.status === 'CONFIRMED' || b.status === 'PENDING_PAYMENT' ? 0 : 1);

/** The store's side of a booking: the counter validates it once, by its QR token or its short code. */
export function createBookingCounter(ctx: AppContext, deps: BookingCounterDeps) {
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
    ).sort((a, b) => live(a) - live(b) || b.createdAt.getTime() - a.createdAt.getTime());
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

  return {
    /**
     * The counter's scan (the QR token) or typed short code: the booking becomes USED once. A
     * second scan, even at the same instant, is 409 BOOKING_ALREADY_USED with when it was used.
     * Paid in the app, its money is released to the shop in the same transaction.
     */
    async validate(user: AuthUser, body: ValidateBody): Promise<BookingView> {
      if ((body.token === undefined) === (body.code === undefined))
        throw validationError('body.token', 'give either token (the QR code) or code');
      let b: BookingRecord | undefined;
      if (body.token !== undefined) {
        const id = claimedId(body.token);
        const code = id && deps.tokens.codeFrom(body.token, id);
        if (!id || !code) throw invalidToken();
        b = await repo.findBooking(ctx.db, id);
        if (!b || b.code !== code) throw invalidToken();
        if (body.storeId && body.storeId !== b.storeId) throw notFound('Booking');
        await assertValidator(ctx.db, user, b.storeId);
      } else {
        b = await byCode(ctx.db, user, normalizeCode(body.code!), body.storeId);
      }
      const t = ctx.clock.now();
      if (b.status !== 'CONFIRMED') refuseClosed(b);
      if (t >= b.pickupEndsAt) refuseClosed({ ...b, status: 'NO_SHOW' });
      const booking = b;
      await ctx.db.transaction(async (tx) => {
        const used = await repo.moveBooking(tx, booking.id, 'CONFIRMED', 'USED', {
          usedAt: t,
          usedBy: user.id,
          updatedAt: t,
        });
        if (!used) refuseClosed((await repo.findBooking(tx, booking.id))!);
        if (used.paymentStatus === 'PAID') await deps.release(tx, used);
        await deps.notifications.notify(
          tx,
          booking.clientId,
          'deal_booking_used',
          { bookingId: booking.id, dealId: booking.dealId },
          { sourceKey: `booking:${booking.id}:used` },
        );
      });
      return deps.viewOf(ctx.db, booking.id);
    },
  };
}
