import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { literalLimit, opaque, preparedPage, preparedPer, runPage, type Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import {
  countNearest,
  earthCube,
  earthPoint,
  listedColumns,
  nearestPage,
  rankedQuery,
  searchList,
  type ListingMeta,
  type NearbyJsonRow,
  type SearchedList,
} from '../../listings/index.js';
import { supplierProfiles as sp } from '../../db/schema/suppliers.js';
import { users } from '../../db/schema/users.js';
import { openAtSql } from '../../shared/opening-hours.js';
import type { PageQuery } from '../../shared/schemas.js';
import type { ListedSupplier } from './suppliers.repository.js';
import { publicSupplierCondition } from './supplier-visibility.js';
import { nearbySupplierJson } from './suppliers.json-sql.js';

// Public lists of suppliers over the stored search columns (DESIGN section 8): the same shape as
// the stores' lists (stores.repository.ts).

/** A supplier as the public lists read it: every column but the stored search ones. */
const listed = listedColumns(sp);

export interface SearchFilter {
  q?: string;
  city?: string;
  category?: 'FOOD' | 'DEALS';
  openNow?: boolean;
  sort: 'relevance' | 'name' | 'newest';
  now: Date;
}

type Found = { items: ListedSupplier[]; meta: ListingMeta };

/** The rows of the public supplier lists: a supplier's visibility reads its user's status. */
const SUPPLIERS: SearchedList = {
  table: sp,
  join: { table: users, on: eq(users.id, sp.userId) },
  fields: listed,
  words: { vector: sp.searchVector, doc: sp.searchDoc },
  nameKey: nameOrderKey(sp.businessName),
  wordsOnly: (ex, tsquery, take) => wordsPrepared(ex).execute({ tsquery, rows: take.limit, offset: take.offset }),
};

export function searchPublic(ex: Executor, f: SearchFilter, q: PageQuery): Promise<Found> {
  const filters = and(
    publicSupplierCondition(),
    f.city ? sql`lower(${sp.city}) = lower(${f.city})` : undefined,
    f.category ? eq(sp.category, f.category) : undefined,
    f.openNow === undefined
      ? undefined
      : sql`${f.openNow ? sql`` : sql`not `}${openAtSql(sp.openingHours, sp.timezone, f.now)}`,
  );
  const order =
    f.sort === 'newest' ? [desc(sp.createdAt), desc(sp.id)] : [asc(nameOrderKey(sp.businessName)), asc(sp.id)];
  return searchList<ListedSupplier>(
    ex,
    SUPPLIERS,
    {
      q: f.q,
      filters,
      order,
      relevance: f.sort === 'relevance',
      wordsOnly: !f.city && !f.category && f.openNow === undefined,
    },
    q,
  );
}

// The common word search (words only, no other filter), prepared once per connection.
const wordsPrepared = preparedPer((ex) => {
  const tsq = sql`to_tsquery('simple', ${sql.placeholder('tsquery')})`;
  return rankedQuery(
    ex,
    SUPPLIERS,
    listed,
    and(publicSupplierCondition(), sql`${sp.searchVector} @@ ${tsq}`),
    sql`ts_rank(${sp.searchVector}, ${tsq})`,
    nameOrderKey(sp.businessName),
  )
    .limit(sql.placeholder('rows'))
    .offset(sql.placeholder('offset'))
    .prepare('suppliers_words_page');
});

export interface NearbyFilter {
  latitude: number;
  longitude: number;
  radiusM: number;
  category?: 'FOOD' | 'DEALS';
}

/**
 * A nearby page's columns: the supplier as `NearbySupplierSchema` shows it at `at` (toPublicView
 * with its distance), as JSON. `files`: the public files' URL prefix.
 */
function nearbyColumns(at: SQL, d: SQL, files: unknown) {
  const card = nearbySupplierJson(at, d, files);
  return { id: sp.id, d: d.mapWith(Number).as('d'), card: card.as('card') };
}

/**
 * Within the radius, nearest first: the GiST index on the stored `earth` hands over the nearest
 * public suppliers in cube-distance order (`<->`, a chord, which orders points exactly as the
 * great-circle distance does); the radius and ties are applied outside (nearestPage).
 */
// The common nearby page (no category), prepared once per connection with its plan kept
// (preparedPage): planning the query cost about as much as running it.
const nearbyPrepared = preparedPage((ex, rows) => {
  const d = sql<number>`(${sp.earth} <-> ${sql.placeholder('origin')}::cube)`;
  return ex
    .select(nearbyColumns(opaque(sql`${sql.placeholder('now')}::timestamptz`), d, sql.placeholder('files')))
    .from(sp)
    .innerJoin(users, eq(users.id, sp.userId))
    .where(publicSupplierCondition())
    .orderBy(sql`"d"`)
    .limit(literalLimit(rows))
    .prepare(`suppliers_nearby_page_${rows}`);
});

export async function nearbyPublic(ex: Executor, f: NearbyFilter, q: PageQuery, now: Date, files: string) {
  const origin = earthPoint(f.latitude, f.longitude);
  const d = sql<number>`(${sp.earth} <-> ${origin})`;
  const where = and(publicSupplierCondition(), f.category ? eq(sp.category, f.category) : undefined);
  const select = () =>
    ex
      .select(nearbyColumns(sql`${now.toISOString()}::timestamptz`, d, files))
      .from(sp)
      .innerJoin(users, eq(users.id, sp.userId))
      .where(where);
  return nearestPage<NearbyJsonRow>(
    q,
    f.radiusM,
    (n) =>
      f.category
        ? select().orderBy(d).limit(n)
        : runPage(
            nearbyPrepared(ex, n),
            { origin: earthCube(f.latitude, f.longitude), now: now.toISOString(), files },
            n,
          ),
    (k) =>
      countNearest(
        ex,
        ex
          .select({ d: sql`${d}`.as('d') })
          .from(sp)
          .innerJoin(users, eq(users.id, sp.userId))
          .where(where)
          .orderBy(d)
          .limit(k),
        f.radiusM,
      ),
  );
}
