import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import {
  countNearest,
  earthPoint,
  listedColumns,
  nearestPage,
  searchList,
  type ListingMeta,
  type SearchedList,
} from '../../listings/index.js';
import { associations as a, type NeedCategory } from '../../db/schema/associations.js';
import { users } from '../../db/schema/users.js';
import type { PageQuery } from '../../shared/schemas.js';
import { publicAssociationCondition, type ListedAssociation } from './associations.repository.js';

// Public lists of associations over the stored search columns (DESIGN section 8, docs/listings.md):
// the shape of the suppliers' lists (suppliers-search.repository.ts).

const listed = listedColumns(a);

const hasCategory = (category: NeedCategory | undefined) =>
  category ? sql`${a.categories} @> array[${category}]::text[]` : undefined;

export interface SearchFilter {
  q?: string;
  city?: string;
  category?: NeedCategory;
  sort: 'relevance' | 'name' | 'newest';
}

type Found = { items: ListedAssociation[]; meta: ListingMeta };

/** The rows of the public association lists: an association's visibility reads its user's status. */
const ASSOCIATIONS: SearchedList = {
  table: a,
  join: { table: users, on: eq(users.id, a.userId) },
  fields: listed,
  words: { vector: a.searchVector, doc: a.searchDoc },
  nameKey: nameOrderKey(a.name),
};

export function searchPublic(ex: Executor, f: SearchFilter, q: PageQuery): Promise<Found> {
  const filters = and(
    publicAssociationCondition(),
    f.city ? sql`lower(${a.city}) = lower(${f.city})` : undefined,
    hasCategory(f.category),
  );
  // `nulls last` as the index holds it (verified rows always have a verifiedAt).
  const order =
    f.sort === 'newest' ? [sql`${a.verifiedAt} desc nulls last`, desc(a.id)] : [asc(nameOrderKey(a.name)), asc(a.id)];
  return searchList<ListedAssociation>(
    ex,
    ASSOCIATIONS,
    { q: f.q, filters, order, relevance: f.sort === 'relevance', wordsOnly: false },
    q,
  );
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
