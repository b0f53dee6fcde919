import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { nameOrderKey } from '../folding.js';
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
    // A temporary closure is all three or none; the store is closed while starts <= now < ends.
    closureStartsAt: ts('closure_starts_at'),
    closureEndsAt: ts('closure_ends_at'),
    closureReason: text('closure_reason'),
    // What text search reads: one lower-cased document, indexed for full-text and trigram matching.
    searchText: text('search_text').generatedAlwaysAs(sql`lower(name || ' ' || description || ' ' || city)`),
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
    index('stores_location_idx').using('gist', sql`ll_to_earth(latitude, longitude)`),
    index('stores_search_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('stores_search_fts_idx').using('gin', sql`to_tsvector('simple', search_text)`),
  ],
);
