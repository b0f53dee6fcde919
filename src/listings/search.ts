import { and, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.js';
import type { PageQuery } from '../shared/schemas.js';
import { listingMeta, metaOf, type ListingMeta } from './page.js';
import { countCapped, rankedPage, rankedQuery, selectRows, type ListRows } from './queries.js';
import { searchTerms, searchWords } from './words.js';

/**
 * A public list searched by words and filters (stores, suppliers, associations): where its rows are and
 * what a page reads.
 */
export interface SearchedList extends ListRows {
  /** The columns a page reads (listedColumns of its table). */
  fields: SelectedFields;
  /** The stored search columns (src/db/search-columns.ts). */
  words: { vector: SQLWrapper; doc: SQLWrapper };
  /** Ranks tied by relevance are ordered by this key (the name's order key), then by id; by id alone without. */
  nameKey?: SQL;
  /**
   * The ranked page of words and nothing else, prepared once per connection (the list's most common search;
   * planning its query cost about as much as running it): rankedQuery of the words' `tsquery` as a placeholder.
   */
  wordsOnly?: (ex: Executor, tsquery: string, take: { limit: number; offset: number }) => Promise<unknown[]>;
}

export interface ListSearch {
  /** The words asked for, as typed; none: the filters alone. */
  q?: string;
  /** The list's visibility rule and the query's filters. */
  filters: SQL | undefined;
  /** The order of a page not sorted by relevance (its index's order, ties by id). */
  order: SQL[];
  relevance: boolean;
  /** True when nothing but the words filters the list: the prepared `wordsOnly` page may answer. */
  wordsOnly: boolean;
}

/**
 * A page of a public list searched by words and filters (docs/listings.md, "Words"): the filters alone
 * in the list's order, or the words' matches (searchWords: as typed, then near spellings when they find
 * too few) ranked by relevance or in the list's order. Totals are capped (countCapped, rankedPage).
 */
export async function searchList<R>(
  ex: Executor,
  list: SearchedList,
  s: ListSearch,
  q: PageQuery,
): Promise<{ items: R[]; meta: ListingMeta }> {
  const terms = s.q === undefined ? null : searchTerms(s.q);
  if (s.q !== undefined && !terms) return { items: [], meta: metaOf(q, 0, false) };
  const ordered = async (tx: Executor, match: SQL | undefined) => {
    const where = and(s.filters, match);
    const rows = await selectRows(tx, list, list.fields, where)
      .orderBy(...s.order)
      .limit(q.limit + 1)
      .offset((q.page - 1) * q.limit);
    const meta = await listingMeta(q, rows.length, () => countCapped(tx, list, where));
    return { items: rows.slice(0, q.limit) as R[], meta };
  };
  if (!terms) return ordered(ex, undefined);
  return searchWords(
    ex,
    list.words,
    terms,
    { relevance: s.relevance, wordsOnly: s.wordsOnly && list.wordsOnly !== undefined },
    {
      ranked: (tx, match, rank, { tsquery }) => {
        const where = and(s.filters, match);
        return rankedPage<R>(tx, list, where, q, (take) =>
          tsquery && list.wordsOnly
            ? list.wordsOnly(tx, tsquery, take)
            : rankedQuery(tx, list, list.fields, where, rank, list.nameKey).limit(take.limit).offset(take.offset),
        );
      },
      count: (tx, match, cap) => countCapped(tx, list, and(s.filters, match), cap),
      ordered,
    },
  );
}
