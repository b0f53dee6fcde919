/**
 * Ledger account names (DESIGN section 6). Sign convention: a line's amount > 0 is a debit, < 0 a
 * credit, and an account's balance is the sum of its lines (debits minus credits). So the one asset,
 * provider_clearing (money at the payment provider), has a positive balance, and everything the
 * platform holds for someone (escrow), owes (supplier_payable, association_payable,
 * refunds_pending, advertiser_balance: an advertiser's prepaid money) or has earned (platform_*)
 * has a negative one: an escrow holding 1500 XOF has balance -1500. A supplier's payout is supplier_payable -> provider_clearing (no "paid out"
 * account: the money leaves the platform). docs/ledger.md has one worked example per movement.
 */
export const providerClearing = 'provider_clearing';
export const platformCommission = 'platform_commission';
export const platformSubscriptions = 'platform_subscriptions';
export const platformAdvertising = 'platform_advertising';
export const escrow = (orderId: string) => `escrow:${orderId}`;
/** Held for a booking paid in the app until it is collected (released) or cancelled (refunded). */
export const bookingEscrow = (bookingId: string) => `booking_escrow:${bookingId}`;
export const supplierPayable = (supplierId: string) => `supplier_payable:${supplierId}`;
export const associationPayable = (associationId: string) => `association_payable:${associationId}`;
export const refundsPending = (paymentId: string) => `refunds_pending:${paymentId}`;
export const advertiserBalance = (advertiserId: string) => `advertiser_balance:${advertiserId}`;

const ACCOUNT =
  /^(provider_clearing|platform_commission|platform_subscriptions|platform_advertising|(escrow|booking_escrow|supplier_payable|association_payable|refunds_pending|advertiser_balance):[0-9a-f-]{36})$/;
export const isAccount = (name: string) => ACCOUNT.test(name);

/** Balances that can never be positive: nothing is held for, owed to or earned from less than nothing. */
export const NEVER_POSITIVE_PREFIXES = [
  'escrow:',
  'booking_escrow:',
  'supplier_payable:',
  'association_payable:',
  'refunds_pending:',
  'advertiser_balance:',
  'platform_commission',
  'platform_subscriptions',
  'platform_advertising',
];
/** Balances that can never be negative: the provider never holds less than nothing of ours. */
export const NEVER_NEGATIVE_PREFIXES = ['provider_clearing'];
