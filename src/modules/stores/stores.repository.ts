import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { literalLimit, opaque, preparedPage, preparedPer, rows, runPage, type Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import {
  countNearest,
  earthCube,
  earthPoint,
  listedColumns,
  nearestPage,
  rankedQuery,
  searchList,
  type NearbyJsonRow,
  type SearchedList,
} from '../../listings/index.js';
import type { PageQuery } from '../../shared/schemas.js';
import { stores } from '../../db/schema/stores.js';
import { openAtSql } from '../../shared/opening-hours.js';
import { isLiveSupplier, isPublicSupplier } from '../suppliers/index.js';
import { nearbyStoreJson } from './stores.json-sql.js';
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

/**
 * The next instant (ms) after `now` at which a temporary closure starts or ends, Infinity when none:
 * what the cached lists may not outlive (from `stores_closure_idx`: the closures not over yet).
 */
export async function nextClosureChange(ex: Executor, now: Date): Promise<number> {
  const [row] = await rows<{ at: number | null }>(
    ex,
    sql`select extract(epoch from least(min(${stores.closureStartsAt}) filter (where ${stores.closureStartsAt} > ${ts(now)}), min(${stores.closureEndsAt})))::float8 * 1000 as at
      from ${stores} where ${stores.closureStartsAt} is not null and ${stores.closureEndsAt} > ${ts(now)}`,
  );
  return row?.at == null ? Infinity : Number(row.at);
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
export async function findStore(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<StoreRecord | undefined> {
  const q = ex
    .select()
    .from(stores)
    .where(and(eq(stores.id, id), isNull(stores.deletedAt), isLiveSupplier(stores.supplierId)))
    .limit(1);
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
// Prepared: every deal booking reads its store (planning it took longer than running it); orders read it with their products.
const storeForOrder = preparedPer((ex) =>
  ex
    .select({ store: stores, visible: sql<boolean>`${supplierVisible}` })
    .from(stores)
    .where(and(eq(stores.id, sql.placeholder('id')), isNull(stores.deletedAt)))
    .for('share', { of: stores })
    .limit(1)
    .prepare('store_for_order'),
);

export async function findStoreForOrder(ex: Executor, id: string) {
  const [row] = await storeForOrder(ex).execute({ id });
  return row;
}

export async function listSupplierStores(
  ex: Executor,
  supplierId: string,
  f: { isActive?: boolean },
  limit: number,
  offset: number,
) {
  const where = and(
    eq(stores.supplierId, supplierId),
    isNull(stores.deletedAt),
    f.isActive === undefined ? undefined : eq(stores.isActive, f.isActive),
  );
  const items = await ex
    .select()
    .from(stores)
    .where(where)
    .orderBy(desc(stores.createdAt), desc(stores.id))
    .limit(limit)
    .offset(offset);
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

/** A store as the public lists show it: every column but the stored search ones. */
const listed = listedColumns(stores);
export type ListedStore = Omit<StoreRecord, 'earth' | 'searchDoc' | 'searchVector'>;

/**
 * Listed publicly: live, active, and of a supplier the public may see (`supplier_public`, kept by
 * triggers from the suppliers' rule). Written as the partial GiST index's predicate, literally, so
 * the planner can use that index.
 */
const listedStore = sql`${stores.deletedAt} is null and ${stores.isActive} and ${stores.supplierPublic}`;

function searchFilters(s: StoreSearch, now: Date): SQL {
  return and(
    listedStore,
    s.city ? sql`lower(${stores.city}) = ${s.city.toLowerCase()}` : undefined,
    s.supplierId ? eq(stores.supplierId, s.supplierId) : undefined,
    s.openNow === undefined ? undefined : s.openNow ? openAt(now) : sql`not ${openAt(now)}`,
  )!;
}

/** The rows of the public store lists. */
const STORES: SearchedList = {
  table: stores,
  fields: listed,
  words: { vector: stores.searchVector, doc: stores.searchDoc },
  wordsOnly: (ex, tsquery, take) => wordsPrepared(ex).execute({ tsquery, rows: take.limit, offset: take.offset }),
};

/**
 * Text search over the stored document (DESIGN section 8): the words (the last one as a prefix)
 * from the GIN tsvector index; when they find too little, words spelt nearly alike from the
 * trigram index as well (each word must match). Relevance ranks only the capped candidates.
 */
export function searchPublicStores(ex: Executor, s: StoreSearch, now: Date, q: PageQuery) {
  const order =
    s.sort === 'name' ? [asc(nameOrderKey(stores.name)), asc(stores.id)] : [desc(stores.createdAt), desc(stores.id)];
  return searchList<ListedStore>(
    ex,
    STORES,
    {
      q: s.q,
      filters: searchFilters(s, now),
      order,
      relevance: s.sort === 'relevance',
      wordsOnly: !s.city && !s.supplierId && s.openNow === undefined,
    },
    q,
  );
}

// The common word search (words only, no other filter), prepared once per connection: planning
// the query costs about as much as running it.
const wordsPrepared = preparedPer((ex) => {
  const tsq = sql`to_tsquery('simple', ${sql.placeholder('tsquery')})`;
  return rankedQuery(
    ex,
    STORES,
    listed,
    and(listedStore, sql`${stores.searchVector} @@ ${tsq}`),
    sql`ts_rank(${stores.searchVector}, ${tsq})`,
  )
    .limit(sql.placeholder('rows'))
    .offset(sql.placeholder('offset'))
    .prepare('stores_words_page');
});

export interface NearbySearch {
  latitude: number;
  longitude: number;
  radiusKm: number;
  openNow?: boolean;
}

function nearbyParts(n: NearbySearch, now: Date) {
  const origin = earthPoint(n.latitude, n.longitude);
  const where = and(
    listedStore,
    n.openNow === undefined ? undefined : n.openNow ? openAt(now) : sql`not ${openAt(now)}`,
  );
  const d = sql<number>`(${stores.earth} <-> ${origin})`.mapWith(Number);
  return { where, d, origin };
}

/** A nearby page's columns: the store as `NearbyStoreSchema` shows it at `at` (toStoreView with its distance), as JSON. */
function nearbyColumns(at: SQL, d: SQL) {
  const card = nearbyStoreJson(at, d);
  return { id: stores.id, d: d.mapWith(Number).as('d'), card: card.as('card') };
}

/**
 * The index's part of a nearby page: the `rows` nearest listed stores in the index's distance
 * order (`<->`, the cube's chord distance, ranks points as the great-circle distance does); the
 * radius and ties are applied outside (see nearestPage). Exported so its plan can be examined.
 */
export function nearbyQuery(ex: Executor, n: NearbySearch, now: Date, rows: number) {
  const { where, d } = nearbyParts(n, now);
  return ex
    .select(nearbyColumns(sql`${now.toISOString()}::timestamptz`, d))
    .from(stores)
    .where(where)
    .orderBy(d)
    .limit(rows);
}

// The common nearby page (no openNow filter), prepared once per connection with its plan kept
// (preparedPage): planning the query cost about as much as running it.
const nearbyPrepared = preparedPage((ex, rows) => {
  const d = sql<number>`(${stores.earth} <-> ${sql.placeholder('origin')}::cube)`;
  const at = opaque(sql`${sql.placeholder('now')}::timestamptz`);
  return ex
    .select(nearbyColumns(at, d))
    .from(stores)
    .where(listedStore)
    .orderBy(sql`"d"`)
    .limit(literalLimit(rows))
    .prepare(`stores_nearby_page_${rows}`);
});

export async function nearbyStores(ex: Executor, n: NearbySearch, now: Date, q: PageQuery) {
  const radiusM = n.radiusKm * 1000;
  const { where, d } = nearbyParts(n, now);
  return nearestPage<NearbyJsonRow>(
    q,
    radiusM,
    (rows) =>
      n.openNow === undefined
        ? runPage(
            nearbyPrepared(ex, rows),
            { origin: earthCube(n.latitude, n.longitude), now: now.toISOString() },
            rows,
          )
        : nearbyQuery(ex, n, now, rows),
    (k) =>
      countNearest(
        ex,
        ex
          .select({ d: sql`${d}`.as('d') })
          .from(stores)
          .where(where)
          .orderBy(d)
          .limit(k),
        radiusM,
      ),
  );
}
