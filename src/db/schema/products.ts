import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { Allergen, DietaryTag, ProductCategory } from '../../modules/products/product-catalog.js';
import { stores } from './stores.js';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';
import { tsvector } from '../search-columns.js';
import { nameOrderKey } from '../folding.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * earthdistance's `earth` (a cube of the point on the Earth's surface). Stored rather than computed
 * per row with ll_to_earth, which costs on every row a query reads. Never read back as a value:
 * queries compare it with earth_box / earth_distance.
 */
export const earth = customType<{ data: string; driverData: string }>({ dataType: () => 'earth' });

export const PRODUCT_STATUSES = ['PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'INACTIVE', 'EXPIRED', 'DELETED'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    category: text('category').$type<ProductCategory>().notNull(),
    // Whole XOF (no minor unit); discountedPrice < originalPrice is checked below.
    originalPrice: integer('original_price').notNull(),
    discountedPrice: integer('discounted_price').notNull(),
    currency: text('currency').notNull().default('XOF'),
    // Derived, stored so lists can filter and sort on it through an index.
    discountPercent: integer('discount_percent')
      .notNull()
      .generatedAlwaysAs(sql`((original_price - discounted_price)::bigint * 100 / original_price)::integer`),
    // Available stock; units in open orders are moved to reserved, then to sold at pickup.
    quantity: integer('quantity').notNull(),
    reservedQuantity: integer('reserved_quantity').notNull().default(0),
    soldQuantity: integer('sold_quantity').notNull().default(0),
    unitWeightGrams: integer('unit_weight_grams').notNull(),
    expiresAt: ts('expires_at').notNull(),
    // Pickup window as local times of the store's day ("HH:MM", in the store's time zone).
    pickupStart: text('pickup_start').notNull(),
    pickupEnd: text('pickup_end').notNull(),
    dietaryTags: text('dietary_tags').array().$type<DietaryTag[]>().notNull().default(sql`'{}'::text[]`),
    allergens: text('allergens').array().$type<Allergen[]>().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<ProductStatus>().notNull().default('PENDING_REVIEW'),
    // On the public lists: ACTIVE, its store live and active, its supplier public. Kept by triggers
    // (migration 0021_products_listed_triggers) from every write, as stores.supplier_public is; the expiry and
    // a store's temporary closure, which come with time, are checked when reading.
    listed: boolean('listed').notNull().default(false),
    rejectionReason: text('rejection_reason'),
    // Counters: views are flushed in batches, favourites and sales kept with their rows.
    viewsCount: integer('views_count').notNull().default(0),
    favoritesCount: integer('favorites_count').notNull().default(0),
    salesCount: integer('sales_count').notNull().default(0),
    popularityScore: doublePrecision('popularity_score').notNull().default(0),
    // Filled by reviews.
    ratingAverage: doublePrecision('rating_average').notNull().default(0),
    ratingCount: integer('rating_count').notNull().default(0),
    // The store's position (ll_to_earth of its latitude/longitude), kept in step by a trigger on stores.
    location: earth('location').notNull(),
    // What a list card shows of the product's store and pictures, kept by triggers from every write
    // (migration 0034_product_cards): the store's name and the first picture's thumbnail key.
    storeName: text('store_name').notNull().default(''),
    thumbnailKey: text('thumbnail_key'),
    // The card of the public lists as JSON text (its own fields, the store's name), computed when the
    // row is written so a list reads one column instead of building the object for every row it
    // shows (product_card in migration 0034; the lists add the picture's URL and the distance).
    card: text('card')
      .notNull()
      .generatedAlwaysAs(
        sql`product_card(id, name, original_price, discounted_price, currency, expires_at, store_id, store_name)`,
      ),
    // Folded words search reads (see products.search-document.ts); indexed by the search module.
    searchDocument: text('search_document').notNull().default(''),
    // The same words, weighted (name A, the rest B), for the GIN full-text index of product search.
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(name))), 'A') || setweight(to_tsvector('simple'::regconfig, search_document), 'B')`,
      ),
    publishedAt: ts('published_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    check('products_prices', sql`discounted_price >= 0 and original_price > 0 and discounted_price < original_price`),
    check('products_quantity', sql`quantity >= 0`),
    check('products_reserved_sold', sql`reserved_quantity >= 0 and sold_quantity >= 0`),
    index('products_supplier_idx').on(t.supplierId, t.createdAt).where(sql`status <> 'DELETED'`),
    index('products_store_idx').on(t.storeId).where(sql`status <> 'DELETED'`),
    // Moderation queue (oldest first) and admin lists by status, in their whole order (the id breaks ties),
    // so a page's ids are read from the index alone, however deep the page.
    index('products_status_idx').on(t.status, t.createdAt, t.id),
    // The administrators' list of every product, newest first (its default) or by name, both ways.
    index('products_created_idx').on(t.createdAt, t.id).where(sql`status <> 'DELETED'`),
    index('products_name_order_idx').on(nameOrderKey(t.name), t.id).where(sql`status <> 'DELETED'`),
    // The expiry job.
    index('products_active_expiry_idx').on(t.expiresAt).where(sql`status = 'ACTIVE'`),
    // The public lists (src/modules/product-search): one partial index per order, over listed
    // products only, so a page reads about `limit` rows in its order (docs/product-search.md).
    index('products_listed_earth_idx').using('gist', t.location).where(sql`listed`),
    index('products_listed_search_vector_idx').using('gin', t.searchVector).where(sql`listed`),
    index('products_listed_search_trgm_idx').using('gin', t.searchDocument.op('gin_trgm_ops')).where(sql`listed`),
    index('products_listed_newest_idx').on(t.createdAt, t.id).where(sql`listed`),
    index('products_listed_expiry_idx').on(t.expiresAt, t.id).where(sql`listed`),
    index('products_listed_popularity_idx').on(t.popularityScore.desc().nullsFirst(), t.id).where(sql`listed`),
    index('products_listed_price_idx').on(t.discountedPrice, t.id).where(sql`listed`),
    index('products_listed_price_desc_idx').on(t.discountedPrice.desc().nullsFirst(), t.id).where(sql`listed`),
    index('products_listed_discount_idx').on(t.discountPercent.desc().nullsFirst(), t.id).where(sql`listed`),
  ],
);

/** Pictures of a product, in order; each stored in two sizes. Rows go with the product. */
export const productImages = pgTable(
  'product_images',
  {
    id: uuid('id').primaryKey(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    thumbnailKey: text('thumbnail_key').notNull(),
    largeKey: text('large_key').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('product_images_position_key').on(t.productId, t.position)],
);

export const productFavorites = pgTable(
  'product_favorites',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.productId] }),
    index('product_favorites_user_idx').on(t.userId, t.createdAt),
  ],
);

/** "Notify me": a user follows a store and hears when it publishes a product. */
export const storeFollows = pgTable(
  'store_follows',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.storeId] }), index('store_follows_store_idx').on(t.storeId)],
);

/**
 * A product's activity per UTC day, what the popularity score decays over (docs/product-search.md):
 * views from the batched flush, net favourites, sales once orders exist.
 */
export const productActivityDaily = pgTable(
  'product_activity_daily',
  {
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    views: integer('views').notNull().default(0),
    favourites: integer('favourites').notNull().default(0),
    sales: integer('sales').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.day] }), index('product_activity_daily_day_idx').on(t.day)],
);

/**
 * Product searches per UTC day and normalised words (folded, single-spaced; no user), for the top
 * searches of the admin: written in batches from memory, like views.
 */
export const productSearches = pgTable(
  'product_searches',
  {
    day: date('day', { mode: 'string' }).notNull(),
    query: text('query').notNull(),
    searches: integer('searches').notNull().default(0),
    zeroResultSearches: integer('zero_result_searches').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.query] })],
);

/**
 * Every word products' names and descriptions have had (the lexemes of `products.search_vector`),
 * kept by a trigger on products (migration 0035_search_lexemes) and never removed: what the search
 * takes as spelt right. Its key is in the "C" collation, so a prefix is a range of the index.
 */
export const productSearchLexemes = pgTable('product_search_lexemes', {
  lexeme: text('lexeme').primaryKey(),
});
