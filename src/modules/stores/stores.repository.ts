import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import { stores } from '../../db/schema/stores.js';
import { openAtSql } from '../../shared/opening-hours.js';
import { isLiveSupplier, isPublicSupplier } from '../suppliers/supplier-visibility.js';
import type { StoreSort } from './stores.schemas.js';

export type StoreRecord = typeof stores.$inferSelect;
export type NewStore = typeof stores.$inferInsert;

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

// Public visibility: a live, active store of a supplier the public may see (the suppliers
// module's rule: verified, not deleted, active account).
const supplierVisible = isPublicSupplier(stores.supplierId);
const publiclyVisible = and(isNull(stores.deletedAt), eq(stores.isActive, true), supplierVisible);

/** Open at `now`: not in a temporary closure and inside one of the local day's ranges. */
function openAt(now: Date): SQL {
  const at = ts(now);
  return sql`(not coalesce(${stores.closureStartsAt} <= ${at} and ${stores.closureEndsAt} > ${at}, false)
    and ${openAtSql(stores.openingHours, stores.timezone, now)})`;
}

export async function insertStore(ex: Executor, values: NewStore): Promise<StoreRecord> {
  const [row] = await ex.insert(stores).values(values).returning();
  return row!;
}

export async function insertStores(ex: Executor, values: NewStore[]): Promise<void> {
  if (values.length) await ex.insert(stores).values(values);
}

export async function updateStore(ex: Executor, id: string, patch: Partial<NewStore>): Promise<StoreRecord> {
  const [row] = await ex.update(stores).set(patch).where(eq(stores.id, id)).returning();
  return row!;
}

/**
 * A store that is not deleted, in any other state, of a supplier whose profile is not deleted
 * either (a deleted supplier's stores are gone for everyone, its staff included).
 */
