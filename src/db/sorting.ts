import { asc, Column, desc, is, SQL, sql, type SQLWrapper } from 'drizzle-orm';
import type { SortOf } from '../shared/schemas.js';

// The order of the administrators' lists (`sort=createdAt`, `sort=-createdAt`), one rule for all.

/**
 * What a sort field orders by: a column (empty values where its definition allows them), or an
 * expression, never empty unless given as `{ by, nullable: true }`.
 */
export type SortKey = Column | SQL | { by: SQLWrapper; nullable: true };

/** Text such as a status or a code compared byte by byte: the same order on every database's locale. */
export const byteOrderKey = (text: SQLWrapper): SQL => sql`${text} collate "C"`;

/**
 * The ORDER BY of `sort`: its key in its direction, then `id` in the same direction, so rows with
 * equal keys keep one order and pages neither repeat nor skip a row. Empty values come last both
 * ways (an empty date is not "the most recent"). A key that cannot be empty is ordered plainly,
 * so that `desc` reads an ascending index backwards: `desc nulls last` would not match it.
 */
export function toOrderBy<F extends string>(sort: SortOf<F>, keys: Record<F, SortKey>, id: Column): SQL[] {
  const descending = sort.startsWith('-');
  const key = keys[(descending ? sort.slice(1) : sort) as F];
  const [by, nullable] = is(key, Column) ? [key, !key.notNull] : is(key, SQL) ? [key, false] : [key.by, key.nullable];
  if (!descending) return [asc(by), asc(id)];
  return [nullable ? sql`${by} desc nulls last` : desc(by), desc(id)];
}
