import { asc, count, desc, getTableColumns, sql, type AnyColumn, type SQL, type Table } from 'drizzle-orm';
import type { PgTable, SelectedFields } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.js';
import type { PageQuery } from '../shared/schemas.js';
import { LISTING_TOTAL_CAP, RANKED_CANDIDATES_CAP, metaOf, type ListingMeta } from './page.js';

// The queries every public list shares (docs/listings.md): its rows counted up to a cap, and a page of
// its ranked candidates. Each list says once where its rows are (ListRows); the queries are written here.

/**
 * Where a public list reads its rows: its table and, when its visibility rule needs it, the one table
 * joined to it (a supplier's or an association's user, whose status the rule reads).
 */
export interface ListRows {
  table: PgTable;
  join?: { table: PgTable; on: SQL };
}

/** `fields` of the list's rows matching `where`: a query the caller orders and limits. */
export function selectRows(ex: Executor, list: ListRows, fields: SelectedFields, where: SQL | undefined) {
  const from = ex.select(fields).from(list.table).$dynamic();
  return (list.join ? from.innerJoin(list.join.table, list.join.on) : from).where(where);
}

/**
 * The list's rows matching `where`, counted up to `cap + 1` (so "more than the cap" is known without
 * counting them all); in the list's `order` when given, read from its index as the page was.
 */
export async function countCapped(
  ex: Executor,
  list: ListRows,
  where: SQL | undefined,
  cap = LISTING_TOTAL_CAP,
  order?: SQL[],
): Promise<number> {
  const rows = selectRows(ex, list, { one: sql`1`.as('one') }, where);
  const sub = (order ? rows.orderBy(...order) : rows).limit(cap + 1).as('c');
  const [row] = await ex.select({ n: count() }).from(sub);
  return row?.n ?? 0;
}

/**
 * The ranked candidates of search words: `fields` of the first RANKED_CANDIDATES_CAP + 1 rows matching
 * `where` (the first the index returns: ranking every match of a common word reads and sorts them all),
 * ranked by `rank`, ties by `nameKey` (the name's order key) when given, then by id. Each row carries
 * `counted`, how many candidates there are. The caller sets the page's limit and offset (values, or a
 * prepared statement's placeholders).
 */
export function rankedQuery(
  ex: Executor,
  list: ListRows,
  fields: SelectedFields,
  where: SQL | undefined,
  rank: SQL,
  nameKey?: SQL,
) {
  const ranked = {
    ...fields,
    rank: sql<number>`${rank}`.as('rank'),
    ...(nameKey && { nameKey: sql<string>`${nameKey}`.as('name_key') }),
  };
  const cand = ex.$with('cand').as(selectRows(ex, list, ranked, where).limit(RANKED_CANDIDATES_CAP + 1));
  const c = cand as unknown as Record<'id' | 'rank' | 'nameKey', AnyColumn>;
  return ex
    .with(cand)
    .select({ ...cand._.selectedFields, counted: sql<number>`(select count(*) from cand)`.mapWith(Number) })
    .from(cand)
    .orderBy(desc(c.rank), ...(nameKey ? [asc(c.nameKey)] : []), asc(c.id))
    .$dynamic();
}

/** Rows of the ranked candidates' page, and what ranked them (dropped from the items). */
type RankedRow = { rank?: unknown; nameKey?: unknown; counted?: number | string };

/**
 * One page of the ranked candidates: `read` fetches the page's rows (`limit` is one more than the page,
 * to tell whether a next page exists), each carrying `counted` (rankedQuery). A page past the end has
 * no row to carry it: the candidates are counted then, up to their cap.
 */
export async function rankedPage<R>(
  ex: Executor,
  list: ListRows,
  where: SQL | undefined,
  q: PageQuery,
  read: (take: { limit: number; offset: number }) => Promise<unknown[]>,
): Promise<{ items: R[]; meta: ListingMeta }> {
  const rows = (await read({ limit: q.limit + 1, offset: (q.page - 1) * q.limit })) as RankedRow[];
  const counted = rows[0]?.counted ?? (q.page > 1 ? await countCapped(ex, list, where, RANKED_CANDIDATES_CAP) : 0);
  const items = rows.slice(0, q.limit).map(({ rank: _rank, nameKey: _key, counted: _counted, ...row }) => row as R);
  return { items, meta: metaOf(q, Number(counted), rows.length > q.limit, RANKED_CANDIDATES_CAP) };
}

const SEARCH_COLUMNS = ['earth', 'searchDoc', 'searchVector'] as const;

/** A table's columns without the stored search ones, which a list never needs to read back. */
export function listedColumns<T extends Table>(table: T) {
  const columns = { ...getTableColumns(table) } as Record<string, unknown>;
  for (const key of SEARCH_COLUMNS) delete columns[key];
  return columns as Omit<T['_']['columns'], (typeof SEARCH_COLUMNS)[number]>;
}
