import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import { countNearest, earthPoint, listedColumns, searchWords } from '../../db/listing-sql.js';
import { associations as a, type NeedCategory } from '../../db/schema/associations.js';
import { users } from '../../db/schema/users.js';
import {
  LISTING_TOTAL_CAP,
  RANKED_CANDIDATES_CAP,
  listingMeta,
  metaOf,
  nearestPage,
  searchTerms,
  type ListingMeta,
} from '../../shared/listing-page.js';
import type { PageQuery } from '../../shared/schemas.js';
import { publicAssociationCondition, type ListedAssociation } from './associations.repository.js';

// Public lists of associations over the stored search columns (DESIGN section 8, docs/listings.md):
// the shape of the suppliers' lists (suppliers-search.repository.ts).

const listed = listedColumns(a);

async function countCapped(ex: Executor, where: SQL | undefined, cap = LISTING_TOTAL_CAP): Promise<number> {
  const sub = ex
    .select({ one: sql`1`.as('one') })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(where)
    .limit(cap + 1)
    .as('c');
  const [row] = await ex.select({ n: count() }).from(sub);
  return row?.n ?? 0;
}

const hasCategory = (category: NeedCategory | undefined) =>
  category ? sql`${a.categories} @> array[${category}]::text[]` : undefined;

export interface SearchFilter {
  q?: string;
  city?: string;
  category?: NeedCategory;
  sort: 'relevance' | 'name' | 'newest';
}

type Found = { items: ListedAssociation[]; meta: ListingMeta };

export async function searchPublic(ex: Executor, f: SearchFilter, q: PageQuery): Promise<Found> {
  const filters = and(
    publicAssociationCondition(),
    f.city ? sql`lower(${a.city}) = lower(${f.city})` : undefined,
    hasCategory(f.category),
  );
  const terms = f.q === undefined ? null : searchTerms(f.q);
  if (f.q !== undefined && !terms) return { items: [], meta: metaOf(q, 0, false) };
  // `nulls last` as the index holds it (verified rows always have a verifiedAt).
  const order =
    f.sort === 'newest' ? [sql`${a.verifiedAt} desc nulls last`, desc(a.id)] : [asc(nameOrderKey(a.name)), asc(a.id)];
  const ordered = async (tx: Executor, match: SQL | undefined): Promise<Found> => {
    const where = and(filters, match);
    const items = await tx
      .select(listed)
      .from(a)
      .innerJoin(users, eq(users.id, a.userId))
      .where(where)
      .orderBy(...order)
      .limit(q.limit + 1)
      .offset((q.page - 1) * q.limit);
    const meta = await listingMeta(q, items.length, () => countCapped(tx, where));
    return { items: items.slice(0, q.limit), meta };
  };
  if (!terms) return ordered(ex, undefined);
  return searchWords(
    ex,
    { vector: a.searchVector, doc: a.searchDoc },
    terms,
    { relevance: f.sort === 'relevance', wordsOnly: false },
    {
      ranked: (tx, match, rank) => rankedPage(tx, and(filters, match), rank, q),
      count: (tx, match, cap) => countCapped(tx, and(filters, match), cap),
      ordered,
    },
  );
}

/** One page of the first RANKED_CANDIDATES_CAP matches the index returns, ranked. */
async function rankedPage(ex: Executor, where: SQL | undefined, rank: SQL, q: PageQuery): Promise<Found> {
  const cand = ex.$with('cand').as(
    ex
      .select({
        ...listed,
        rank: sql<number>`${rank}`.as('rank'),
        nameKey: sql<string>`${nameOrderKey(a.name)}`.as('name_key'),
      })
      .from(a)
      .innerJoin(users, eq(users.id, a.userId))
      .where(where)
      .limit(RANKED_CANDIDATES_CAP + 1),
  );
  const rows = await ex
    .with(cand)
    .select({ ...cand._.selectedFields, counted: sql<number>`(select count(*) from cand)`.mapWith(Number) })
    .from(cand)
    .orderBy(desc(cand.rank), asc(cand.nameKey), asc(cand.id))
    .limit(q.limit + 1)
    .offset((q.page - 1) * q.limit);
  const counted = rows[0]?.counted ?? (q.page > 1 ? await countCapped(ex, where, RANKED_CANDIDATES_CAP) : 0);
  const items = rows
    .slice(0, q.limit)
    .map(({ rank: _rank, nameKey: _key, counted: _counted, ...row }) => row as ListedAssociation);
  return { items, meta: metaOf(q, counted, rows.length > q.limit, RANKED_CANDIDATES_CAP) };
}

export interface NearbyFilter {
  latitude: number;
  longitude: number;
  radiusM: number;
  category?: NeedCategory;
}

/**
 * Within the radius, nearest first: the partial GiST index on the stored `earth` of verified
 * associations hands over the nearest in its distance order (`<->`); the radius and the ties are
 * applied by nearestPage.
 */
/** The `n` nearest public associations in the index's order (`<->`), and nothing else. */
export function nearbyQuery(
  ex: Executor,
  f: Omit<NearbyFilter, 'radiusM'>,
  n: number,
  fields: Record<string, unknown> = { row: listed, id: a.id },
) {
  const d = sql<number>`(${a.earth} <-> ${earthPoint(f.latitude, f.longitude)})`;
  // Named, so that the count can read it from the subquery (countNearest).
  const named = sql<number>`${d}`.mapWith(Number).as('d');
  return ex
    .select({ ...fields, d: named } as { row: typeof listed; id: typeof a.id; d: typeof named })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(and(publicAssociationCondition(), hasCategory(f.category)))
    .orderBy(d)
    .limit(n);
}

export function nearbyPublic(ex: Executor, f: NearbyFilter, q: PageQuery) {
  return nearestPage(
    q,
    f.radiusM,
    (n) => nearbyQuery(ex, f, n),
    (k) => countNearest(ex, nearbyQuery(ex, f, k, {}), f.radiusM),
  );
}
