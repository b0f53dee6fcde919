import { and, arrayContains, asc, desc, eq, gt, gte, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { literalLimit, opaque, preparedPage, rows as queryRows, runPage, type Executor } from '../../db/client.js';
import {
  countNearest,
  earthCube,
  earthPoint,
  metresToChord,
  textMatch,
  JsonItems,
  LISTING_TOTAL_CAP,
  RANKED_CANDIDATES_CAP,
  listingMeta,
  metaOf,
  nearestPage,
  countCapped,
  rankedPage,
  searchWords,
  type ListingMeta,
  type ListRows,
  type SearchTerms,
  type WordMatch,
} from '../../listings/index.js';
import { productSearchLexemes, productSearches, products } from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';
import { type DietaryTag, type ProductCategory, isPublicAt, isPublicProduct } from '../products/index.js';
import { openAtSql } from '../../shared/opening-hours.js';
import type { PageQuery } from '../../shared/schemas.js';
import type { ProductSort } from './product-search.schemas.js';
import { cardJson } from './product-search.json-sql.js';

// Public product lists over the stored columns (DESIGN section 8, docs/product-search.md). Every
// page is read in two steps: an inner query over `products` alone (the visibility rule is a column
// of the row, `listed`, and the partial index of the list's order or of its words answers it) picks
// the page's rows, then the outer query writes the cards of those rows only.

/** What the inner query reads of a product: its stored card, its picture and the sort keys. */
const own = {
  id: products.id,
  card: products.card,
  thumbnailKey: products.thumbnailKey,
  discountedPrice: products.discountedPrice,
  discountPercent: products.discountPercent,
  expiresAt: products.expiresAt,
  createdAt: products.createdAt,
  popularityScore: products.popularityScore,
};
/**
 * A row of a card query: the card as the API shows it (`ProductCardSchema`), built by PostgreSQL as
 * JSON text that the server passes on unread, and what the page's logic still needs (the id for ties,
 * the cube distance `d` for the radius).
 */
export interface CardRow {
  id: string;
  d: number | null;
  card: string;
  counted?: number;
}

export interface ProductFilter {
  terms: SearchTerms | null;
  category?: ProductCategory;
  minPrice?: number;
  maxPrice?: number;
  storeId?: string;
  supplierId?: string;
  city?: string;
  dietaryTags?: DietaryTag[];
  minDiscount?: number;
  expiresBefore?: Date;
  inStock?: boolean;
  openNow?: boolean;
  point?: { latitude: number; longitude: number; radiusM: number };
  sort: ProductSort;
}

/** Conditions on the store (city, open now) as a lookup of the product's own store. */
const ofStore = (cond: SQL) =>
  sql`exists (select 1 from ${stores} where ${stores.id} = ${products.storeId} and ${cond})`;

function filters(f: ProductFilter, now: Date): SQL {
  return and(
    isPublicProduct(now),
    f.category ? eq(products.category, f.category) : undefined,
    f.minPrice !== undefined ? gte(products.discountedPrice, f.minPrice) : undefined,
    f.maxPrice !== undefined ? lte(products.discountedPrice, f.maxPrice) : undefined,
    f.storeId ? eq(products.storeId, f.storeId) : undefined,
    f.supplierId ? eq(products.supplierId, f.supplierId) : undefined,
    f.city ? ofStore(sql`lower(${stores.city}) = ${f.city.toLowerCase()}`) : undefined,
    f.dietaryTags?.length ? arrayContains(products.dietaryTags, f.dietaryTags) : undefined,
    f.minDiscount !== undefined ? gte(products.discountPercent, f.minDiscount) : undefined,
    f.expiresBefore ? lte(products.expiresAt, f.expiresBefore) : undefined,
    f.inStock === undefined ? undefined : f.inStock ? gt(products.quantity, 0) : eq(products.quantity, 0),
    f.openNow === undefined
      ? undefined
      : ofStore(sql`${f.openNow ? sql`` : sql`not `}${openAtSql(stores.openingHours, stores.timezone, now)}`),
  )!;
}

type Keyed = {
  id: SQLWrapper;
  createdAt: SQLWrapper;
  discountedPrice: SQLWrapper;
  expiresAt: SQLWrapper;
  popularityScore: SQLWrapper;
  discountPercent: SQLWrapper;
};
/** Each sort, ties by id, exactly as its partial index (`products_listed_*_idx`) is ordered. */
const ORDERS: Record<Exclude<ProductSort, 'relevance' | 'distance'>, (c: Keyed) => SQL[]> = {
  price: (c) => [asc(c.discountedPrice), asc(c.id)],
  '-price': (c) => [desc(c.discountedPrice), asc(c.id)],
  newest: (c) => [desc(c.createdAt), desc(c.id)],
  expiry: (c) => [asc(c.expiresAt), asc(c.id)],
  popularity: (c) => [desc(c.popularityScore), asc(c.id)],
  discount: (c) => [desc(c.discountPercent), asc(c.id)],
};

const innerOf = (ex: Executor, d: SQL) => ex.select({ ...own, d: sql<number | null>`${d}`.as('d') }).from(products);

type Fields = Record<keyof typeof own | 'd', SQLWrapper> & Record<string, SQLWrapper>;
type Builder = Pick<Executor, 'select'>;
/**
 * The page's rows of an inner query (products alone, already limited) with their cards, in `order`:
 * the cards are written for those rows only.
 */
async function cards(
  db: Builder,
  files: string,
  inner: { as: (alias: string) => unknown },
  order: (c: Fields) => SQL[],
) {
  return (await cardsQuery(db, files, inner, order)) as unknown as CardRow[];
}

/**
 * `pageRows`: the rows (by distance, ties by id, counted from 1) whose card is built, `from` exclusive,
 * `to` inclusive; the others come without one. Nearest-first paging reads rows beyond the page (the
 * rest of a place's products, see nearestPage) that it needs only for their distance.
 */
function cardsQuery(
  db: Builder,
  files: unknown,
  inner: { as: (alias: string) => unknown },
  order: (c: Fields) => SQL[],
  pageRows?: { from: unknown; to: unknown },
) {
  const p = inner.as('p') as Fields & SQLWrapper;
  // The page's columns named in full in the card: a subquery's field alone is written unqualified.
  const card = cardJson(files, sql`"p"."d"`);
  const rank = sql`row_number() over (order by "p"."d", "p"."id")`;
  return db
    .select({
      id: p.id,
      d: sql<number | null>`${p.d}`,
      card: pageRows
        ? sql`case when ${rank} > ${pageRows.from}::int and ${rank} <= ${pageRows.to}::int then ${card} end`
        : card,
    } as never)
    .from(p as never)
    .orderBy(...order(p));
}

/**
 * The page's rows of a query that read only index columns (`page`: the ids, `d` and the order's
 * keys, already limited), with the stored card and picture read from the table for those rows alone
 * (a primary-key lookup each, LATERAL so the plan is the same whatever the planner expects of the
 * limit).
 */
function joinedCardsQuery(
  db: Builder,
  files: unknown,
  page: { as: (alias: string) => unknown },
  order: (c: Fields) => SQL[],
  extra: Record<string, SQL | SQL.Aliased> = {},
  plain: Builder = db,
) {
  const t = page.as('t') as Fields & SQLWrapper;
  // `plain`: a builder without the outer query's WITH, which the lateral lookup must not repeat.
  const row = (plain as Executor)
    .select({ id: products.id, card: products.card, thumbnailKey: products.thumbnailKey })
    .from(products)
    .where(sql`${products.id} = "t"."id"`)
    .as('p');
  return (db as Executor)
    .select({
      id: row.id,
      d: sql<number | null>`"t"."d"`.as('d'),
      card: cardJson(files, sql`"t"."d"`).as('card'),
      ...extra,
    } as never)
    .from(t as never)
    .crossJoinLateral(row)
    .orderBy(...order(t));
}

/**
 * The rows a window near a point reads in the order of `sort` (see ORDERED_WINDOW): the id, the
 * order's key and the distance, all in the order's index (migration 0023), so the rows passed over
 * are never fetched from the table.
 */
const windowKeys = (
  sort: 'expiry' | 'popularity',
  d: SQL,
): Record<'id' | 'd', SQLWrapper> & Record<string, SQLWrapper> => ({
  id: products.id,
  ...(sort === 'expiry' ? { expiresAt: products.expiresAt } : { popularityScore: products.popularityScore }),
  d: sql<number>`${d}`.as('d'),
});

// The pages of the bench's hot lists (a point and nothing else), prepared once per connection with
// plans kept (preparedPage): planning the nested query cost about as much as running it. The
// distance is named once (ordered by its column) so the kept plan needs no sort of its own.
const at = opaque(sql`${sql.placeholder('now')}::timestamptz`);
const preparedD = sql`(${products.location} <-> ${sql.placeholder('origin')}::cube)`;
const files = sql.placeholder('files');
const nearestPrepared = preparedPage((ex, rows) =>
  cardsQuery(
    ex,
    files,
    innerOf(ex, preparedD).where(isPublicProduct(at)).orderBy(sql`"d"`).limit(literalLimit(rows)),
    (c) => [asc(c.d)],
    {
      from: sql.placeholder('from'),
      to: sql.placeholder('to'),
    },
  ).prepare(`products_nearest_page_${rows}`),
);
/** Expiring soon and trending near a point: in the order's index, the radius on at most ORDERED_WINDOW rows. */
const windowPrepared = (sort: 'expiry' | 'popularity', name: string) =>
  preparedPage((ex, rows) => {
    const until =
      sort === 'expiry' ? lte(products.expiresAt, opaque(sql`${sql.placeholder('until')}::timestamptz`)) : undefined;
    // The card and its picture are in the order's index too (migration 0036): the page is read from the index alone.
    const w = ex
      .select({
        ...(windowKeys(sort, preparedD) as { id: typeof products.id; d: SQL.Aliased<number> }),
        card: products.card,
        thumbnailKey: products.thumbnailKey,
      })
      .from(products)
      .where(and(isPublicProduct(at), until))
      .orderBy(...ORDERS[sort](products))
      .limit(literalLimit(ORDERED_WINDOW))
      .as('w');
    const chord = opaque(sql`${sql.placeholder('chord')}::float8`);
    const order = ORDERS[sort](w as never);
    const key = (sort === 'expiry'
      ? { expiresAt: (w as never as Keyed).expiresAt }
      : { popularityScore: (w as never as Keyed).popularityScore }) as unknown as Record<string, SQL>;
    // Each row's place in the list (rn), so that the page's cards are joined in order and those before it left out.
    const near = ex
      .select({
        id: w.id,
        d: w.d,
        ...key,
        card: w.card,
        thumbnailKey: w.thumbnailKey,
        rn: sql<number>`row_number() over (order by ${sql.join(order, sql`, `)})`.as('rn'),
      })
      .from(w)
      .where(sql`${w.d} <= ${chord}`)
      .orderBy(...order)
      .limit(literalLimit(rows))
      .as('p');
    // One row: how many the window gave (at most `rows`) and the page's cards, rows (from, to], joined by the database.
    return ex
      .select({
        rows: sql<number>`count(*)::int`,
        cards: sql<
          string | null
        >`string_agg(${cardJson(files, sql`"p"."d"`)}, ',' order by "p"."rn") filter (where "p"."rn" > ${sql.placeholder('from')}::int and "p"."rn" <= ${sql.placeholder('to')}::int)`,
      })
      .from(near)
      .prepare(`${name}_${rows}`);
  });
const expiringWindow = windowPrepared('expiry', 'products_expiring_window_page');
const trendingWindow = windowPrepared('popularity', 'products_trending_window_page');

/** True when the filter is a point and nothing else (expiring soon's window aside): the prepared pages answer it. */
const pointOnly = (f: ProductFilter) =>
  !f.terms &&
  f.point !== undefined &&
  FILTERS.every((k) => f[k] === undefined || (k === 'dietaryTags' && !f.dietaryTags?.length)) &&
  (f.sort === 'expiry' || f.expiresBefore === undefined);
const FILTERS = [
  'category',
  'minPrice',
  'maxPrice',
  'storeId',
  'supplierId',
  'city',
  'dietaryTags',
  'minDiscount',
  'inStock',
  'openNow',
] as const satisfies readonly (keyof ProductFilter)[];

/** The rows of the public product lists. */
const PRODUCTS: ListRows = { table: products };

/**
 * Rows of a list near a point in another order (expiry, popularity, ...) read in that order from
 * its index, at most this many, before the radius is applied: near a town, a page is filled after
 * a few hundred. When they do not fill the page (a sparse region), the rows of the radius' box are
 * read and sorted instead, few there by construction.
 */
export const ORDERED_WINDOW = 2000;
/** A store's products share its position: so many more are read at once for a nearest-first page. */
const PRODUCTS_AT_ONE_PLACE = 16;

/** A page of a public product list: its cards as JSON texts (`files`: the public files' URL prefix). */
export async function searchProducts(
  ex: Executor,
  f: ProductFilter,
  now: Date,
  q: PageQuery,
  files: string,
): Promise<CardPage> {
  const offset = (q.page - 1) * q.limit;
  // A point and nothing else, in the order of expiring soon or trending: the prepared window answers,
  // before anything else is built (the radius' rows are read below when the window does not fill the page).
  const window =
    f.point &&
    pointOnly(f) &&
    (f.sort === 'expiry'
      ? f.expiresBefore
        ? expiringWindow
        : undefined
      : f.sort === 'popularity'
        ? trendingWindow
        : undefined);
  if (window && f.point) {
    const n = offset + q.limit + 1;
    const args = {
      now: now.toISOString(),
      until: f.expiresBefore?.toISOString(),
      origin: earthCube(f.point.latitude, f.point.longitude),
      chord: metresToChord(f.point.radiusM),
      files,
    };
    const [found] = (await window(ex, n).execute({ ...args, from: offset, to: offset + q.limit })) as {
      rows: number;
      cards: string | null;
    }[];
    const fetched = Math.min(found?.rows ?? 0, n);
    if (fetched >= n) return { items: JsonItems.joined(found!.cards), meta: nearMeta(q, fetched - offset) };
  }
  const base = filters(f, now);
  const origin = f.point ? earthPoint(f.point.latitude, f.point.longitude) : undefined;
  const d = origin ? sql<number>`(${products.location} <-> ${origin})` : sql<number>`null::float8`;
  const radius =
    f.point &&
    and(
      sql`earth_box(${origin}, ${f.point.radiusM}::float8) @> ${products.location}`,
      sql`earth_distance(${origin}, ${products.location}) <= ${f.point.radiusM}::float8`,
    );
  // The page in the list's order of the rows matching `match` as well (the words, or their near spellings).
  const ordered = async (ex: Executor, match?: SQL): Promise<CardPage> => {
    const where = and(base, match)!;
    if (f.point && f.sort === 'distance') {
      const point = f.point;
      const byDistance = (c: Fields) => [asc(c.d)];
      return nearestPage(
        q,
        point.radiusM,
        async (n) =>
          (pointOnly(f) && !match
            ? await runPage(
                nearestPrepared(ex, n),
                {
                  now: now.toISOString(),
                  origin: earthCube(point.latitude, point.longitude),
                  files,
                  from: offset,
                  to: offset + q.limit + 1,
                },
                n,
              )
            : await cards(ex, files, innerOf(ex, d).where(where).orderBy(d).limit(n), byDistance)) as (CardRow & {
            d: number;
          })[],
        (k) =>
          countNearest(
            ex,
            ex
              .select({ d: sql`${d}`.as('d') })
              .from(products)
              .where(where)
              .orderBy(d)
              .limit(k),
            point.radiusM,
          ),
        PRODUCTS_AT_ONE_PLACE,
      );
    }
    const order = ORDERS[f.sort as keyof typeof ORDERS] ?? ORDERS.newest;
    const n = offset + q.limit + 1;
    let rows: CardRow[] = [];
    if (f.point && !window) {
      // In the list's order from its index, the radius (as a cube distance) applied to at most ORDERED_WINDOW rows.
      const w = innerOf(ex, d)
        .where(where)
        .orderBy(...order(products))
        .limit(ORDERED_WINDOW)
        .as('w');
      rows = await cards(
        ex,
        files,
        ex
          .select()
          .from(w)
          .where(sql`${w.d} <= ${metresToChord(f.point.radiusM)}::float8`)
          .orderBy(...order(w))
          .limit(n),
        order,
      );
    }
    if (rows.length < n)
      rows = await cards(
        ex,
        files,
        innerOf(ex, d)
          .where(and(where, radius))
          .orderBy(...order(products))
          .limit(n),
        order,
      );
    const page = rows.slice(offset);
    // Near a point, counting the radius' rows would read them all: past the page the total is a lower bound.
    const meta = f.point
      ? nearMeta(q, page.length)
      : await listingMeta(q, page.length, () => countCapped(ex, PRODUCTS, where, LISTING_TOTAL_CAP, order(products)));
    return { items: page.slice(0, q.limit), meta };
  };
  if (!f.terms) return ordered(ex);
  const terms = f.terms;
  return searchWords<CardPage>(
    ex,
    { vector: products.searchVector, doc: products.searchDocument },
    terms,
    { relevance: f.sort === 'relevance', wordsOnly: wordsOnly(f) },
    {
      // Words alone: first from the newest WORDS_WINDOW public products (see rankedCards).
      ranked: async (tx, match, _rank, how) =>
        (how.tsquery ? await wordsWindowPage(tx, files, terms, now, q) : undefined) ??
        rankedCards(tx, files, and(base, radius, match)!, d, terms, how.typo ? 'typo' : 'fts', q),
      count: (tx, match, cap) => countCapped(tx, PRODUCTS, and(base, match), cap),
      ordered,
      nearSpellings: (tx) => nearSpellings(tx, terms),
    },
  );
}

/** The meta of a page near a point in another order: exact when the page ends the list, else at least one more row. */
function nearMeta(q: PageQuery, fetched: number): ListingMeta {
  const offset = (q.page - 1) * q.limit;
  if (fetched <= q.limit) return metaOf(q, offset + fetched, false);
  const total = Math.min(LISTING_TOTAL_CAP, offset + fetched);
  return {
    page: q.page,
    limit: q.limit,
    total,
    totalPages: Math.ceil(total / q.limit),
    hasMore: true,
    totalIsEstimate: true,
  };
}

/**
 * The condition of the words' near spellings (textMatch's `typo`), or none when every word is found as
 * typed among the listed products (the last as a prefix): a word the catalog has is not misspelt, so
 * when nothing has them all there is nothing nearly spelt to look for. Near spellings tested on
 * document after document were most of the words search's work, for queries of words that are all
 * there but never together. One lookup of each word in the catalog's words (product_search_lexemes).
 */
async function nearSpellings(ex: Executor, terms: SearchTerms): Promise<WordMatch | undefined> {
  const last = terms.words.length - 1;
  const l = productSearchLexemes.lexeme;
  // The last word as a prefix: the key's range from it to it followed by the last character there is.
  const has = terms.words.map((w, i) =>
    i === last
      ? sql`exists (select 1 from ${productSearchLexemes} where ${l} >= ${w} and ${l} < ${w} || chr(1114111))`
      : sql`exists (select 1 from ${productSearchLexemes} where ${l} = ${w})`,
  );
  const [row] = await queryRows<{ found: boolean[] }>(ex, sql`select array[${sql.join(has, sql`, `)}] as found`);
  const spelt = new Set(terms.words.filter((_, i) => row?.found[i]));
  if (spelt.size === terms.words.length) return undefined;
  const m = textMatch(products.searchVector, products.searchDocument, terms, spelt);
  return { match: m.typo, rank: m.typoRank };
}

/** A page of cards: its rows (each card's JSON in `card`) in order, or the cards already joined, and its meta. */
export type CardPage = { items: { card: string }[] | JsonItems; meta: ListingMeta };

/**
 * One page of the ranked candidates: the newest RANKED_CANDIDATES_CAP + 1 matches (from the words'
 * GIN index, or the newest index read until that many match, whichever the planner finds cheaper),
 * ranked (the rank computed for the candidates only). Near spellings (`typo`) take the first
 * matches the indexes give, in no order: reading the newest index for a near spelling would test
 * every row.
 */
function rankedCards(
  ex: Executor,
  files: string,
  where: SQL,
  d: SQL,
  terms: SearchTerms,
  match: 'fts' | 'typo',
  q: PageQuery,
): Promise<RankedPage> {
  return rankedPage<CardRow>(ex, PRODUCTS, where, q, (take) =>
    rankedCardsQuery(ex, files, where, d, terms, match, take),
  );
}

/** rankedCards' query: `take` the page's rows (its limit and offset, values or placeholders). */
function rankedCardsQuery(
  ex: Executor,
  files: unknown,
  where: SQL,
  d: SQL,
  terms: SearchTerms,
  match: 'fts' | 'typo',
  take: { limit: number; offset: number },
  windowAt?: SQL,
  tsq?: SQL,
) {
  // The candidates carry only what ranks them: the id and the words (and the document for near
  // spellings), all in the newest index (migration 0023), so the words' newest matches are read
  // from the index alone; the card's fields are read for the page's rows only.
  const first = ex
    .select({
      id: products.id,
      d: sql<number | null>`${d}`.as('d'),
      sv: sql`${products.searchVector}`.as('sv'),
      ...(match === 'typo' && { sd: sql`${products.searchDocument}`.as('sd') }),
    })
    .from(products)
    .where(where);
  let c0 = (match === 'fts' ? first.orderBy(desc(products.createdAt), desc(products.id)) : first)
    .limit(RANKED_CANDIDATES_CAP + 1)
    .as('c0');
  if (windowAt) {
    // The words are the only filter. Their newest matches are looked for among the newest
    // WORDS_WINDOW listed products first, in the newest index's order: left to estimate how many
    // rows two words match together, the planner read that whole index for pairs that are rare. The
    // rest of the visibility rule (expiry, closures: `windowAt` is the instant) is tested with the
    // words, after the window: tested in it, its selectivity unknown (a prepared statement's time),
    // it made the planner read and sort the whole table for the window instead of the index's first rows.
    const w = ex
      .select({
        id: products.id,
        createdAt: products.createdAt,
        expiresAt: products.expiresAt,
        storeId: products.storeId,
        d: sql<number | null>`${d}`.as('d'),
        sv: sql`${products.searchVector}`.as('sv'),
      })
      .from(products)
      .where(sql`${products.listed}`)
      .orderBy(desc(products.createdAt), desc(products.id))
      .limit(WORDS_WINDOW)
      .as('w');
    c0 = ex
      .select({ id: w.id, d: w.d, sv: w.sv })
      .from(w)
      .where(and(isPublicAt(w, windowAt), textMatch(w.sv, w.sv, terms, undefined, tsq).fts))
      .orderBy(desc(w.createdAt), desc(w.id))
      .limit(RANKED_CANDIDATES_CAP + 1)
      .as('c0') as unknown as typeof c0;
  }
  const m = textMatch(c0.sv, (c0 as unknown as { sd: SQLWrapper }).sd, terms, undefined, tsq);
  const cand = ex
    .$with('cand')
    .as(
      ex
        .select({ id: c0.id, d: c0.d, rank: sql<number>`${match === 'fts' ? m.ftsRank : m.typoRank}`.as('rank') })
        .from(c0),
    );
  const top = ex.select().from(cand).orderBy(desc(cand.rank), asc(cand.id)).limit(take.limit).offset(take.offset);
  return joinedCardsQuery(
    ex.with(cand),
    files,
    top,
    (p) => [desc(p.rank!), asc(p.id)],
    { counted: sql<number>`(select count(*) from cand)`.mapWith(Number).as('counted') },
    ex,
  );
}

/**
 * Words alone among the newest WORDS_WINDOW public products (rankedCards with `visible`), prepared:
 * building and planning this nested query on every search cost the server and PostgreSQL more than
 * running it. The words come as their tsquery text (`tsquery`), the page's offset as `offset`.
 */
const wordsWindowPrepared = preparedPage((ex, rows) => {
  // The tsquery made once per run (a sub-select): in a kept plan, to_tsquery of a parameter is not
  // folded into a constant and was parsed again for every row of the window.
  const tsq = opaque(sql`to_tsquery('simple', ${sql.placeholder('tsquery')}::text)`);
  const words: SearchTerms = { words: [], tsquery: '', normalised: '' };
  return rankedCardsQuery(
    ex,
    files,
    isPublicProduct(at),
    sql`null::float8`,
    words,
    'fts',
    { limit: literalLimit(rows), offset: sql.placeholder('offset') as unknown as number },
    at,
    tsq,
  ).prepare(`products_words_window_${rows}`);
});

/** A page of words alone from the newest WORDS_WINDOW public products, or none when they hold fewer than RANKED_CANDIDATES_CAP + 1 matches. */
async function wordsWindowPage(
  ex: Executor,
  files: string,
  terms: SearchTerms,
  now: Date,
  q: PageQuery,
): Promise<RankedPage | undefined> {
  const n = q.limit + 1;
  const rows = await runPage(
    wordsWindowPrepared(ex, n),
    { now: now.toISOString(), tsquery: terms.tsquery, files, offset: (q.page - 1) * q.limit },
    n,
  );
  const counted = Number((rows[0] as { counted?: number } | undefined)?.counted ?? 0);
  // Only a full set of candidates is the newest matches of all: else the table is asked.
  if (counted <= RANKED_CANDIDATES_CAP) return undefined;
  const items = rows as unknown as CardRow[];
  return { items: items.slice(0, q.limit), meta: metaOf(q, counted, items.length > q.limit, RANKED_CANDIDATES_CAP) };
}
type RankedPage = { items: CardRow[]; meta: ListingMeta };

/** Public products in the newest order whose words are matched first for a search of words alone (rankedCards). */
export const WORDS_WINDOW = 20_000;

/** True when the filter is words and nothing else. */
const wordsOnly = (f: ProductFilter) =>
  !f.point &&
  f.expiresBefore === undefined &&
  FILTERS.every((k) => f[k] === undefined || (k === 'dietaryTags' && !f.dietaryTags?.length));

/** Public products expiring within `until`, soonest first, optionally within a radius. */
export async function expiringSoon(
  ex: Executor,
  now: Date,
  until: Date,
  point: ProductFilter['point'],
  q: PageQuery,
  files: string,
) {
  return searchProducts(ex, { terms: null, expiresBefore: until, point, sort: 'expiry' }, now, q, files);
}

// ---- recorded searches

export interface SearchCount {
  day: string;
  query: string;
  searches: number;
  zeroResultSearches: number;
}

/** Adds a batch of counted searches to their day's rows. */
export async function addSearches(ex: Executor, batch: SearchCount[]): Promise<void> {
  if (!batch.length) return;
  await ex
    .insert(productSearches)
    .values(batch)
    .onConflictDoUpdate({
      target: [productSearches.day, productSearches.query],
      set: {
        searches: sql`${productSearches.searches} + excluded.searches`,
        zeroResultSearches: sql`${productSearches.zeroResultSearches} + excluded.zero_result_searches`,
      },
    });
}

/** The most searched words between two UTC days (inclusive), and the most searched that found nothing. */
export async function topSearches(ex: Executor, from: string, to: string, limit: number) {
  const inPeriod = and(gte(productSearches.day, from), lte(productSearches.day, to));
  const searches = sql<number>`sum(${productSearches.searches})`.mapWith(Number);
  const zero = sql<number>`sum(${productSearches.zeroResultSearches})`.mapWith(Number);
  const [top, nothing] = await Promise.all([
    ex
      .select({ query: productSearches.query, searches, zeroResultSearches: zero })
      .from(productSearches)
      .where(inPeriod)
      .groupBy(productSearches.query)
      .orderBy(desc(searches), asc(productSearches.query))
      .limit(limit),
    ex
      .select({ query: productSearches.query, searches: zero })
      .from(productSearches)
      .where(and(inPeriod, gt(productSearches.zeroResultSearches, 0)))
      .groupBy(productSearches.query)
      .orderBy(desc(zero), asc(productSearches.query))
      .limit(limit),
  ]);
  return { top, nothing };
}
