import { count, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products } from '../../db/schema/products.js';

/** Products on sale (ACTIVE) and waiting for review, read from products_status_idx. */
export async function productCounts(ex: Executor) {
  const found = await ex
    .select({ status: products.status, n: count() })
    .from(products)
    .where(inArray(products.status, ['ACTIVE', 'PENDING_REVIEW']))
    .groupBy(products.status);
  const of = (s: string) => found.find((r) => r.status === s)?.n ?? 0;
  return { active: of('ACTIVE'), pendingReview: of('PENDING_REVIEW') };
}
