import { sql } from 'drizzle-orm';
import {
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { nameOrderKey } from '../folding.js';
import { cube, earthOf, foldedDocument, tsvector, weightedVector } from '../search-columns.js';
import { users } from './users.js';
import type { OpeningHours } from '../../shared/opening-hours.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const SUPPLIER_CATEGORIES = ['FOOD', 'DEALS'] as const;
export const VERIFICATION_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];
export const KYC_STATUSES = ['NOT_SUBMITTED', 'PENDING', 'APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export type { OpeningHours } from '../../shared/opening-hours.js';

export const supplierProfiles = pgTable(
  'supplier_profiles',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    businessName: text('business_name').notNull(),
    description: text('description').notNull().default(''),
    category: text('category').$type<(typeof SUPPLIER_CATEGORIES)[number]>().notNull(),
    contactPhone: text('contact_phone'),
    contactEmail: text('contact_email'),
    address: text('address').notNull(),
    city: text('city').notNull(),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    logoKey: text('logo_key'),
    payoutPhone: text('payout_phone'),
    openingHours: jsonb('opening_hours').$type<OpeningHours>().notNull().default({}),
    timezone: text('timezone').notNull().default('Africa/Dakar'),
    verificationStatus: text('verification_status').$type<VerificationStatus>().notNull().default('PENDING'),
    rejectionReason: text('rejection_reason'),
    verifiedAt: ts('verified_at'),
    kycStatus: text('kyc_status').$type<KycStatus>().notNull().default('NOT_SUBMITTED'),
    // Basis points: 1000 = 10 %. Frozen onto each order when it is created.
    commissionRateBps: integer('commission_rate_bps').notNull(),
    // Filled by reviews (reviews of the supplier itself, not of its products).
    ratingAverage: doublePrecision('rating_average').notNull().default(0),
    ratingCount: integer('rating_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
    // What the public listings read (see search-columns.ts).
    earth: cube('earth').notNull().generatedAlwaysAs(earthOf('latitude', 'longitude')),
    searchDoc: text('search_doc').notNull().generatedAlwaysAs(foldedDocument('business_name', 'description')),
    searchVector: tsvector('search_vector').notNull().generatedAlwaysAs(weightedVector('business_name', 'description')),
  },
  (t) => [
    // One live profile per supplier user; a deleted one stays for the records.
    uniqueIndex('supplier_profiles_user_key').on(t.userId).where(sql`deleted_at is null`),
    index('supplier_profiles_status_idx').on(t.verificationStatus, t.createdAt),
    index('supplier_profiles_kyc_idx').on(t.kycStatus, t.updatedAt),
    index('supplier_profiles_city_idx').on(sql`lower(${t.city})`),
    // Listings sorted by name (see nameOrderKey).
    index('supplier_profiles_name_order_idx').on(nameOrderKey(t.businessName), t.id).where(sql`deleted_at is null`),
    // Search: words (full text) and typos (trigrams) over name and description.
    index('supplier_profiles_search_vector_idx').using('gin', t.searchVector),
    index('supplier_profiles_search_trgm_idx').using('gin', t.searchDoc.op('gin_trgm_ops')),
    // Nearby: earthdistance's cube of the position, searched with earth_box and ordered by `<->`.
    index('supplier_profiles_earth_idx').using('gist', t.earth),
  ],
);

/** Every change of a supplier's commission rate: who, when, from what to what, and why. Append-only. */
export const supplierCommissionChanges = pgTable(
  'supplier_commission_changes',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    actorId: uuid('actor_id')
      .notNull()
      .references(() => users.id),
    oldRateBps: integer('old_rate_bps').notNull(),
    newRateBps: integer('new_rate_bps').notNull(),
    reason: text('reason'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('supplier_commission_changes_supplier_idx').on(t.supplierId, t.createdAt)],
);
