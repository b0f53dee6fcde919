import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { associations } from './associations.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// FOOD donations (items picked up by the association) and FINANCIAL ones (money paid through the
// payments machinery, owed to the association and paid out to it) share this table, each with its states.
export const DONATION_KINDS = ['FOOD', 'FINANCIAL'] as const;
export type DonationKind = (typeof DONATION_KINDS)[number];
export const FOOD_DONATION_STATUSES = [
  'PENDING',
  'ACCEPTED',
  'DECLINED',
  'PICKUP_SCHEDULED',
  'COLLECTED',
  'CANCELLED',
] as const;
export type FoodDonationStatus = (typeof FOOD_DONATION_STATUSES)[number];
export const FINANCIAL_DONATION_STATUSES = ['PENDING_PAYMENT', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED'] as const;
export type FinancialDonationStatus = (typeof FINANCIAL_DONATION_STATUSES)[number];
export const DONATION_STATUSES = [...new Set([...FOOD_DONATION_STATUSES, ...FINANCIAL_DONATION_STATUSES])] as readonly (
  | FoodDonationStatus
  | FinancialDonationStatus
)[];
export type DonationStatus = FoodDonationStatus | FinancialDonationStatus;

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
    // FINANCIAL: the donor asked not to be named (receipts say "anonymous", the association sees no name).
    anonymous: boolean('anonymous').notNull().default(false),
    paidAt: ts('paid_at'),
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
    index('donations_supplier_open_idx')
      .on(t.supplierId)
      .where(sql`status in ('PENDING', 'ACCEPTED', 'PICKUP_SCHEDULED')`),
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

export const DONATION_DOCUMENT_KINDS = ['RECEIPT', 'CERTIFICATE'] as const;
export type DonationDocumentKind = (typeof DONATION_DOCUMENT_KINDS)[number];

/**
 * A receipt (FINANCIAL, once PAID) or certificate (FOOD, once COLLECTED): one per donation and kind,
 * numbered without gaps per (kind, year) through donation_document_counters. The PDF is stored
 * privately; `code` is what GET /donations/verify/:code answers for.
 */
export const donationDocuments = pgTable(
  'donation_documents',
  {
    id: uuid('id').primaryKey(),
    donationId: uuid('donation_id')
      .notNull()
      .references(() => donations.id),
    kind: text('kind').$type<DonationDocumentKind>().notNull(),
    year: integer('year').notNull(),
    sequence: integer('sequence').notNull(),
    // e.g. REC-2026-000001
    number: text('number').notNull(),
    code: text('code').notNull(),
    storageKey: text('storage_key').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    issuedAt: ts('issued_at').notNull(),
  },
  (t) => [
    uniqueIndex('donation_documents_donation_key').on(t.donationId, t.kind),
    uniqueIndex('donation_documents_number_key').on(t.kind, t.year, t.sequence),
    uniqueIndex('donation_documents_code_key').on(t.code),
  ],
);

/** The last number given per (kind, year), taken under a row lock in the issuing transaction. */
export const donationDocumentCounters = pgTable(
  'donation_document_counters',
  {
    kind: text('kind').$type<DonationDocumentKind>().notNull(),
    year: integer('year').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.year] })],
);
