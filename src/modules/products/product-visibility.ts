import { and, eq, gt, sql, type SQL } from 'drizzle-orm';
import { products } from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';
import { isPublicSupplier } from '../suppliers/supplier-visibility.js';

/**
 * The one rule for which products the public sees, at `now` (from ctx.clock): ACTIVE, not expired
 * (so a product leaves every list the second it expires, whatever the expiry job has done yet),
 * its supplier public (the supplier rule), its store live, active and not in a temporary closure.
 * For any query over `products`: `where(and(isPublicProduct(now), ...filters))`.
 */
export const isPublicProduct = (now: Date): SQL =>
  and(eq(products.status, 'ACTIVE'), gt(products.expiresAt, now), isPublicSupplier(products.supplierId), storeTakesOrders(products.storeId, now))!;

/** The store with this id is live, active, and not in a temporary closure at `now`. */
export const storeTakesOrders = (storeId: SQL | typeof products.storeId, now: Date): SQL => sql`exists (
  select 1 from ${stores} s where s.id = ${storeId} and s.deleted_at is null and s.is_active
  and not (s.closure_starts_at is not null and s.closure_starts_at <= ${now.toISOString()}::timestamptz and ${now.toISOString()}::timestamptz < s.closure_ends_at))`;
