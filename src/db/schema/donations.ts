import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { associations } from './associations.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// FINANCIAL donations (paid through the payments machinery) share this table later, with their own
// states and amount; only FOOD donations are made for now.
export const DONATION_KINDS = ['FOOD', 'FINANCIAL'] as const;
export type DonationKind = (typeof DONATION_KINDS)[number];
export const FOOD_DONATION_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'PICKUP_SCHEDULED', 'COLLECTED', 'CANCELLED'] as const;
export type FoodDonationStatus = (typeof FOOD_DONATION_STATUSES)[number];

export const donations = pgTable(
  'donations',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<DonationKind>().notNull(),
    donorUserId: uuid('donor_user_id')
      .notNull()
      .references(() => users.id),
    // The donating supplier profile (FOOD); null for a person's FINANCIAL donation.
    supplierId: uuid('supplier_id'),
    associationId: uuid('association_id')
      .notNull()
      .references(() => associations.id),
    status: text('status').notNull(),
    // FOOD: the sum of the items' weights, in grams.
    totalWeightGrams: integer('total_weight_grams'),
    // FINANCIAL: the amount in the currency's minor unit.
    amount: integer('amount'),
    currency: text('currency'),
    message: text('message'),
    pickupWindowStart: ts('pickup_window_start'),
    pickupWindowEnd: ts('pickup_window_end'),
    scheduledPickupAt: ts('scheduled_pickup_at'),
    pickupNote: text('pickup_note'),
    // Why it was declined or cancelled.
    closingReason: text('closing_reason'),
    collectedAt: ts('collected_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('donations_donor_idx').on(t.donorUserId, t.createdAt),
    index('donations_association_idx').on(t.associationId, t.status, t.createdAt),
    // Open food donations of a supplier: what a deletion must wait for.
    index('donations_supplier_open_idx').on(t.supplierId).where(sql`status in ('PENDING', 'ACCEPTED', 'PICKUP_SCHEDULED')`),
  ],
);

/** What a food donation holds: units of a catalog product, or a free-form item. */
export const donationItems = pgTable(
  'donation_items',
  {
    id: uuid('id').primaryKey(),
    donationId: uuid('donation_id')
      .notNull()
      .references(() => donations.id),
    // A product of the donor's catalog (its units were taken from stock), or null for a free-form item.
    productId: uuid('product_id'),
    name: text('name').notNull(),
    quantity: integer('quantity').notNull(),
    unitWeightGrams: integer('unit_weight_grams').notNull(),
  },
  (t) => [index('donation_items_donation_idx').on(t.donationId), index('donation_items_product_idx').on(t.productId)],
);

/** Every move of a donation's state: who, when, from what to what, why. Append-only. */
export const donationStatusHistory = pgTable(
  'donation_status_history',
  {
    id: uuid('id').primaryKey(),
    donationId: uuid('donation_id')
      .notNull()
      .references(() => donations.id),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    actorId: uuid('actor_id').references(() => users.id),
    reason: text('reason'),
    at: ts('at').notNull(),
  },
  (t) => [index('donation_status_history_donation_idx').on(t.donationId, t.at)],
);
