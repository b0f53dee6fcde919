import { Type, type Static, type TSchema } from 'typebox';
import { validationError } from '../shared/errors.js';
import { titleOf, type PageQuery } from '../shared/schemas.js';

// Paging of the public listings (DESIGN section 8). A page reads about `limit` rows from an index;
// nothing counts thousands of rows per request: the total is counted up to a cap, and a page may
// not start beyond it (an offset of millions would read millions of rows).

/** Rows counted at most for `meta.total`; above it the total is a lower bound, flagged as such. */
export const LISTING_TOTAL_CAP = 1000;
/**
 * Matches of search words ranked by relevance at most: ranking every match of a common word reads
 * (and at 100,000 rows sorts on disk) all of them, so the first ones the index returns are ranked.
 */
export const RANKED_CANDIDATES_CAP = 200;

export const ListingMetaSchema = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: `exact up to ${LISTING_TOTAL_CAP}; with totalIsEstimate, at least this many` }),
    totalPages: Type.Integer(),
    hasMore: Type.Boolean({ description: 'whether a next page has rows' }),
    totalIsEstimate: Type.Boolean({
      description: `true when more than ${LISTING_TOTAL_CAP} rows match: counting stopped there`,
    }),
  },
  { title: 'ListingMeta' },
);
export type ListingMeta = Static<typeof ListingMetaSchema>;

/** The answer of a public listing: `StoreListing` for `Store` items. */
export const OkListing = <T extends TSchema>(item: T) =>
  Type.Object(
    { success: Type.Literal(true), data: Type.Array(item), meta: ListingMetaSchema },
    titleOf(item, 'Listing'),
  );

export const okListing = <T>(data: T[], meta: ListingMeta) => ({ success: true as const, data, meta });

/** The deepest page a listing serves for this page size: its rows end within the counted ones. */
export const maxListingPage = (limit: number, cap = LISTING_TOTAL_CAP) => Math.max(1, Math.floor(cap / limit));

/** 400 on `query.page` for a page beyond the cap (before any database work). */
export function assertListingPage(q: PageQuery, cap = LISTING_TOTAL_CAP): void {
  const max = maxListingPage(q.limit, cap);
  if (q.page > max) {
    throw validationError(
      'query.page',
      `must be at most ${max} with limit ${q.limit}: this list shows its first ${cap} rows; narrow the search`,
    );
  }
}

/**
 * The meta of a page fetched with `limit + 1` rows. `count` is called only when the page alone
 * cannot tell the total (a next page exists, or the page is past the end); it counts at most
 * LISTING_TOTAL_CAP + 1 rows.
 */
export async function listingMeta(q: PageQuery, fetched: number, count: () => Promise<number>): Promise<ListingMeta> {
  const offset = (q.page - 1) * q.limit;
  const hasMore = fetched > q.limit;
  const counted = hasMore || (fetched === 0 && offset > 0) ? await count() : offset + fetched;
  return metaOf(q, counted, hasMore);
}

/** The meta from a total counted up to `cap + 1`. */
export function metaOf(q: PageQuery, counted: number, hasMore: boolean, cap = LISTING_TOTAL_CAP): ListingMeta {
  const totalIsEstimate = counted > cap;
  const total = Math.min(counted, cap);
  return { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit), hasMore, totalIsEstimate };
}
