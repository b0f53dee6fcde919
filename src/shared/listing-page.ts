import type { FastifyReply } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { validationError } from './errors.js';
import { JSON_LENGTH } from './listing-cache.js';
import { chordToMetres, metresToChord } from '../db/listing-sql.js';
import { titleOf, type PageQuery } from './schemas.js';

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

/**
 * A listing's items as the database wrote them, in order: their JSON texts joined by commas (the
 * inside of the array). `sendJsonListing` sends them as they are, so the server neither parses nor
 * maps nor serializes the rows of a hot list. Anything else that turns them into JSON (the listing
 * cache weighing an answer) sees the items.
 */
export class JsonItems {
  private constructor(readonly json: string) {}
  /** The items of rows that carry their JSON as `card` (made compact: see compactJson). */
  static of(rows: readonly { card: string }[]): JsonItems {
    return new JsonItems(compactJson(rows.map((r) => r.card).join(',')));
  }
  /** Items the database joined itself (`string_agg(card, ',')`, null when there are none). */
  static joined(json: string | null): JsonItems {
    return new JsonItems(json ? compactJson(json) : '');
  }
  static readonly none = new JsonItems('');
  toJSON(): unknown[] {
    return JSON.parse(`[${this.json}]`) as unknown[];
  }
  [JSON_LENGTH](): number {
    return this.json.length + 2;
  }
  /**
   * The earliest instant (ms) among the items' `field` (an ISO date-time the database wrote), Infinity
   * when none has it: a key's quoted name cannot occur inside a JSON string, where quotes are escaped.
   */
  earliest(field: string): number {
    const name = `"${field}"`;
    let min = Infinity;
    for (let i = this.json.indexOf(name); i >= 0; i = this.json.indexOf(name, i + name.length)) {
      const start = this.json.indexOf('"', i + name.length) + 1;
      const at = Date.parse(this.json.slice(start, this.json.indexOf('"', start)));
      if (at < min) min = at;
    }
    return min;
  }
}

/** The earliest instant (ms) among the items' `field` (ISO date-times), Infinity when there are none. */
export const earliestOf = <K extends string>(items: readonly Record<K, string>[], field: K): number =>
  items.reduce((min, item) => Math.min(min, Date.parse(item[field])), Infinity);

/**
 * A row of a nearest-first page whose item the database writes: its JSON (`card`), and the id and
 * cube distance `d` the page's radius and ties need (nearestPage).
 */
export interface NearbyJsonRow {
  id: string;
  d: number;
  card: string;
}

/** The `Ok` envelope around data the database wrote as JSON text (one object): sent compact, not serialized again. */
export const sendJsonData = (reply: FastifyReply, json: string) =>
  reply.type('application/json; charset=utf-8').send(`{"success":true,"data":${compactJson(json)}}`);

/** A JSON string (kept, as group 1) or whitespace between tokens (dropped). */
const TOKEN_SPACE = /("[^"\\]*(?:\\.[^"\\]*)*")|\s+/g;
/**
 * JSON text without the whitespace between its tokens, as every other answer is written: PostgreSQL
 * writes `json_build_object` as `{"id" : "x", "n" : 1}`, `json_agg` with `, ` and line breaks, jsonb
 * with `": "`. One native regular expression: strings are matched whole and kept, whitespace outside
 * them dropped (measured on 3.8 KB of `" : "` text: about 18 us of CPU, against 23 us for
 * JSON.parse and JSON.stringify, on a busy machine).
 */
export const compactJson = (json: string): string => json.replace(TOKEN_SPACE, '$1');

/** The `OkListing` envelope around items already in JSON: written as text, not serialized again. */
export const sendJsonListing = (reply: FastifyReply, items: JsonItems, meta: ListingMeta) =>
  reply
    .type('application/json; charset=utf-8')
    .send(`{"success":true,"data":[${items.json}],"meta":${JSON.stringify(meta)}}`);

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

// ---- words

/** Folds text as the database's search documents are folded: accents removed, lower case. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[œŒ]/g, 'oe')
    .replace(/[æÆ]/g, 'ae')
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[đĐ]/g, 'd')
    .replace(/[łŁ]/g, 'l')
    .toLowerCase();
}

export interface SearchTerms {
  /** The folded words, at most 8 (letters and digits only, so they cannot inject tsquery syntax). */
  words: string[];
  /** Every word whole, the last one as a prefix, as the user is still typing it: `pain & boul:*`. */
  tsquery: string;
  /** The words as the searches are recorded: folded, in order, single-spaced. */
  normalised: string;
}

