import { and, arrayContains, asc, count, desc, eq, gt, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { chordToMetres, earthPoint, textMatch } from '../../db/listing-sql.js';
import { productImages, productSearches, products } from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';
import type { DietaryTag, ProductCategory } from '../products/product-catalog.js';
import { isPublicProduct } from '../products/product-visibility.js';
import { LISTING_TOTAL_CAP, RANKED_CANDIDATES_CAP, TYPO_FALLBACK_BELOW, listingMeta, metaOf, nearestPage, type ListingMeta, type SearchTerms } from '../../shared/listing-page.js';
import { openAtSql } from '../../shared/opening-hours.js';
import type { PageQuery } from '../../shared/schemas.js';
import type { ProductSort } from './product-search.schemas.js';

// Public product lists over the stored columns (DESIGN section 8): `location` (the store's cube,
// GiST), `search_vector` (GIN) and `search_document` (GIN trigram). Same shape as the store lists.

/** What a list card reads: the product's card fields, the store's name and the first picture. */
const card = {
  id: products.id,
  name: products.name,
  originalPrice: products.originalPrice,
  discountedPrice: products.discountedPrice,
  discountPercent: products.discountPercent,
  currency: products.currency,
  expiresAt: products.expiresAt,
  storeId: products.storeId,
  storeName: sql<string>`${stores.name}`.as('store_name'),
  thumbnailKey: sql<string | null>`(select i.thumbnail_key from ${productImages} i where i.product_id = ${products.id} order by i.position limit 1)`.as('thumbnail_key'),
};
export interface CardRow {
  id: string;
  name: string;
  originalPrice: number;
  discountedPrice: number;
  discountPercent: number;
  currency: string;
  expiresAt: Date;
  storeId: string;
  storeName: string;
  thumbnailKey: string | null;
  distanceM?: number;
}

export interface ProductFilter {
  terms: SearchTerms | null;
  category?: ProductCategory;
  minPrice?: number;
  maxPrice?: number;
  storeId?: string;
  supplierId?: string;
  city?: string;
  dietaryTags?: DietaryTag[];
  minDiscount?: number;
  expiresBefore?: Date;
  inStock?: boolean;
  openNow?: boolean;
  point?: { latitude: number; longitude: number; radiusM: number };
  sort: ProductSort;
}

function filters(f: ProductFilter, now: Date): SQL {
  return and(
    isPublicProduct(now),
    f.category ? eq(products.category, f.category) : undefined,
    f.minPrice !== undefined ? gte(products.discountedPrice, f.minPrice) : undefined,
    f.maxPrice !== undefined ? lte(products.discountedPrice, f.maxPrice) : undefined,
    f.storeId ? eq(products.storeId, f.storeId) : undefined,
    f.supplierId ? eq(products.supplierId, f.supplierId) : undefined,
    f.city ? sql`lower(${stores.city}) = ${f.city.toLowerCase()}` : undefined,
    f.dietaryTags?.length ? arrayContains(products.dietaryTags, f.dietaryTags) : undefined,
    f.minDiscount !== undefined ? gte(products.discountPercent, f.minDiscount) : undefined,
    f.expiresBefore ? lte(products.expiresAt, f.expiresBefore) : undefined,
    f.inStock === undefined ? undefined : f.inStock ? gt(products.quantity, 0) : eq(products.quantity, 0),
    f.openNow === undefined ? undefined : sql`${f.openNow ? sql`` : sql`not `}${openAtSql(stores.openingHours, stores.timezone, now)}`,
  )!;
}

const ORDERS: Record<Exclude<ProductSort, 'relevance' | 'distance'>, SQL[]> = {
  price: [asc(products.discountedPrice), asc(products.id)],
  '-price': [desc(products.discountedPrice), asc(products.id)],
  newest: [desc(products.createdAt), desc(products.id)],
  expiry: [asc(products.expiresAt), asc(products.id)],
  popularity: [desc(products.popularityScore), asc(products.id)],
  discount: [desc(products.discountPercent), asc(products.id)],
};

const base = (ex: Executor, fields: Record<string, unknown>) =>
  ex
    .select(fields as typeof card & { d: SQL.Aliased<number> })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId));

async function countCapped(ex: Executor, where: SQL | undefined, cap = LISTING_TOTAL_CAP): Promise<number> {
  const sub = ex.select({ one: sql`1`.as('one') }).from(products).innerJoin(stores, eq(stores.id, products.storeId)).where(where).limit(cap + 1).as('c');
  const [row] = await ex.select({ n: count() }).from(sub);
  return row?.n ?? 0;
}

