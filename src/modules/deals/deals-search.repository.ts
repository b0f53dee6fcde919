import { and, asc, desc, eq, lte, sql, type SQL } from 'drizzle-orm';
import { literalLimit, opaque, preparedPage, runPage, type Executor } from '../../db/client.js';
import {
  chordToMetres,
  countCapped,
  countNearest,
  earthCube,
  earthPoint,
  LISTING_TOTAL_CAP,
  listingMeta,
  nearestPage,
  rankedPage,
  rankedQuery,
  searchWords,
  type ListingMeta,
  type ListRows,
  type SearchTerms,
} from '../../listings/index.js';
import { deals, type DealKind } from '../../db/schema/deals.js';
import { stores } from '../../db/schema/stores.js';
import { openAtSql } from '../../shared/opening-hours.js';
import type { PageQuery } from '../../shared/schemas.js';
import type { ProductCategory } from '../products/index.js';
import { hasPlaces, isPublicDeal } from './deals.repository.js';
import type { DealSort } from './deals.schemas.js';

// The public deal list over the stored columns (DESIGN section 8, docs/listings.md, docs/deals.md):
// every page reads about `limit` rows of `deals` from the partial index of its order (`WHERE
// listed`), the visibility rule being columns of the row; the store's name is looked up for the
// page's rows only.

export interface DealFilter {
  terms: SearchTerms | null;
  category?: ProductCategory;
  kind?: DealKind;
  maxPrice?: number;
  storeId?: string;
  openNow?: boolean;
  point?: { latitude: number; longitude: number; radiusM: number };
  sort: DealSort;
}

export interface DealCardRow {
  id: string;
  title: string;
  kind: DealKind;
  category: ProductCategory;
  price: number;
  originalValue: number;
  discountPercent: number;
  currency: string;
  totalPlaces: number;
  placesTaken: number;
  validUntil: Date;
  pickupStart: string;
  pickupEnd: string;
  storeId: string;
  storeName: string;
  thumbnailKey: string | null;
  distanceM?: number;
}

const card = {
  id: deals.id,
  title: deals.title,
  kind: deals.kind,
  category: deals.category,
  price: deals.price,
  originalValue: deals.originalValue,
  discountPercent: deals.discountPercent,
  currency: deals.currency,
  totalPlaces: deals.totalPlaces,
  placesTaken: deals.placesTaken,
  validUntil: deals.validUntil,
  pickupStart: deals.pickupStart,
  pickupEnd: deals.pickupEnd,
  storeId: deals.storeId,
  // Evaluated for the rows the page returns only (the limit pulls them), a primary-key read each.
  storeName: sql<string>`(select s.name from ${stores} s where s.id = ${deals.storeId})`.as('store_name'),
  thumbnailKey: sql<string | null>`(${deals.images} -> 0 ->> 'thumbnailKey')`.as('thumbnail_key'),
};

const ofStore = (cond: SQL) => sql`exists (select 1 from ${stores} where ${stores.id} = ${deals.storeId} and ${cond})`;

/** What every public list shows: public deals with places left, and the query's filters. */
function filters(f: DealFilter, now: Date): SQL {
  return and(
    isPublicDeal(now),
    hasPlaces,
    f.category ? eq(deals.category, f.category) : undefined,
    f.kind ? eq(deals.kind, f.kind) : undefined,
    f.maxPrice !== undefined ? lte(deals.price, f.maxPrice) : undefined,
    f.storeId ? eq(deals.storeId, f.storeId) : undefined,
    f.openNow === undefined
      ? undefined
      : ofStore(sql`${f.openNow ? sql`` : sql`not `}${openAtSql(stores.openingHours, stores.timezone, now)}`),
  )!;
}

/** Each sort, ties by id, exactly as its partial index (`deals_listed_*_idx`) is ordered. */
const ORDERS: Record<Exclude<DealSort, 'relevance' | 'distance'>, SQL[]> = {
  price: [asc(deals.price), asc(deals.id)],
  '-price': [desc(deals.price), desc(deals.id)],
  ending_soon: [asc(deals.validUntil), asc(deals.id)],
  newest: [desc(deals.createdAt), desc(deals.id)],
};

/** The rows of the public deal list. */
const DEALS: ListRows = { table: deals };

const distanceTo = (origin: SQL) => sql<number>`(${deals.earth} <-> ${origin})`.mapWith(Number);

/**
 * The index's part of a nearest-first page: the `n` nearest public deals in the GiST index's
 * distance order and nothing else (radius and ties applied by nearestPage). Exported so its plan
 * can be examined.
 */
