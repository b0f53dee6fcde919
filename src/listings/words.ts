import { and, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { ListingMeta } from './page.js';

// Search words of the public listings (docs/listings.md, "Words"), over the stored search columns of
// src/db/search-columns.ts, so every listing asks its indexes the same way.

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

/**
 * The ways a stored document matches search words:
 * - `fts`: every word, the last as a prefix, from the GIN tsvector index;
 * - `typo`: that, or every word (of 4 letters or more) spelt nearly alike (`<%`, pg_trgm word similarity above the
 *   connection's `pg_trgm.word_similarity_threshold`, 0.5), from the GIN trigram index, but for the
 *   words in `spelt`, which match as typed. Both sides of the `or` are on one table's indexed columns,
 *   so the planner combines two bitmap scans.
 * The ranks weigh the name (A) over the description (B) and the city (C). `tsq`: the words' tsquery,
 * when it is not the value of `terms.tsquery` (a prepared statement's, evaluated once: see the product
 * search's rankedCardsQuery).
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

/** Rows matching search words (a condition on the stored search columns) and their rank by relevance. */
export interface WordMatch {
  match: SQL;
  rank: SQL;
}

/** How one public list answers words: its ranked page, its capped count and its page in another order. */
export interface WordQueries<T extends { meta: ListingMeta }> {
  /**
   * A page by relevance of the rows matching `match`, ranked by `rank`. `how.typo`: the near spellings'
   * match; `how.tsquery`: the words alone, when nothing else filters (the list's prepared statement may answer).
   */
  ranked(ex: Executor, match: SQL, rank: SQL, how: { typo: boolean; tsquery?: string }): Promise<T>;
  /** The rows matching `match`, counted up to `cap`. */
  count(ex: Executor, match: SQL, cap: number): Promise<number>;
  /** A page in the list's other orders of the rows matching `match`. */
  ordered(ex: Executor, match: SQL): Promise<T>;
  /**
   * The near spellings to look for when the words as typed find too few; none: there is nothing nearly
   * spelt to look for (the words as typed are answered). Without it: every word spelt nearly alike
   * (textMatch's `typo`).
   */
  nearSpellings?(ex: Executor): Promise<WordMatch | undefined>;
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
  const near = (): Promise<WordMatch | undefined> =>
    list.nearSpellings ? list.nearSpellings(ex) : Promise.resolve({ match: m.typo, rank: m.typoRank });
  if (opts.relevance) {
    const found = await list.ranked(ex, m.fts, m.ftsRank, {
      typo: false,
      tsquery: opts.wordsOnly ? terms.tsquery : undefined,
    });
    if (found.meta.total >= TYPO_FALLBACK_BELOW) return found;
    const typo = await near();
    return typo ? withBitmapScans(ex, (tx) => list.ranked(tx, typo.match, typo.rank, { typo: true })) : found;
  }
  if ((await list.count(ex, m.fts, TYPO_FALLBACK_BELOW)) >= TYPO_FALLBACK_BELOW) return list.ordered(ex, m.fts);
  const typo = await near();
  return typo ? withBitmapScans(ex, (tx) => list.ordered(tx, typo.match)) : list.ordered(ex, m.fts);
}