export async function searchProducts(ex: Executor, f: ProductFilter, now: Date, q: PageQuery): Promise<{ items: CardRow[]; meta: ListingMeta }> {
  let where = filters(f, now);
  const origin = f.point ? earthPoint(f.point.latitude, f.point.longitude) : undefined;
  const d = origin ? sql<number>`(${products.location} <-> ${origin})`.mapWith(Number) : sql<number>`null`;
  const fields = { ...card, d: d.as('d') };
  if (f.terms) {
    const m = textMatch(products.searchVector, products.searchDocument, f.terms);
    const fts = (await countCapped(ex, and(where, m.fts), TYPO_FALLBACK_BELOW)) >= TYPO_FALLBACK_BELOW;
    where = and(where, fts ? m.fts : m.typo)!;
    if (f.sort === 'relevance') return withinRadius(f, await rankedPage(ex, where, fts ? m.ftsRank : m.typoRank, fields, q, f.point));
  }
  if (f.point && f.sort === 'distance') {
    const point = f.point;
    return nearestPage(
      q,
      point.radiusM,
      (n) => base(ex, fields).where(where).orderBy(d).limit(n),
      (dist) => base(ex, fields).where(and(where, sql`earth_box(${origin}, ${point.radiusM}::float8) @> ${products.location}`, sql`${d} = ${dist}::float8`)),
    );
  }
  const box = sql`earth_box(${origin}, ${f.point?.radiusM}::float8) @> ${products.location}`;
  if (f.point) where = and(where, box, sql`earth_distance(${origin}, ${products.location}) <= ${f.point.radiusM}::float8`)!;
  const order = ORDERS[f.sort as keyof typeof ORDERS] ?? ORDERS.newest;
  const rows = await base(ex, fields).where(where).orderBy(...order).limit(q.limit + 1).offset((q.page - 1) * q.limit);
  const meta = await listingMeta(q, rows.length, () => countCapped(ex, where));
  return withinRadius(f, { items: rows.slice(0, q.limit), meta });
}

/** Adds the distance to the point (from the cube distance) to the rows that have one. */
function withinRadius(f: ProductFilter, found: { items: { d?: number | null }[]; meta: ListingMeta }) {
  return { items: found.items.map((r) => ({ ...(r as CardRow), distanceM: r.d == null ? undefined : chordToMetres(r.d) })), meta: found.meta };
}

/** The first RANKED_CANDIDATES_CAP matches, ranked, one page of them. */
async function rankedPage(ex: Executor, where: SQL, rank: SQL, fields: Record<string, unknown>, q: PageQuery, point: ProductFilter['point']) {
  const radius = point ? and(sql`earth_box(${earthPoint(point.latitude, point.longitude)}, ${point.radiusM}::float8) @> ${products.location}`, sql`earth_distance(${earthPoint(point.latitude, point.longitude)}, ${products.location}) <= ${point.radiusM}::float8`) : undefined;
  // The first picture only for the page's rows, not for every candidate.
  const { thumbnailKey: _thumbnail, ...candidateFields } = fields as typeof card;
  const cand = ex.$with('cand').as(
    base(ex, { ...candidateFields, rank: sql<number>`${rank}`.as('rank') })
      .where(and(where, radius))
      .limit(RANKED_CANDIDATES_CAP + 1),
  );
  const rows = await ex
    .with(cand)
    .select({
      ...cand._.selectedFields,
      thumbnailKey: sql<string | null>`(select i.thumbnail_key from ${productImages} i where i.product_id = cand.id order by i.position limit 1)`,
      counted: sql<number>`(select count(*) from cand)`.mapWith(Number),
    })
    .from(cand)
    .orderBy(sql`rank desc`, sql`id asc`)
    .limit(q.limit + 1)
    .offset((q.page - 1) * q.limit);
  const counted = rows[0]?.counted ?? (q.page > 1 ? await countCapped(ex, and(where, radius), RANKED_CANDIDATES_CAP) : 0);
  return { items: rows.slice(0, q.limit), meta: metaOf(q, counted, rows.length > q.limit, RANKED_CANDIDATES_CAP) };
}

/** Public products expiring within `until`, soonest first, optionally within a radius. */
export async function expiringSoon(ex: Executor, now: Date, until: Date, point: ProductFilter['point'], q: PageQuery) {
  return searchProducts(ex, { terms: null, expiresBefore: until, point, sort: 'expiry' }, now, q);
}

// ---- recorded searches

export interface SearchCount {
  day: string;
  query: string;
  searches: number;
  zeroResultSearches: number;
}

/** Adds a batch of counted searches to their day's rows. */
export async function addSearches(ex: Executor, batch: SearchCount[]): Promise<void> {
  if (!batch.length) return;
  await ex
    .insert(productSearches)
    .values(batch)
    .onConflictDoUpdate({
      target: [productSearches.day, productSearches.query],
      set: {
        searches: sql`${productSearches.searches} + excluded.searches`,
        zeroResultSearches: sql`${productSearches.zeroResultSearches} + excluded.zero_result_searches`,
      },
    });
}

/** The most searched words between two UTC days (inclusive), and the most searched that found nothing. */
export async function topSearches(ex: Executor, from: string, to: string, limit: number) {
  const inPeriod = and(gte(productSearches.day, from), lte(productSearches.day, to));
  const searches = sql<number>`sum(${productSearches.searches})`.mapWith(Number);
  const zero = sql<number>`sum(${productSearches.zeroResultSearches})`.mapWith(Number);
  const [top, nothing] = await Promise.all([
    ex.select({ query: productSearches.query, searches, zeroResultSearches: zero }).from(productSearches).where(inPeriod).groupBy(productSearches.query).orderBy(desc(searches), asc(productSearches.query)).limit(limit),
    ex
      .select({ query: productSearches.query, searches: zero })
      .from(productSearches)
      .where(and(inPeriod, gt(productSearches.zeroResultSearches, 0)))
      .groupBy(productSearches.query)
      .orderBy(desc(zero), asc(productSearches.query))
      .limit(limit),
  ]);
  return { top, nothing };
}
