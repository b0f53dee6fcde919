import type { BookingPaymentStatus, BookingStatus, DealStatus } from '../../db/schema/deals.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * Moderation and life of a deal (stored states).
 * - PENDING_REVIEW -> ACTIVE | REJECTED: an administrator's decision (or ACTIVE at once when the
 *   `features.autoApproveVerifiedSupplierProducts` flag is on and the supplier is verified, as products).
 * - ACTIVE | REJECTED -> PENDING_REVIEW: the supplier edits it (ACTIVE again at once with auto-approval).
 * - ACTIVE <-> PAUSED: toggle-pause.
 * - any but DELETED -> DELETED: the supplier deletes it (refused while bookings are open); kept for its bookings.
 *
 * SOLD_OUT and EXPIRED are not stored: an ACTIVE deal is SOLD_OUT while every place is taken and
 * EXPIRED from the second its validity ends (effectiveStatus), so no job has to catch up with them.
 */
export const DEAL_TRANSITIONS: TransitionTable<DealStatus> = {
  PENDING_REVIEW: ['ACTIVE', 'REJECTED', 'DELETED'],
  ACTIVE: ['PENDING_REVIEW', 'PAUSED', 'DELETED'],
  PAUSED: ['ACTIVE', 'PENDING_REVIEW', 'DELETED'],
  REJECTED: ['PENDING_REVIEW', 'ACTIVE', 'DELETED'],
  DELETED: [],
};

/** An administrator's decision: only on a deal waiting for one. */
export const MODERATION_TRANSITIONS: TransitionTable<DealStatus> = {
  PENDING_REVIEW: ['ACTIVE', 'REJECTED'],
  ACTIVE: [],
  PAUSED: [],
  REJECTED: [],
  DELETED: [],
};

/** toggle-pause: ACTIVE <-> PAUSED and nothing else. */
export const PAUSE_TRANSITIONS: TransitionTable<DealStatus> = {
  PENDING_REVIEW: [],
  ACTIVE: ['PAUSED'],
  PAUSED: ['ACTIVE'],
  REJECTED: [],
  DELETED: [],
};

export const DEAL_VIEW_STATUSES = [
  'PENDING_REVIEW',
  'ACTIVE',
  'PAUSED',
  'REJECTED',
  'SOLD_OUT',
  'EXPIRED',
  'DELETED',
] as const;
export type DealViewStatus = (typeof DEAL_VIEW_STATUSES)[number];

/** The state shown: the stored one, or SOLD_OUT / EXPIRED derived from places and time. */
export function effectiveStatus(
  d: { status: DealStatus; validUntil: Date; placesTaken: number; totalPlaces: number },
  now: Date,
): DealViewStatus {
  if (d.status === 'ACTIVE' || d.status === 'PAUSED') {
    if (d.validUntil <= now) return 'EXPIRED';
    if (d.status === 'ACTIVE' && d.placesTaken >= d.totalPlaces) return 'SOLD_OUT';
  }
  return d.status;
}

/**
 * Bookings: PENDING_PAYMENT (paid in the app: its places held until paid or its payment deadline)
 * -> CONFIRMED (paid) | CANCELLED (by the client) | EXPIRED (not paid in time: places freed).
 * CONFIRMED -> USED (validated at the counter), CANCELLED (by the client before the pickup window
 * starts; places come back), NO_SHOW (the window ended unused; a job).
 */
export const BOOKING_TRANSITIONS: TransitionTable<BookingStatus> = {
  PENDING_PAYMENT: ['CONFIRMED', 'CANCELLED', 'EXPIRED'],
  CONFIRMED: ['USED', 'CANCELLED', 'NO_SHOW'],
  USED: [],
  CANCELLED: [],
  NO_SHOW: [],
  EXPIRED: [],
};

/**
 * The money of a booking paid in the app: PAID while held in its escrow account, then RELEASED to
 * the shop (validated, or a no-show kept) or sent back (cancelled while allowed, or a no-show refunded).
 */
export const BOOKING_PAYMENT_TRANSITIONS: TransitionTable<BookingPaymentStatus> = {
  UNPAID: ['PAID'],
  PAID: ['RELEASED', 'REFUND_PENDING'],
  RELEASED: [],
  REFUND_PENDING: ['REFUNDED'],
  REFUNDED: [],
};
