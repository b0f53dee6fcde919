import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { orders, type OrderActorRole } from './orders.js';
import { payments } from './payments.js';

/** Who moves an escrow: the roles that move orders, since an escrow moves with its order. */
export type EscrowActorRole = OrderActorRole;

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const ESCROW_STATES = [
  'HELD',
  'RELEASED',
  'REFUNDED',
  'DISPUTED',
  'RESOLVED_SUPPLIER',
  'RESOLVED_CLIENT',
] as const;
export type EscrowState = (typeof ESCROW_STATES)[number];

/**
 * The money of one paid order while the platform holds it (DESIGN section 6). The balance itself
 * lives in the ledger (`escrow:<orderId>`); this row is its state, which the money checks hold to
 * the balance: HELD and DISPUTED hold the amount, every other state nothing.
 */
export const escrows = pgTable(
  'escrows',
  {
    orderId: uuid('order_id')
      .primaryKey()
      .references(() => orders.id),
    // The payment whose money is held (refunds go back through its provider session).
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => payments.id),
    state: text('state').$type<EscrowState>().notNull().default('HELD'),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    heldAt: ts('held_at').notNull(),
    // When the release job may pay the supplier: set once the order is completed.
    releaseAfter: ts('release_after'),
    releasedAt: ts('released_at'),
    refundedAt: ts('refunded_at'),
    refundReason: text('refund_reason'),
    disputeReason: text('dispute_reason'),
    disputeOpenedAt: ts('dispute_opened_at'),
    disputeResolvedAt: ts('dispute_resolved_at'),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    check('escrows_amount', sql`amount > 0`),
    check(
      'escrows_state',
      sql`state in ('HELD', 'RELEASED', 'REFUNDED', 'DISPUTED', 'RESOLVED_SUPPLIER', 'RESOLVED_CLIENT')`,
    ),
    // The release job reads held escrows whose delay has passed.
    index('escrows_release_idx').on(t.releaseAfter).where(sql`state = 'HELD' and release_after is not null`),
    index('escrows_state_idx').on(t.state, t.updatedAt),
    // The administrators' list: newest held first (its default) and by amount, both ways.
    index('escrows_held_idx').on(t.heldAt, t.orderId),
    index('escrows_amount_idx').on(t.amount, t.orderId),
  ],
);
