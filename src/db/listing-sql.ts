import { and, getTableColumns, sql, type SQL, type SQLWrapper, type Table } from 'drizzle-orm';
import { rows as rowsOf, type Executor } from './client.js';
import { TYPO_FALLBACK_BELOW, type ListingMeta, type SearchTerms } from '../shared/listing-page.js';

// SQL pieces of the public listings (DESIGN section 8), over the stored columns of
// search-columns.ts, so every listing asks its indexes the same way.

/** earthdistance's Earth radius in metres (its `earth()`), a sphere. */
export const EARTH_RADIUS_M = 6_378_168;

/**
 * A point as the text of earthdistance's cube, as `ll_to_earth` makes it, computed here: calling
 * `ll_to_earth` in the query tripled the cost of a nearby page.
 */
export function earthCube(latitude: number, longitude: number): string {
  const rad = Math.PI / 180;
  const [lat, lng] = [latitude * rad, longitude * rad];
  const r = EARTH_RADIUS_M;
  return `(${r * Math.cos(lat) * Math.cos(lng)}, ${r * Math.cos(lat) * Math.sin(lng)}, ${r * Math.sin(lat)})`;
}

/** A point as earthdistance's cube, to compare with a stored `earth` column. */
export const earthPoint = (latitude: number, longitude: number): SQL => sql`${earthCube(latitude, longitude)}::cube`;

/** The great-circle distance, in metres, of a cube (chord) distance `<->` (earthdistance's sec_to_gc). */
export const chordToMetres = (chord: number): number =>
  2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.max(0, chord) / (2 * EARTH_RADIUS_M)));
const diameter = sql.raw(String(2 * EARTH_RADIUS_M));
/**
 * In SQL: the great-circle distance in km, to the metre, of a cube (chord) distance (as chordToMetres,
 * rounded as the views round it); null for null (`least` and `greatest` would skip a null: the case keeps it).
 */
export const kmOfChordSql = (d: SQLWrapper): SQL =>
  sql`round(${diameter} * asin(case when ${d} >= ${diameter} then 1 else ${d} / ${diameter} end)) / 1000`;
