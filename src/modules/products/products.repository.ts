import { and, asc, count, desc, eq, getTableColumns, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { opaque, preparedPer, together, type Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import { listedColumns } from '../../listings/index.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import {
  productActivityDaily,
  productFavorites,
  productImages,
  products,
  storeFollows,
  type ProductStatus,
} from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import type { PageQuery, SortOf } from '../../shared/schemas.js';
import { pageOffset } from '../../shared/schemas.js';
import { foldText } from './product-search-document.js';
import { COUNTED_STATUSES } from './product-status.js';
import { isPublicSupplier } from '../suppliers/index.js';
import { isPublicProduct } from './product-visibility.js';
import { productPageJson, type ProductPageReviews } from './products.json-sql.js';
import type { ProductSortField } from './products.schemas.js';

// Every column but the stored position and search words, which only queries read.
// What the lists alone read (their words, position and card) is left out of the product's record.
const {
  location: _location,
  searchDocument: _searchDocument,
  searchVector: _searchVector,
  card: _card,
  storeName: _storeName,
  thumbnailKey: _thumbnailKey,
  ...productColumns
} = getTableColumns(products);
export type ProductRecord = Omit<
  typeof products.$inferSelect,
  'location' | 'searchDocument' | 'searchVector' | 'card' | 'storeName' | 'thumbnailKey'
>;
export type NewProduct = Omit<typeof products.$inferInsert, 'location' | 'storeName' | 'thumbnailKey'>;
export type ImageRecord = typeof productImages.$inferSelect;

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const live = ne(products.status, 'DELETED');
const uuidArray = (ids: readonly string[]) => sql`${`{${ids.join(',')}}`}::uuid[]`;

export async function insertProduct(
  ex: Executor,
  values: NewProduct,
  at: { latitude: number; longitude: number },
): Promise<ProductRecord> {
  const location = sql`ll_to_earth(${at.latitude}::float8, ${at.longitude}::float8)`;
  const [row] = await ex
    .insert(products)
    .values({ ...values, location: location as unknown as string })
    .returning(productColumns);
  return row!;
}

/** A product that is not deleted; `lock` takes its row until the transaction ends. */
export async function findProduct(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ProductRecord | undefined> {
  const q = ex
    .select(productColumns)
    .from(products)
    .where(and(eq(products.id, id), live))
    .limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function findProductsForUpdate(ex: Executor, ids: string[]): Promise<ProductRecord[]> {
  return ex
    .select(productColumns)
    .from(products)
    .where(and(inArray(products.id, ids), live))
    .orderBy(asc(products.id))
    .for('update');
}

export async function updateProduct(
  ex: Executor,
  id: string,
  patch: Partial<NewProduct>,
  at?: { latitude: number; longitude: number },
): Promise<ProductRecord> {
  const location = at && sql`ll_to_earth(${at.latitude}::float8, ${at.longitude}::float8)`;
  const [row] = await ex
    .update(products)
    .set({ ...patch, ...(location && { location: location as unknown as string }) })
    .where(eq(products.id, id))
    .returning(productColumns);
  return row!;
}

/** Products that count against the plan: not expired, not deleted (see COUNTED_STATUSES). */
export async function countCounted(ex: Executor, supplierId: string, now: Date): Promise<number> {
  const [row] = await ex
    .select({ n: count() })
    .from(products)
    .where(
      and(
        eq(products.supplierId, supplierId),
        inArray(products.status, [...COUNTED_STATUSES]),
        sql`${products.expiresAt} > ${ts(now)}`,
      ),
    );
  return row?.n ?? 0;
}

/**
 * Sets or moves the stock in one statement, so concurrent corrections add up and none takes it
 * below zero. Undefined when the product is gone or the change would go below zero.
 */
export async function changeStock(
  ex: Executor,
  id: string,
  change: { quantity: number } | { delta: number },
  now: Date,
) {
  const value = 'quantity' in change ? sql`${change.quantity}::int` : sql`${products.quantity} + ${change.delta}::int`;
  const [row] = await ex
    .update(products)
    .set({ quantity: value as unknown as number, updatedAt: now })
    .where(and(eq(products.id, id), live, sql`${value} >= 0`))
    .returning(productColumns);
  return row;
}

interface ListFilters {
  supplierId?: string;
  storeId?: string;
  status?: ProductStatus;
  category?: string;
  q?: string;
}

function listConditions(f: ListFilters): SQL | undefined {
  const words = f.q ? foldText(f.q).split(/\s+/).filter(Boolean) : [];
  return and(
    live,
    f.supplierId ? eq(products.supplierId, f.supplierId) : undefined,
    f.storeId ? eq(products.storeId, f.storeId) : undefined,
    f.status ? eq(products.status, f.status) : undefined,
    f.category ? eq(products.category, f.category as ProductRecord['category']) : undefined,
    ...words.map((w) => sql`${products.searchDocument} like ${`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`),
  );
}

const SORT_KEYS: Record<ProductSortField, SortKey> = {
  createdAt: products.createdAt,
  updatedAt: products.updatedAt,
  publishedAt: products.publishedAt,
  expiresAt: products.expiresAt,
  name: nameOrderKey(products.name),
  status: byteOrderKey(products.status),
  category: byteOrderKey(products.category),
  originalPrice: products.originalPrice,
  discountedPrice: products.discountedPrice,
  discountPercent: products.discountPercent,
  quantity: products.quantity,
  salesCount: products.salesCount,
  viewsCount: products.viewsCount,
  favoritesCount: products.favoritesCount,
};

/**
 * Newest first unless sorted otherwise (the moderation queue: oldest first), with the total. The page's
 * ids are picked first and its rows read after: filtered on a status alone in the queue's order, the ids
 * come from products_status_idx without reading the rows of the pages before, whose offset is all read.
 */
export async function listProducts(
  ex: Executor,
  f: ListFilters,
  page: PageQuery,
  sort: SortOf<ProductSortField> = '-createdAt',
) {
  const where = listConditions(f);
  const order = toOrderBy(sort, SORT_KEYS, products.id);
  const ids = ex
    .select({ id: products.id })
    .from(products)
    .where(where)
    .orderBy(...order)
    .limit(page.limit)
    .offset(pageOffset(page));
  const [items, [total]] = await together(ex, [
    () =>
      ex
        .select(productColumns)
        .from(products)
        .where(inArray(products.id, ids))
        .orderBy(...order),
    () => ex.select({ n: count() }).from(products).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- pictures

export async function imagesOf(ex: Executor, productIds: string[]): Promise<Map<string, ImageRecord[]>> {
  const out = new Map<string, ImageRecord[]>(productIds.map((id) => [id, []]));
  if (!productIds.length) return out;
  const rowsFound = await ex
    .select()
    .from(productImages)
    .where(inArray(productImages.productId, productIds))
    .orderBy(asc(productImages.position));
  for (const r of rowsFound) out.get(r.productId)!.push(r);
  return out;
}

export async function insertImages(ex: Executor, values: (typeof productImages.$inferInsert)[]): Promise<void> {
  if (values.length) await ex.insert(productImages).values(values);
}

export async function deleteImage(ex: Executor, productId: string, imageId: string): Promise<ImageRecord | undefined> {
  const [row] = await ex
    .delete(productImages)
    .where(and(eq(productImages.id, imageId), eq(productImages.productId, productId)))
    .returning();
  return row;
}

export async function deleteImagesOf(ex: Executor, productId: string): Promise<ImageRecord[]> {
  return ex.delete(productImages).where(eq(productImages.productId, productId)).returning();
}

// ---- public page

// The public page of a product: the bench's detail route, so prepared once per handle. `extra`: a
// column another module adds to the page (the reviews' summary and latest), so the page stays one
// statement and one round trip.
export const publicDetailStatement = (reviews?: ProductPageReviews) =>
  preparedPer((ex) => {
    const at = opaque(sql`${sql.placeholder('now')}::timestamptz`);
    const files = sql`${sql.placeholder('files')}::text`;
    return ex
      .select({
        // The page as its view shows it (ProductDetailSchema: productFieldsView, the store's
        // toStoreView, the supplier's summary, the pictures, the reviews' part), written as JSON text
        // by the database and sent as it is: parsing it, copying it into the view and serializing it
        // again cost the server more than the query did. The decayed popularity (popularityAt) is
        // added by the application, from the stored score. A null user (anonymous) is never a favourite's.
        page: productPageJson(at, files, reviews),
        popularityScore: products.popularityScore,
      })
      .from(products)
      .innerJoin(stores, eq(stores.id, products.storeId))
      .innerJoin(supplierProfiles, eq(supplierProfiles.id, products.supplierId))
      .where(and(eq(products.id, sql.placeholder('id')), isPublicProduct(sql`${sql.placeholder('now')}::timestamptz`)))
      .limit(1)
      .prepare('product_public_page');
  });
export type { ProductPageReviews } from './products.json-sql.js';

/** The product page as JSON text (without its popularity) and the stored popularity score: one query. */
export async function findPublicDetail(
  statement: ReturnType<typeof publicDetailStatement>,
  ex: Executor,
  id: string,
  userId: string | null,
  now: Date,
  files: string,
) {
  const [row] = await statement(ex).execute({ id, userId, now: now.toISOString(), files });
  return row;
}

export async function isPublic(ex: Executor, id: string, now: Date): Promise<boolean> {
  const [row] = await ex
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.id, id), isPublicProduct(now)))
    .limit(1);
  return row !== undefined;
}

/** Adds batched view counts: one statement for the whole batch. */
export async function addViews(ex: Executor, counts: Map<string, number>, now: Date): Promise<void> {
  if (!counts.size) return;
  const ids = [...counts.keys()];
  const ns = `{${[...counts.values()].join(',')}}`;
  await ex.execute(sql`update ${products} p set views_count = p.views_count + v.n
    from unnest(${uuidArray(ids)}, ${ns}::int[]) as v(id, n) where p.id = v.id`);
  // The day's activity, for the popularity score (only products that still exist).
  await ex.execute(sql`insert into ${productActivityDaily} (product_id, day, views)
    select v.id, ${utcDay(now)}::date, v.n from unnest(${uuidArray(ids)}, ${ns}::int[]) as v(id, n)
    where exists (select 1 from ${products} p where p.id = v.id)
    on conflict (product_id, day) do update set views = ${productActivityDaily.views} + excluded.views`);
}

/** The UTC day of an instant, as the activity table keys it. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** Adds to a product's activity of the day (favourites net of removals; sales from orders). */
export async function addActivity(
  ex: Executor,
  productId: string,
  now: Date,
  d: { favourites?: number; sales?: number },
): Promise<void> {
  const favourites = d.favourites ?? 0;
  const sales = d.sales ?? 0;
  await ex
    .insert(productActivityDaily)
    .values({ productId, day: utcDay(now), favourites, sales })
    .onConflictDoUpdate({
      target: [productActivityDaily.productId, productActivityDaily.day],
      set: {
        favourites: sql`${productActivityDaily.favourites} + ${favourites}`,
        sales: sql`${productActivityDaily.sales} + ${sales}`,
      },
    });
}

// ---- favourites

/** True when the favourite is new (the counter moves only then). */
export async function addFavorite(ex: Executor, userId: string, productId: string, now: Date): Promise<boolean> {
  const added = await ex
    .insert(productFavorites)
    .values({ userId, productId, createdAt: now })
    .onConflictDoNothing()
    .returning();
  if (added.length) {
    await ex
      .update(products)
      .set({ favoritesCount: sql`${products.favoritesCount} + 1` })
      .where(eq(products.id, productId));
    await addActivity(ex, productId, now, { favourites: 1 });
  }
  return added.length > 0;
}

export async function removeFavorite(ex: Executor, userId: string, productId: string, now: Date): Promise<boolean> {
  const removed = await ex
    .delete(productFavorites)
    .where(and(eq(productFavorites.userId, userId), eq(productFavorites.productId, productId)))
    .returning();
  if (removed.length) {
    await ex
      .update(products)
      .set({ favoritesCount: sql`greatest(${products.favoritesCount} - 1, 0)` })
      .where(eq(products.id, productId));
    await addActivity(ex, productId, now, { favourites: -1 });
  }
  return removed.length > 0;
}

export async function deleteFavoritesOf(ex: Executor, productId: string): Promise<void> {
  await ex.delete(productFavorites).where(eq(productFavorites.productId, productId));
}

/** The user's favourites, newest first, as list cards; `available` applies the public rule. */
export async function listFavorites(ex: Executor, userId: string, now: Date, page: PageQuery) {
  const where = and(eq(productFavorites.userId, userId), live);
  const [items, [total]] = await Promise.all([
    ex
      .select({
        product: productColumns,
        storeName: stores.name,
        favoritedAt: productFavorites.createdAt,
        thumbnailKey: sql<
          string | null
        >`(select i.thumbnail_key from ${productImages} i where i.product_id = ${products.id} order by i.position limit 1)`,
        available: sql<boolean>`${isPublicProduct(now)}`,
      })
      .from(productFavorites)
      .innerJoin(products, eq(products.id, productFavorites.productId))
      .innerJoin(stores, eq(stores.id, products.storeId))
      .where(where)
      .orderBy(desc(productFavorites.createdAt), desc(productFavorites.productId))
      .limit(page.limit)
      .offset(pageOffset(page)),
    ex
      .select({ n: count() })
      .from(productFavorites)
      .innerJoin(products, eq(products.id, productFavorites.productId))
      .where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- store follows

export async function addFollow(ex: Executor, userId: string, storeId: string, now: Date): Promise<void> {
  await ex.insert(storeFollows).values({ userId, storeId, createdAt: now }).onConflictDoNothing();
}

export async function removeFollow(ex: Executor, userId: string, storeId: string): Promise<void> {
  await ex.delete(storeFollows).where(and(eq(storeFollows.userId, userId), eq(storeFollows.storeId, storeId)));
}

/** Ids of the users following a store (for "notify me"). */
/** Who a product's announcements concern: its name, its store's and the supplier's account; none once deleted. */
export async function announcementOf(ex: Executor, id: string) {
  const [row] = await ex
    .select({ name: products.name, storeName: stores.name, ownerUserId: supplierProfiles.userId })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId))
    .innerJoin(supplierProfiles, eq(supplierProfiles.id, products.supplierId))
    .where(and(eq(products.id, id), ne(products.status, 'DELETED')))
    .limit(1);
  return row;
}

export async function followersOf(ex: Executor, storeId: string): Promise<string[]> {
  return (
    await ex.select({ userId: storeFollows.userId }).from(storeFollows).where(eq(storeFollows.storeId, storeId))
  ).map((r) => r.userId);
}

/** Products whose expiry has passed and that are still ACTIVE or INACTIVE: the expiry job's work. */
export async function markExpired(ex: Executor, now: Date): Promise<number> {
  const done = await ex
    .update(products)
    .set({ status: 'EXPIRED', updatedAt: now })
    .where(
      and(inArray(products.status, ['ACTIVE', 'INACTIVE', 'PENDING_REVIEW']), sql`${products.expiresAt} <= ${ts(now)}`),
    )
    .returning({ id: products.id });
  return done.length;
}

/** Deletes every product of a supplier or of a store (being deleted); returns their picture keys. */
export async function deleteAllOf(
  ex: Executor,
  owner: { supplierId: string } | { storeId: string },
  at: Date,
): Promise<string[]> {
  const whose = 'supplierId' in owner ? eq(products.supplierId, owner.supplierId) : eq(products.storeId, owner.storeId);
  const gone = await ex
    .update(products)
    .set({ status: 'DELETED', deletedAt: at, updatedAt: at })
    .where(and(whose, live))
    .returning({ id: products.id });
  if (!gone.length) return [];
  const ids = gone.map((g) => g.id);
  await ex.delete(productFavorites).where(inArray(productFavorites.productId, ids));
  const images = await ex.delete(productImages).where(inArray(productImages.productId, ids)).returning();
  return images.flatMap((i) => [i.thumbnailKey, i.largeKey]);
}

/** Products of a store by state, for the store statistics. */
export async function storeCounts(ex: Executor, storeId: string, now: Date): Promise<Record<string, number>> {
  const [row] = await ex
    .select({
      total: count(),
      active:
        sql<number>`count(*) filter (where ${products.status} = 'ACTIVE' and ${products.expiresAt} > ${ts(now)})`.mapWith(
          Number,
        ),
      pendingReview: sql<number>`count(*) filter (where ${products.status} = 'PENDING_REVIEW')`.mapWith(Number),
    })
    .from(products)
    .where(and(eq(products.storeId, storeId), live));
  return { total: row?.total ?? 0, active: row?.active ?? 0, pendingReview: row?.pendingReview ?? 0 };
}

// ---- popularity

/** Weights and half-life of the popularity score, and the instant stored scores count from (docs/product-search.md). */
export const POPULARITY = {
  views: 1,
  favourites: 3,
  sales: 5,
  halfLifeHours: 24,
  windowDays: 7,
  epoch: '2026-01-01T00:00:00Z',
} as const;
const EPOCH_MS = Date.parse(POPULARITY.epoch);

/**
 * The popularity score at `now` of a stored one. A score halves every `halfLifeHours`, every
 * product's alike, so the stored value is what does not change with time: log2 of the score as it
 * would be at the epoch (0: no activity). The job then rewrites only products whose activity
 * changed, not every active product every 10 minutes (which also cleared the visibility map that
 * the lists' index-only reads need), and ordering by the stored value is ordering by the score.
 */
export const popularityAt = (stored: number, now: Date): number =>
  stored > 0 ? 2 ** (stored - (now.getTime() - EPOCH_MS) / 3_600_000 / POPULARITY.halfLifeHours) : 0;

/**
 * Recomputes the stored popularity (see popularityAt) from the last `windowDays` of activity, each
 * day's weighted activity halved every `halfLifeHours` from the start of its day; zeroes the scores
 * of products without activity in the window. Rounded, so that a product whose activity did not
 * change keeps exactly its value and its row is not written. One transaction, two statements.
 */
export async function recomputePopularity(ex: Executor, now: Date): Promise<void> {
  const from = utcDay(new Date(now.getTime() - POPULARITY.windowDays * 86_400_000));
  const P = POPULARITY;
  // log2(sum of w x 2^x) computed as m + log2(sum of w x 2^(x - m)), m the largest x: no overflow.
  await ex.execute(sql`update ${products} p set popularity_score = a.score from (
      select product_id, case when s > 0 then round((m + ln(s) / ln(2))::numeric, 9)::float8 else 0 end as score from (
        select product_id, max(m) as m, sum(w * power(2, x - m)) as s from (
          select product_id, w, x, max(x) over (partition by product_id) as m from (
            select product_id, (${P.views} * views + ${P.favourites} * favourites + ${P.sales} * sales)::float8 as w,
              extract(epoch from (day::timestamp at time zone 'UTC' - ${P.epoch}::timestamptz)) / 3600 / ${P.halfLifeHours} as x
            from ${productActivityDaily} where day >= ${from}::date) d) e
        group by product_id) f) a
    where p.id = a.product_id and p.popularity_score is distinct from a.score`);
  await ex.execute(sql`update ${products} p set popularity_score = 0 where p.popularity_score > 0
    and not exists (select 1 from ${productActivityDaily} d where d.product_id = p.id and d.day >= ${from}::date)`);
}

// ---- stock held by orders (the orders module calls these through the products service)

export interface StockLine {
  productId: string;
  quantity: number;
}
const byProduct = (items: readonly StockLine[]) =>
  [...items].sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));

// Prepared: every order runs it.
const reserve = preparedPer((ex) => {
  const n = sql`${sql.placeholder('quantity')}::int`;
  return ex
    .update(products)
    .set({
      quantity: sql`${products.quantity} - ${n}`,
      reservedQuantity: sql`${products.reservedQuantity} + ${n}`,
      updatedAt: sql`${sql.placeholder('now')}::timestamptz`,
    })
    .where(and(eq(products.id, sql.placeholder('productId')), live, sql`${products.quantity} >= ${n}`))
    .returning({ id: products.id })
    .prepare('products_reserve');
});

/**
 * Moves each line's quantity from available to reserved, one guarded UPDATE per product in id
 * order (concurrent orders lock rows in the same order: no deadlock). Answers the products that
 * did not have enough stock; the caller rolls back when there are any.
 */
export async function reserveStock(ex: Executor, items: readonly StockLine[], now: Date): Promise<string[]> {
  const short: string[] = [];
  for (const { productId, quantity } of byProduct(items)) {
    const done = await reserve(ex).execute({ productId, quantity, now });
    if (!done.length) short.push(productId);
  }
  return short;
}

/** Gives reserved units back to the available stock (a cancelled order). */
export async function releaseStock(ex: Executor, items: readonly StockLine[], now: Date): Promise<void> {
  for (const { productId, quantity } of byProduct(items)) {
    await ex
      .update(products)
      .set({
        quantity: sql`${products.quantity} + ${quantity}::int`,
        reservedQuantity: sql`${products.reservedQuantity} - ${quantity}::int`,
        updatedAt: now,
      })
      .where(eq(products.id, productId));
  }
}

/** Reserved units leave with the client: counted as sold, and as the day's sales for trending. */
export async function markSold(ex: Executor, items: readonly StockLine[], now: Date): Promise<void> {
  for (const { productId, quantity } of byProduct(items)) {
    await ex
      .update(products)
      .set({
        reservedQuantity: sql`${products.reservedQuantity} - ${quantity}::int`,
        soldQuantity: sql`${products.soldQuantity} + ${quantity}::int`,
        salesCount: sql`${products.salesCount} + ${quantity}::int`,
        updatedAt: now,
      })
      .where(eq(products.id, productId));
    await addActivity(ex, productId, now, { sales: quantity });
  }
}

/** Reserved units given away (a collected donation): they leave the shop as sold ones do, without counting as sales. */
export async function markDonated(ex: Executor, items: readonly StockLine[], now: Date): Promise<void> {
  for (const { productId, quantity } of byProduct(items)) {
    await ex
      .update(products)
      .set({
        reservedQuantity: sql`${products.reservedQuantity} - ${quantity}::int`,
        soldQuantity: sql`${products.soldQuantity} + ${quantity}::int`,
        updatedAt: now,
      })
      .where(eq(products.id, productId));
  }
}

// Prepared: every order runs it. The products come with their store
// (share-locked: its deletion waits for the order) and supplier, so that an order reads all three in
// one round trip; both are soft-deleted, so the inner joins always find them (the caller checks).
// The values go through `opaque`: with them in sight the planner re-planned the join on every run.
const forOrder = preparedPer((ex) =>
  ex
    .select({
      product: productColumns,
      visible: sql<boolean>`${isPublicProduct(opaque(sql`${sql.placeholder('now')}::timestamptz`))}`,
      store: listedColumns(stores),
      storeVisible: sql<boolean>`${isPublicSupplier(stores.supplierId)}`,
      supplier: supplierProfiles,
    })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId))
    .innerJoin(supplierProfiles, eq(supplierProfiles.id, products.supplierId))
    .where(sql`${products.id} = any(${opaque(sql`${sql.placeholder('ids')}::uuid[]`)}::uuid[])`) // the cast: an array, not ANY's sub-query form
    .for('share', { of: stores })
    .prepare('products_for_order'),
);

/** Products by id for an order (deleted ones included: the caller says why it cannot order them). */
export async function findForOrder(ex: Executor, ids: readonly string[], now: Date) {
  if (!ids.length) return [];
  return forOrder(ex).execute({ ids: [...ids], now });
}

/** The rating columns only: no updated_at, a review is not an edit of the product. */
export async function setRating(ex: Executor, id: string, r: { average: number; count: number }): Promise<void> {
  await ex.update(products).set({ ratingAverage: r.average, ratingCount: r.count }).where(eq(products.id, id));
}
