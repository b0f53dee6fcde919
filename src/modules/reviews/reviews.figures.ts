import { count, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { reviews, reviewSummaries } from '../../db/schema/reviews.js';
import { averageOf } from './reviews.views.js';

/** Reviews with open reports, waiting for an administrator (reviews_reported_idx, partial). */
export async function reportedCount(ex: Executor): Promise<number> {
  const [r] = await ex.select({ n: count() }).from(reviews).where(gt(reviews.openReports, 0));
  return r?.n ?? 0;
}

/**
 * A supplier's rating from its rating summary (the reviews of the supplier, not of its products:
 * docs/reviews.md), read by the summary's key; null while it has no visible review.
 */
export async function supplierRating(
  ex: Executor,
  supplierId: string,
): Promise<{ average: number; count: number } | null> {
  const [s] = await ex
    .select({ reviewCount: reviewSummaries.reviewCount, ratingSum: reviewSummaries.ratingSum })
    .from(reviewSummaries)
    .where(eq(reviewSummaries.targetId, supplierId));
  return s && s.reviewCount > 0 ? { average: averageOf(s), count: s.reviewCount } : null;
}