export async function findStore(ex: Executor, id: string, opts: { lock?: boolean } = {}): Promise<StoreRecord | undefined> {
  const q = ex.select().from(stores).where(and(eq(stores.id, id), isNull(stores.deletedAt), isLiveSupplier(stores.supplierId))).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function findStoresByIds(ex: Executor, ids: string[]): Promise<StoreRecord[]> {
  if (!ids.length) return [];
  return ex.select().from(stores).where(inArray(stores.id, ids));
}

export async function findPublicStore(ex: Executor, id: string): Promise<StoreRecord | undefined> {
  const [row] = await ex
    .select({ store: stores })
    .from(stores)
    .where(and(eq(stores.id, id), publiclyVisible))
    .limit(1);
  return row?.store;
}

/** Whether the public may see the store (the same rule as the public listings). */
export async function isPublicStore(ex: Executor, id: string): Promise<boolean> {
  return (await findPublicStore(ex, id)) !== undefined;
}

/**
 * The store as an order or booking sees it, row-share-locked so a concurrent deactivation or
 * closure waits for the caller's transaction; `visible` is false when its supplier is not.
 */
export async function findStoreForOrder(ex: Executor, id: string) {
  const [row] = await ex
    .select({ store: stores, visible: sql<boolean>`${supplierVisible}` })
    .from(stores)
    .where(and(eq(stores.id, id), isNull(stores.deletedAt)))
    .for('share', { of: stores })
    .limit(1);
  return row;
}

export async function listSupplierStores(ex: Executor, supplierId: string, f: { isActive?: boolean }, limit: number, offset: number) {
  const where = and(eq(stores.supplierId, supplierId), isNull(stores.deletedAt), f.isActive === undefined ? undefined : eq(stores.isActive, f.isActive));
  const items = await ex.select().from(stores).where(where).orderBy(desc(stores.createdAt), desc(stores.id)).limit(limit).offset(offset);
  const [total] = await ex.select({ n: count() }).from(stores).where(where);
  return { items, total: total?.n ?? 0 };
}

export async function countBySupplier(ex: Executor, supplierId: string): Promise<{ total: number; active: number }> {
  const [row] = await ex
    .select({ total: count(), active: sql<number>`count(*) filter (where ${stores.isActive})`.mapWith(Number) })
    .from(stores)
    .where(and(eq(stores.supplierId, supplierId), isNull(stores.deletedAt)));
  return { total: row?.total ?? 0, active: row?.active ?? 0 };
}

export interface StoreSearch {
  q?: string;
  city?: string;
  supplierId?: string;
  openNow?: boolean;
  sort: StoreSort;
}

/**
 * Full-text match on the whole words, or trigram word similarity for typos and prefixes. The
 * `<%` operator is what lets the GIN trigram index answer; its threshold is the session's
 * pg_trgm.word_similarity_threshold (see `setWordSimilarityThreshold`).
 */
export async function searchPublicStores(ex: Executor, s: StoreSearch, now: Date, limit: number, offset: number) {
  const q = s.q?.toLowerCase();
  const tsQuery = q ? sql`plainto_tsquery('simple', ${q})` : undefined;
  const document = sql`to_tsvector('simple', ${stores.searchText})`;
  const where = and(
    publiclyVisible,
    q ? sql`(${document} @@ ${tsQuery} or ${q} <% ${stores.searchText})` : undefined,
    s.city ? sql`lower(${stores.city}) = ${s.city.toLowerCase()}` : undefined,
    s.supplierId ? eq(stores.supplierId, s.supplierId) : undefined,
    s.openNow === undefined ? undefined : s.openNow ? openAt(now) : sql`not ${openAt(now)}`,
  );
  const order =
    s.sort === 'name'
      ? [asc(nameOrderKey(stores.name)), asc(stores.id)]
      : s.sort === 'relevance' && q
        ? [desc(sql`ts_rank(${document}, ${tsQuery}) + word_similarity(${q}, ${stores.searchText})`), desc(stores.id)]
        : [desc(stores.createdAt), desc(stores.id)];
  const items = await ex
    .select({ store: stores })
    .from(stores)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
  const [total] = await ex.select({ n: count() }).from(stores).where(where);
  return { items: items.map((r) => r.store), total: total?.n ?? 0 };
}

/** Lowers the trigram threshold for the current transaction only (set_config with is_local). */
export async function setWordSimilarityThreshold(ex: Executor, threshold: number): Promise<void> {
  await ex.execute(sql`select set_config('pg_trgm.word_similarity_threshold', ${String(threshold)}, true)`);
}

export interface NearbySearch {
  latitude: number;
  longitude: number;
  radiusKm: number;
  openNow?: boolean;
}

function nearbyParts(n: NearbySearch, now: Date) {
  const radiusM = n.radiusKm * 1000;
  const origin = sql`ll_to_earth(${n.latitude}::float8, ${n.longitude}::float8)`;
  const point = sql`ll_to_earth(${stores.latitude}, ${stores.longitude})`;
  const distanceM = sql<number>`earth_distance(${origin}, ${point})`.mapWith(Number);
  // The cube test (earth_box @>) is what the GiST index on ll_to_earth(latitude, longitude)
  // answers; the box is a little larger than the circle, so the exact distance filters after it.
  const where = and(
    sql`earth_box(${origin}, ${radiusM}::float8) @> ${point}`,
    sql`earth_distance(${origin}, ${point}) <= ${radiusM}::float8`,
    publiclyVisible,
    n.openNow === undefined ? undefined : n.openNow ? openAt(now) : sql`not ${openAt(now)}`,
  );
  return { distanceM, where, point, origin };
}

/** The page query on its own, so its plan can be examined. */
export function nearbyQuery(ex: Executor, n: NearbySearch, now: Date, limit: number, offset: number) {
  // `<->` is the cube (chord) distance: same order as the great-circle one, and the GiST index
  // can return rows in that order, so a page does not sort everything in the radius. The id
  // breaks ties (stores at one address) so pages neither repeat nor skip a store; reading the
  // index in distance order, PostgreSQL then sorts only within groups of equal distance.
  const { distanceM, where, point, origin } = nearbyParts(n, now);
  return ex
    .select({ store: stores, distanceM })
    .from(stores)
    .where(where)
    .orderBy(sql`${point} <-> ${origin}`, asc(stores.id))
    .limit(limit)
    .offset(offset);
}

export async function nearbyStores(ex: Executor, n: NearbySearch, now: Date, limit: number, offset: number) {
  const items = await nearbyQuery(ex, n, now, limit, offset);
  const [total] = await ex.select({ n: count() }).from(stores).where(nearbyParts(n, now).where);
  return { items, total: total?.n ?? 0 };
}
