import { sql } from 'drizzle-orm';
import {
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { nameOrderKey } from '../folding.js';
import { cube, earthOf, foldedDocument, tsvector, weightedVector } from '../search-columns.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const ASSOCIATION_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;
export type AssociationStatus = (typeof ASSOCIATION_STATUSES)[number];

/** What an association can take in: the closed list donors and searches filter on (docs/associations.md). */
export const NEED_CATEGORIES = [
  'FRUITS_VEGETABLES',
  'BAKERY',
  'DAIRY',
  'MEAT_FISH',
  'DRY_GOODS',
  'PREPARED_MEALS',
  'BEVERAGES',
  'BABY_FOOD',
  'HYGIENE',
] as const;
export type NeedCategory = (typeof NEED_CATEGORIES)[number];

export const ASSOCIATION_DOCUMENT_KINDS = [
  'REGISTRATION_CERTIFICATE',
  'STATUTES',
  'REPRESENTATIVE_ID',
  'OTHER',
] as const;
export type AssociationDocumentKind = (typeof ASSOCIATION_DOCUMENT_KINDS)[number];

/** A charity's profile: one per ASSOCIATION user, public only once verified. */
export const associations = pgTable(
  'associations',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    registrationNumber: text('registration_number').notNull(),
    mission: text('mission').notNull().default(''),
    categories: text('categories').array().$type<NeedCategory[]>().notNull(),
    address: text('address').notNull(),
    city: text('city').notNull(),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    contactPhone: text('contact_phone').notNull(),
    contactEmail: text('contact_email'),
    // What one pickup can carry away, in kilograms.
    pickupCapacityKg: integer('pickup_capacity_kg').notNull(),
    payoutPhone: text('payout_phone'),
    status: text('status').$type<AssociationStatus>().notNull().default('PENDING'),
    rejectionReason: text('rejection_reason'),
    verifiedAt: ts('verified_at'),
    // When the profile last entered PENDING: the review queue's order.
    submittedAt: ts('submitted_at').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    // What the public listings read (see search-columns.ts).
    earth: cube('earth').notNull().generatedAlwaysAs(earthOf('latitude', 'longitude')),
    searchDoc: text('search_doc')
      .notNull()
      .generatedAlwaysAs(foldedDocument('name', 'mission', 'city')),
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(weightedVector('name', 'mission', 'city')),
  },
  (t) => [
    uniqueIndex('associations_user_key').on(t.userId),
    index('associations_status_idx').on(t.status, t.submittedAt),
    // The public lists' orders: by name, and newest verification first.
    index('associations_name_order_idx').on(nameOrderKey(t.name), t.id).where(sql`status = 'VERIFIED'`),
    index('associations_verified_order_idx').on(t.verifiedAt.desc(), t.id.desc()).where(sql`status = 'VERIFIED'`),
    index('associations_search_vector_idx').using('gin', t.searchVector),
    index('associations_search_trgm_idx').using('gin', t.searchDoc.op('gin_trgm_ops')),
    // Nearby reads only verified associations: the index holds only them.
    index('associations_earth_idx').using('gist', t.earth).where(sql`status = 'VERIFIED'`),
  ],
);

/** Files an association gives the administrators to check it (private, read through signed links). */
export const associationDocuments = pgTable(
  'association_documents',
  {
    id: uuid('id').primaryKey(),
    associationId: uuid('association_id')
      .notNull()
      .references(() => associations.id),
    kind: text('kind').$type<AssociationDocumentKind>().notNull(),
    storageKey: text('storage_key').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('association_documents_association_idx').on(t.associationId, t.createdAt),
    uniqueIndex('association_documents_storage_key').on(t.storageKey),
  ],
);

/** An activity report, public with its association. */
export const associationReports = pgTable(
  'association_reports',
  {
    id: uuid('id').primaryKey(),
    associationId: uuid('association_id')
      .notNull()
      .references(() => associations.id),
    title: text('title').notNull(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    periodEnd: date('period_end', { mode: 'string' }).notNull(),
    body: text('body').notNull(),
    mealsServed: integer('meals_served'),
    peopleHelped: integer('people_helped'),
    pdfKey: text('pdf_key'),
    pdfSizeBytes: integer('pdf_size_bytes'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('association_reports_association_idx').on(t.associationId, t.periodEnd, t.id)],
);
