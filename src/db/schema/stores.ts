import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { nameOrderKey } from '../folding.js';
import { cube, earthOf, foldedDocument, tsvector, weightedVector } from '../search-columns.js';
import { supplierProfiles, type OpeningHours } from './suppliers.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const stores = pgTable(
  'stores',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    address: text('address').notNull(),
    city: text('city').notNull(),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    phone: text('phone'),
    openingHours: jsonb('opening_hours').$type<OpeningHours>().notNull().default({}),
    timezone: text('timezone').notNull().default('Africa/Dakar'),
    pickupInstructions: text('pickup_instructions'),
    isActive: boolean('is_active').notNull().default(true),
    // Whether the public may see the supplier (the rule of supplier-visibility.ts), kept by
    // triggers on stores, supplier_profiles and users (migration 0012_listings), so public lists filter on a
    // column instead of joining two tables for every row they read.
    supplierPublic: boolean('supplier_public').notNull().default(false),
    // A temporary closure is all three or none; the store is closed while starts <= now < ends.
    closureStartsAt: ts('closure_starts_at'),
    closureEndsAt: ts('closure_ends_at'),
    closureReason: text('closure_reason'),
    // What the public listings read (see search-columns.ts): the position as a cube, the folded
    // text for trigrams and the weighted words (name, then description, then city).
    earth: cube('earth').notNull().generatedAlwaysAs(earthOf('latitude', 'longitude')),
    searchDoc: text('search_doc')
      .notNull()
      .generatedAlwaysAs(foldedDocument('name', 'description', 'city')),
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(weightedVector('name', 'description', 'city')),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    // Deleted stores are kept for the records (orders, bookings) that point at them.
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('stores_supplier_idx').on(t.supplierId, t.createdAt).where(sql`deleted_at is null`),
    index('stores_city_idx').on(sql`lower(city)`).where(sql`deleted_at is null`),
    // Listings sorted by name (see nameOrderKey).
    index('stores_name_order_idx').on(nameOrderKey(t.name), t.id).where(sql`deleted_at is null`),
    index('stores_earth_idx').using('gist', t.earth).where(sql`deleted_at is null and is_active and supplier_public`),
    index('stores_search_trgm_idx').using('gin', t.searchDoc.op('gin_trgm_ops')),
    index('stores_search_vector_idx').using('gin', t.searchVector),
    // The stores in a temporary closure now: the product lists leave their products out.
    index('stores_closure_idx').on(t.closureEndsAt).where(sql`closure_starts_at is not null`),
  ],
);