export function nearestQuery(ex: Executor, f: DealFilter, now: Date, n: number) {
  const d = distanceTo(earthPoint(f.point!.latitude, f.point!.longitude));
  return ex
    .select({ ...card, d })
    .from(deals)
    .where(filters(f, now))
    .orderBy(d)
    .limit(n);
}

// A point and nothing else (the bench's list), prepared once per connection with its plan kept
// (preparedPage): planning cost about as much as running it.
const nearestPrepared = preparedPage((ex, rows) => {
  const t = opaque(sql`${sql.placeholder('now')}::timestamptz`);
  const d = sql<number>`(${deals.earth} <-> ${sql.placeholder('origin')}::cube)`.mapWith(Number).as('d');
  return ex
    .select({ ...card, d })
    .from(deals)
    .where(and(isPublicDeal(t), hasPlaces))
    .orderBy(sql`"d"`)
    .limit(literalLimit(rows))
    .prepare(`deals_nearest_page_${rows}`);
});
/** A store's deals share its position: so many more are read at once for a nearest-first page (see nearestPage). */
const DEALS_AT_ONE_PLACE = 4;
const pointOnly = (f: DealFilter) =>
  !f.terms &&
  f.category === undefined &&
  f.kind === undefined &&
  f.maxPrice === undefined &&
  f.storeId === undefined &&
  f.openNow === undefined;

type Page = { items: (DealCardRow & { d?: number | null })[]; meta: ListingMeta };

/** A page of the public deal list. */
export async function searchDeals(
  ex: Executor,
  f: DealFilter,
  now: Date,
  q: PageQuery,
): Promise<{ items: DealCardRow[]; meta: ListingMeta }> {
  const base = filters(f, now);
  const origin = f.point ? earthPoint(f.point.latitude, f.point.longitude) : undefined;
  const d = origin ? distanceTo(origin) : sql<number>`null::float8`;
  const radius =
    f.point &&
    and(
      sql`earth_box(${origin}, ${f.point.radiusM}::float8) @> ${deals.earth}`,
      sql`earth_distance(${origin}, ${deals.earth}) <= ${f.point.radiusM}::float8`,
    );

  const ordered = async (tx: Executor, match: SQL | undefined): Promise<Page> => {
    const where = and(base, match)!;
    if (f.point && f.sort === 'distance') {
      const point = f.point;
      return nearestPage(
        q,
        point.radiusM,
        async (n) =>
          (pointOnly(f) && !match
            ? await runPage(
                nearestPrepared(tx, n),
                { now: now.toISOString(), origin: earthCube(point.latitude, point.longitude) },
                n,
              )
            : await tx
                .select({ ...card, d })
                .from(deals)
                .where(where)
                .orderBy(d)
                .limit(n)) as (DealCardRow & { d: number })[],
        (k) =>
          countNearest(
            tx,
            tx
              .select({ d: sql`${d}`.as('d') })
              .from(deals)
              .where(where)
              .orderBy(d)
              .limit(k),
            point.radiusM,
          ),
        DEALS_AT_ONE_PLACE,
      );
    }
    const order = ORDERS[f.sort as keyof typeof ORDERS] ?? ORDERS.newest;
    const within = and(where, radius);
    const rows = await tx
      .select({ ...card, d })
      .from(deals)
      .where(within)
      .orderBy(...order)
      .limit(q.limit + 1)
      .offset((q.page - 1) * q.limit);
    const meta = await listingMeta(q, rows.length, () =>
      countCapped(tx, DEALS, within, LISTING_TOTAL_CAP, radius ? undefined : order),
    );
    return { items: rows.slice(0, q.limit), meta };
  };

  let page: Page;
  if (!f.terms) page = await ordered(ex, undefined);
  else {
    page = await searchWords(
      ex,
      { vector: deals.searchVector, doc: deals.searchDoc },
      f.terms,
      { relevance: f.sort === 'relevance', wordsOnly: false },
      {
        ranked: (tx, match, rank) => {
          const where = and(base, radius, match);
          const fields = { ...card, d: sql<number | null>`${d}`.as('d') };
          return rankedPage<DealCardRow & { d: number | null }>(tx, DEALS, where, q, (take) =>
            rankedQuery(tx, DEALS, fields, where, rank).limit(take.limit).offset(take.offset),
          );
        },
        count: (tx, match, cap) => countCapped(tx, DEALS, and(base, match), cap),
        ordered,
      },
    );
  }
  return {
    items: page.items.map(({ d: dist, ...r }) => ({
      ...(r as DealCardRow),
      distanceM:
        dist == null
          ? undefined
          : 'distanceM' in r
            ? (r as { distanceM: number }).distanceM
            : chordToMetres(Number(dist)),
    })),
    meta: page.meta,
  };
}