/** The words of `q`, or null when it has none (only punctuation). */
export function searchTerms(q: string): SearchTerms | null {
  const words = foldText(q)
    .match(/[\p{L}\p{N}]+/gu)
    ?.slice(0, 8);
  if (!words?.length) return null;
  const tsquery = words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ');
  return { words, tsquery, normalised: words.join(' ') };
}

/** When the words find fewer rows than this, near spellings (trigrams) are searched as well. */
export const TYPO_FALLBACK_BELOW = 10;

// ---- nearest first

export interface Ranked {
  id: string;
  /** The index's order: the cube (chord) distance to the point. */
  d: number;
}

/**
 * A page of a nearest-first list within `radiusM`. `nearest(n)` asks the GiST index for the n
 * nearest listed rows in its distance order (`<->`) and nothing else: a radius condition lets the
 * planner prefer a bitmap scan that reads and sorts every row in the radius, and ordering by
 * distance *and* id stops the ordered scan. So the radius is applied here, to those n rows, and
 * ties are broken by id here. Rows at the distance where the index stopped may have been cut
 * arbitrarily; when that distance reaches into the page, more rows are asked of the index in its
 * order (twice as many each time) until the run of rows at that distance ends (places at one
 * address: the products of one store), so pages neither repeat nor skip a row.
 *
 * The total is exact whenever the radius holds no more than the rows read (offset + limit); past
 * that, the radius' rows are counted up to the cap (radiusCount), so the total is exact up to
 * LISTING_TOTAL_CAP and is the cap, flagged, beyond it.
 */
export async function nearestPage<R extends Ranked>(
  q: PageQuery,
  radiusM: number,
  nearest: (n: number) => Promise<R[]>,
  /** Of the `k` nearest rows (distances only), how many were read and how many lie within the radius (countNearest). */
  within: (k: number) => Promise<{ read: number; inside: number }>,
  /** Rows often at one place (the products of a store): asked for at once beyond the page. */
  ties = 0,
): Promise<{ items: (R & { distanceM: number })[]; meta: ListingMeta }> {
  type T = R & { distanceM: number };
  // The radius as its chord, compared as the count compares it (withinRadius).
  const chord = metresToChord(radiusM);
  const withDistance = (found: R[]): T[] =>
    found.filter((r) => r.d <= chord).map((r) => ({ ...r, distanceM: chordToMetres(r.d) }));
  const offset = (q.page - 1) * q.limit;
  const n = offset + q.limit + 1;
  const byOrder = (a: T, b: T) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  let asked = n + ties;
  let found = await nearest(asked);
  // The index's last row is at the distance of the page's last row: rows at that distance may follow.
  const cut = (rows: R[]) =>
    rows.length === asked && rows[Math.min(rows.length, offset + q.limit) - 1]!.d === rows[rows.length - 1]!.d;
  while (cut(found) && withDistance(found.slice(-1)).length) {
    asked *= 2;
    found = await nearest(asked);
  }
  const rows = withDistance(found).sort(byOrder);
  const page = rows.slice(offset, offset + q.limit + 1);
  const hasMore = page.length > q.limit;
  // The radius holds more rows than were read: they are counted, up to the cap.
  const counted =
    rows.length >= n
      ? Math.max(rows.length, await radiusCount(within, rows.length, rows[rows.length - 1]!.distanceM, radiusM))
      : rows.length;
  return { items: page.slice(0, q.limit), meta: metaOf(q, counted, hasMore) };
}

/**
 * The rows within the radius, up to LISTING_TOTAL_CAP + 1, from the nearest rows' distances: once a
 * row beyond the radius (or the end) is read, every row within it was. `read` rows were found
 * within `reach` metres: as densely over the circle, the radius holds about read * (radius /
 * reach)^2; a first look at twice that many (when it is well under the cap) spares a sparse region
 * the cap's rows, and a dense one goes to the cap at once.
 */
async function radiusCount(
  within: (k: number) => Promise<{ read: number; inside: number }>,
  read: number,
  reach: number,
  radiusM: number,
): Promise<number> {
  const cap = LISTING_TOTAL_CAP + 1;
  const guess = reach > 0 ? read * (radiusM / reach) ** 2 : cap;
  const first = Math.max(4 * read, Math.ceil(2 * guess));
  for (const k of first < cap ? [first, cap] : [cap]) {
    const found = await within(k);
    if (found.read < k || found.inside < found.read || k === cap) return found.inside;
  }
  return cap;
}
