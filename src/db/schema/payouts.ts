import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { associations } from './associations.js';
import { dealBookings } from './deals.js';
import { donations } from './donations.js';
import { orders } from './orders.js';
import { supplierProfiles } from './suppliers.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const PAYOUT_STATES = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

/**
 * The transfer of a released escrow's net amount to the supplier's mobile-money wallet. One per
 * release (the ledger transaction it pays is unique). The money stays in `supplier_payable` until
 * the provider confirms: only a SUCCEEDED payout has its ledger posting (payable -> clearing).
 */
export const payouts = pgTable(
  'payouts',
  {
    id: uuid('id').primaryKey(),
    // The payee: a supplier (an order's or a booking's released escrow) or an association (a financial donation).
    supplierId: uuid('supplier_id').references(() => supplierProfiles.id),
    orderId: uuid('order_id').references(() => orders.id),
    bookingId: uuid('booking_id').references(() => dealBookings.id),
    associationId: uuid('association_id').references(() => associations.id),
    donationId: uuid('donation_id').references(() => donations.id),
    // What this pays, unique: the escrow_released ledger transaction of an order or booking, or the donation's
    // succeeded payment (its payment_received posting).
    releaseTransactionId: uuid('release_transaction_id').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    // The wallet the last attempt was sent to (the supplier's payoutPhone at that time).
    mobile: text('mobile'),
    state: text('state').$type<PayoutState>().notNull().default('PENDING'),
    // Why a PENDING payout waits (NO_PAYOUT_PHONE), null when it is on its way.
    waitingReason: text('waiting_reason'),
    providerPayoutId: text('provider_payout_id'),
    // Bumped on each new try after a failure for good: the provider's idempotency key changes with it.
    generation: integer('generation').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    sentAt: ts('sent_at'),
    succeededAt: ts('succeeded_at'),
    failedAt: ts('failed_at'),
  },
  (t) => [
    check('payouts_amount', sql`amount > 0 and attempts >= 0 and generation >= 0`),
    check(
      'payouts_payee',
      sql`(supplier_id is not null and num_nonnulls(order_id, booking_id) = 1 and association_id is null and donation_id is null) or (supplier_id is null and order_id is null and booking_id is null and association_id is not null and donation_id is not null)`,
    ),
    check('payouts_state', sql`state in ('PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED')`),
    uniqueIndex('payouts_release_key').on(t.releaseTransactionId),
    uniqueIndex('payouts_provider_key').on(t.providerPayoutId),
    index('payouts_supplier_idx').on(t.supplierId, t.state),
    index('payouts_order_idx').on(t.orderId),
    index('payouts_association_idx').on(t.associationId, t.state),
  ],
);
