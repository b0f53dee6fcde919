import type { FinancialDonationStatus, FoodDonationStatus } from '../../db/schema/donations.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * A food donation's states. PICKUP_SCHEDULED -> PICKUP_SCHEDULED is a new pickup time within the
 * window. DECLINED, COLLECTED and CANCELLED are final.
 */
export const FOOD_DONATION_TRANSITIONS: TransitionTable<FoodDonationStatus> = {
  PENDING: ['ACCEPTED', 'DECLINED', 'CANCELLED'],
  ACCEPTED: ['PICKUP_SCHEDULED', 'CANCELLED'],
  PICKUP_SCHEDULED: ['PICKUP_SCHEDULED', 'COLLECTED', 'CANCELLED'],
  DECLINED: [],
  COLLECTED: [],
  CANCELLED: [],
};

export type DonationParty = 'DONOR' | 'ASSOCIATION';

/** Who moves a donation into each state: the receiving association decides and collects, the donor cancels. */
export const MOVED_BY: Record<FoodDonationStatus, DonationParty | null> = {
  PENDING: null,
  ACCEPTED: 'ASSOCIATION',
  DECLINED: 'ASSOCIATION',
  PICKUP_SCHEDULED: 'ASSOCIATION',
  COLLECTED: 'ASSOCIATION',
  CANCELLED: 'DONOR',
};

/** States in which the donated units are still held from the donor's stock. */
export const OPEN_STATUSES = [
  'PENDING',
  'ACCEPTED',
  'PICKUP_SCHEDULED',
] as const satisfies readonly FoodDonationStatus[];
/** Leaving for one of these gives the units back to the donor's stock. */
export const GIVES_STOCK_BACK: readonly FoodDonationStatus[] = ['DECLINED', 'CANCELLED'];

/**
 * A financial donation's states. It waits for its payment (PENDING_PAYMENT) until its deadline, a
 * refused attempt included (the payer may try again on the same page); the provider's success makes
 * it PAID (final: the money is owed to the association and paid out to it), the deadline or the
 * session's expiry EXPIRED; the donor may cancel it only while it waits. A payment arriving after
 * EXPIRED or CANCELLED is refunded, never applied. FAILED is no longer entered: it remains for
 * donations recorded when a refused attempt ended the donation.
 */
export const FINANCIAL_DONATION_TRANSITIONS: TransitionTable<FinancialDonationStatus> = {
  PENDING_PAYMENT: ['PAID', 'EXPIRED', 'CANCELLED'],
  PAID: [],
  FAILED: [],
  EXPIRED: [],
  CANCELLED: [],
};
