import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id),
    // The escrow_released ledger transaction whose net amount this pays.
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
    check('payouts_state', sql`state in ('PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED')`),
    uniqueIndex('payouts_release_key').on(t.releaseTransactionId),
    uniqueIndex('payouts_provider_key').on(t.providerPayoutId),
    index('payouts_supplier_idx').on(t.supplierId, t.state),
    index('payouts_order_idx').on(t.orderId),
  ],
);
