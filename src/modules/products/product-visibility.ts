import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { products } from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';

/**
 * The one rule for which products the public sees, at `now` (from ctx.clock): ACTIVE, not expired
 * (so a product leaves every list the second it expires, whatever the expiry job has done yet),
 * its supplier public (the supplier rule), its store live, active and not in a temporary closure.
 *
 * What does not change with time is the stored `products.listed` (ACTIVE, store live and active,
 * supplier public), kept by triggers (migration 0021_products_listed_triggers): one column of the
 * row read instead of three lookups per row, and the predicate of the lists' partial indexes. The
 * expiry and the closures are checked here; the stores in a closure now are looked up once per
 * query (an index of closures), not per row.
 * For any query over `products`: `where(and(isPublicProduct(now), ...filters))`.
 */
export const isPublicProduct = (now: Date | SQL): SQL => sql`(${products.listed} and ${isPublicAt(products, now)})`;

/**
 * The part of the rule that comes with time, for rows known to be listed (`row`: their expiry and
 * store, of `products` or of a subquery over it): not expired, the store not in a temporary closure.
 */
export const isPublicAt = (row: { expiresAt: SQLWrapper; storeId: SQLWrapper }, now: Date | SQL): SQL => {
  const at = instant(now);
  return sql`(${row.expiresAt} > ${at} and not (${row.storeId} = any(${closedStores(at)})))`;
};

/** A time as SQL: a Date becomes a timestamptz parameter; SQL (a prepared statement's placeholder) is kept. */
const instant = (at: Date | SQL): SQL => (at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at);

/** The ids of the stores in a temporary closure at `at`, as an array (from `stores_closure_idx`). */
const closedStores = (at: SQL): SQL =>
  sql`array(select s.id from ${stores} s where s.closure_starts_at is not null and s.closure_ends_at > ${at} and s.closure_starts_at <= ${at})`;

/** The store with this id is live, active, and not in a temporary closure at `now`. */
export const storeTakesOrders = (storeId: SQL | typeof products.storeId, now: Date | SQL): SQL => {
  const at = instant(now);
  return sql`exists (
  select 1 from ${stores} s where s.id = ${storeId} and s.deleted_at is null and s.is_active
  and not (s.closure_starts_at is not null and s.closure_starts_at <= ${at} and ${at} < s.closure_ends_at))`;
};
