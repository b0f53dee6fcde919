import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { ProductCategory } from '../../modules/products/product-catalog.js';
import { cube, foldedDocument, tsvector, weightedVector } from '../search-columns.js';
import { payments } from './payments.js';
import { stores } from './stores.js';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const DEAL_KINDS = ['SURPRISE_BAG', 'PERCENTAGE_OFF', 'FIXED_PRICE'] as const;
export type DealKind = (typeof DEAL_KINDS)[number];

/** Stored states; SOLD_OUT and EXPIRED are derived from places and time when read (deal-status.ts). */
export const DEAL_STATUSES = ['PENDING_REVIEW', 'ACTIVE', 'PAUSED', 'REJECTED', 'DELETED'] as const;
export type DealStatus = (typeof DEAL_STATUSES)[number];

/** Paid at the counter when collected, or in the app when booked (held in escrow until collected). */
export const DEAL_PAYMENT_MODES = ['AT_COUNTER', 'IN_APP'] as const;
export type DealPaymentMode = (typeof DEAL_PAYMENT_MODES)[number];

export interface DealImage {
  id: string;
  thumbnailKey: string;
  largeKey: string;
}

export const deals = pgTable(
  'deals',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    kind: text('kind').$type<DealKind>().notNull(),
    category: text('category').$type<ProductCategory>().notNull(),
    // Whole XOF. `price` is what the client pays at the counter per place (for PERCENTAGE_OFF it is
    // computed from originalValue and discountPercent when written), so lists sort on one column.
    price: integer('price').notNull(),
    originalValue: integer('original_value').notNull(),
    discountPercent: integer('discount_percent').notNull(),
    currency: text('currency').notNull().default('XOF'),
    totalPlaces: integer('total_places').notNull(),
    placesTaken: integer('places_taken').notNull().default(0),
    placesPerClient: integer('places_per_client').notNull(),
    validFrom: ts('valid_from').notNull(),
    validUntil: ts('valid_until').notNull(),
    // Pickup window of every day, local times of the store ("HH:MM", its time zone).
    pickupStart: text('pickup_start').notNull(),
    pickupEnd: text('pickup_end').notNull(),
    terms: text('terms').notNull().default(''),
    images: jsonb('images').$type<DealImage[]>().notNull().default([]),
    paymentMode: text('payment_mode').$type<DealPaymentMode>().notNull().default('AT_COUNTER'),
    status: text('status').$type<DealStatus>().notNull().default('PENDING_REVIEW'),
    rejectionReason: text('rejection_reason'),
    // ACTIVE, its store live and active, its supplier public: kept by triggers (migration
    // 0027_deals) as products.listed is; validity, places and closures are checked when reading.
    listed: boolean('listed').notNull().default(false),
    // The store's position, kept by triggers from the store (never written by the application).
    earth: cube('earth').notNull(),
    searchDoc: text('search_doc')
      .notNull()
      .generatedAlwaysAs(foldedDocument('title', 'description', 'terms')),
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(weightedVector('title', 'description', 'terms')),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    check('deals_prices', sql`price >= 0 and original_value > 0 and price < original_value`),
    check('deals_places', sql`places_taken >= 0 and places_taken <= total_places and places_per_client >= 1`),
    check('deals_validity', sql`valid_from < valid_until`),
    check('deals_payment_mode', sql`payment_mode in ('AT_COUNTER', 'IN_APP')`),
    index('deals_supplier_idx').on(t.supplierId, t.createdAt).where(sql`status <> 'DELETED'`),
    index('deals_store_idx').on(t.storeId).where(sql`status <> 'DELETED'`),
    index('deals_status_idx').on(t.status, t.createdAt),
    // The public list: one partial index per order over listed deals (docs/deals.md).
    index('deals_listed_earth_idx').using('gist', t.earth).where(sql`listed`),
    index('deals_listed_search_vector_idx').using('gin', t.searchVector).where(sql`listed`),
    index('deals_listed_search_trgm_idx').using('gin', t.searchDoc.op('gin_trgm_ops')).where(sql`listed`),
    index('deals_listed_newest_idx').on(t.createdAt, t.id).where(sql`listed`),
    index('deals_listed_price_idx').on(t.price, t.id).where(sql`listed`),
    index('deals_listed_ending_idx').on(t.validUntil, t.id).where(sql`listed`),
  ],
);