/** In SQL: a timestamp as JavaScript's toISOString writes it (UTC, milliseconds, `Z`), for JSON built by the database. */
export const isoSql = (t: SQLWrapper): SQL => sql`to_char(${t} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The cube (chord) distance `<->` of a great-circle distance in metres: a radius as the GiST index's distance. */
export const metresToChord = (metres: number): number =>
  2 * EARTH_RADIUS_M * Math.sin(Math.min(Math.PI / 2, metres / (2 * EARTH_RADIUS_M)));

/**
 * Of the nearest rows `nearest` read (a query of their cube distance `d`, in the GiST index's order,
 * limited), how many it read and how many lie within `radiusM` (as nearestPage compares them: the
 * chord). A nearby list counts its radius' rows so: an ordered scan of the index stops at the limit,
 * where the radius' box as a condition let the planner read a bitmap of the whole box and sort it
 * (10,665 rows for 5 km in the densest town of 100,000 products).
 */
export async function countNearest(
  ex: Executor,
  nearest: SQLWrapper,
  radiusM: number,
): Promise<{ read: number; inside: number }> {
  const [row] = await rowsOf<{ read: number; inside: number }>(
    ex,
    sql`select count(*)::int as read, (count(*) filter (where c.d <= ${metresToChord(radiusM)}::float8))::int as inside from ${nearest} as c`,
  );
  return row ?? { read: 0, inside: 0 };
}

/**
 * The ways a stored document matches search words:
 * - `fts`: every word, the last as a prefix, from the GIN tsvector index;
 * - `typo`: that, or every word (of 4 letters or more) spelt nearly alike (`<%`, pg_trgm word similarity above the
 *   connection's `pg_trgm.word_similarity_threshold`, 0.5), from the GIN trigram index, but for the
 *   words in `spelt`, which match as typed. Both sides of the `or` are on one table's indexed columns,
 *   so the planner combines two bitmap scans.
 * The ranks weigh the name (A) over the description (B) and the city (C). `tsq`: the words' tsquery,
 * when it is not the value of `terms.tsquery` (a prepared statement's, evaluated once: see rankedQuery).
 */
export function textMatch(
  vector: SQLWrapper,
  doc: SQLWrapper,
  terms: SearchTerms,
  spelt: ReadonlySet<string> = new Set(),
  tsq: SQL = sql`to_tsquery('simple', ${terms.tsquery})`,
) {
  const fts = sql`${vector} @@ ${tsq}`;
  const ftsRank = sql`ts_rank(${vector}, ${tsq})`;
  // Words of fewer than 4 letters have too few trigrams to tell a typo from another word (and match
  // most documents): they must begin a word of the document instead.
  const last = terms.words.length - 1;
  // `spelt`: words known to be spelt right (found as typed, the last as a prefix): those must match as typed.
  const similar = and(
    ...terms.words.map((w, i) =>
      spelt.has(w)
        ? sql`${vector} @@ to_tsquery('simple', ${i === last ? `${w}:*` : w})`
        : w.length >= 4
          ? sql`${w} <% ${doc}`
          : sql`${vector} @@ to_tsquery('simple', ${`${w}:*`})`,
    ),
  )!;
  const similarity = sql.join(
    terms.words.map((w) => sql`word_similarity(${w}, ${doc})`),
    sql` + `,
  );
  return {
    fts,
    ftsRank,
    typo: sql`(${fts} or (${similar}))`,
    typoRank: sql`(${ftsRank} + (${similarity}) / ${terms.words.length})`,
  };
}

/**
 * Runs the queries of near spellings (`typo` of textMatch) with bitmap scans only, in a transaction
 * of their own (`set local`). The planner cannot tell how many rows a misspelt word matches: when
 * it guesses many, it tests `<%` on row after row of a sequential or ordered scan (1.5 s for a
 * word that matches nothing at 100,000 products); the trigram and word indexes, combined as
 * bitmaps, read only the rows that share the words' trigrams. Called with the database handle (the
 * lists run outside transactions): inside one, the settings would last until it ends.
 */
export function withBitmapScans<T>(ex: Executor, run: (tx: Executor) => Promise<T>): Promise<T> {
  return ex.transaction(async (tx) => {
    await tx.execute(
      sql`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)`,
    );
    return run(tx);
  });
}

/** How one public list answers words: its ranked page, its capped count and its page in another order. */
export interface WordQueries<T extends { meta: ListingMeta }> {
  /** A page by relevance of the rows matching `match`, ranked by `rank`; `tsquery`: the words alone (for a prepared statement), when nothing else filters. */
  ranked(ex: Executor, match: SQL, rank: SQL, tsquery?: string): Promise<T>;
  /** The rows matching `match`, counted up to `cap`. */
  count(ex: Executor, match: SQL, cap: number): Promise<number>;
  /** A page in the list's other orders of the rows matching `match`. */
  ordered(ex: Executor, match: SQL): Promise<T>;
}

/**
 * The word search of the public lists (docs/listings.md "Words"): every word, the last as a prefix,
 * from the GIN tsvector index; when that finds fewer than TYPO_FALLBACK_BELOW rows, near spellings
 * as well, with bitmap scans only (withBitmapScans).
 */
export async function searchWords<T extends { meta: ListingMeta }>(
  ex: Executor,
  columns: { vector: SQLWrapper; doc: SQLWrapper },
  terms: SearchTerms,
  opts: { relevance: boolean; wordsOnly: boolean },
  list: WordQueries<T>,
): Promise<T> {
  const m = textMatch(columns.vector, columns.doc, terms);
  if (opts.relevance) {
    const found = await list.ranked(ex, m.fts, m.ftsRank, opts.wordsOnly ? terms.tsquery : undefined);
    if (found.meta.total >= TYPO_FALLBACK_BELOW) return found;
    return withBitmapScans(ex, (tx) => list.ranked(tx, m.typo, m.typoRank));
  }
  if ((await list.count(ex, m.fts, TYPO_FALLBACK_BELOW)) >= TYPO_FALLBACK_BELOW) return list.ordered(ex, m.fts);
  return withBitmapScans(ex, (tx) => list.ordered(tx, m.typo));
}

const SEARCH_COLUMNS = ['earth', 'searchDoc', 'searchVector'] as const;

/** A table's columns without the stored search ones, which a list never needs to read back. */
export function listedColumns<T extends Table>(table: T) {
  const columns = { ...getTableColumns(table) } as Record<string, unknown>;
  for (const key of SEARCH_COLUMNS) delete columns[key];
  return columns as Omit<T['_']['columns'], (typeof SEARCH_COLUMNS)[number]>;
}