export const BOOKING_STATUSES = ['PENDING_PAYMENT', 'CONFIRMED', 'USED', 'CANCELLED', 'NO_SHOW', 'EXPIRED'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/**
 * Where the money of a booking paid in the app is: UNPAID (nothing received), PAID (held in the
 * escrow account booking_escrow:<id>), RELEASED (to the shop, less the commission), REFUND_PENDING
 * then REFUNDED (back to the client). Null for a booking paid at the counter.
 */
export const BOOKING_PAYMENT_STATUSES = ['UNPAID', 'PAID', 'RELEASED', 'REFUND_PENDING', 'REFUNDED'] as const;
export type BookingPaymentStatus = (typeof BOOKING_PAYMENT_STATUSES)[number];

export const dealBookings = pgTable(
  'deal_bookings',
  {
    id: uuid('id').primaryKey(),
    dealId: uuid('deal_id')
      .notNull()
      .references(() => deals.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => users.id),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    quantity: integer('quantity').notNull(),
    unitPrice: integer('unit_price').notNull(),
    totalPrice: integer('total_price').notNull(),
    currency: text('currency').notNull(),
    // The store's local day of the pickup and that day's window as instants.
    pickupDate: date('pickup_date', { mode: 'string' }).notNull(),
    pickupStartsAt: ts('pickup_starts_at').notNull(),
    pickupEndsAt: ts('pickup_ends_at').notNull(),
    code: text('code').notNull(),
    status: text('status').$type<BookingStatus>().notNull().default('CONFIRMED'),
    // The deal's mode when booked: a later change of the deal does not reach this booking.
    paymentMode: text('payment_mode').$type<DealPaymentMode>().notNull().default('AT_COUNTER'),
    paymentStatus: text('payment_status').$type<BookingPaymentStatus>(),
    // In the app: the places are held until then, and freed if the payment has not come.
    paymentDeadline: ts('payment_deadline'),
    // The payment whose money is held (refunds go back through its provider session).
    paymentId: uuid('payment_id').references(() => payments.id),
    // The supplier's rate less its plan's discount at booking, frozen as an order's.
    commissionBps: integer('commission_bps'),
    paidAt: ts('paid_at'),
    releasedAt: ts('released_at'),
    refundedAt: ts('refunded_at'),
    usedAt: ts('used_at'),
    usedBy: uuid('used_by').references(() => users.id),
    cancelledAt: ts('cancelled_at'),
    // The client's Idempotency-Key: a retry with it waits at the insert for the first run, then gets its answer.
    idempotencyKey: text('idempotency_key'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    check('deal_bookings_quantity', sql`quantity >= 1`),
    check(
      'deal_bookings_payment',
      sql`case when payment_mode = 'IN_APP' then payment_status is not null and payment_deadline is not null and commission_bps is not null else payment_status is null end`,
    ),
    index('deal_bookings_client_idx').on(t.clientId, t.createdAt),
    index('deal_bookings_deal_client_idx').on(t.dealId, t.clientId),
    index('deal_bookings_store_idx').on(t.storeId, t.createdAt),
    // A short code names one booking of its store while it can still be used (or will be, once paid).
    uniqueIndex('deal_bookings_store_code_key')
      .on(t.storeId, t.code)
      .where(sql`status in ('CONFIRMED', 'PENDING_PAYMENT')`),
    uniqueIndex('deal_bookings_client_idempotency_key')
      .on(t.clientId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    index('deal_bookings_open_idx').on(t.pickupEndsAt).where(sql`status = 'CONFIRMED'`),
    // The sweep of holds whose payment did not come in time.
    index('deal_bookings_unpaid_idx').on(t.paymentDeadline).where(sql`status = 'PENDING_PAYMENT'`),
  ],
);
