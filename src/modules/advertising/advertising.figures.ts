import { and, count, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { adCampaigns } from '../../db/schema/advertising.js';

/** Campaigns submitted and waiting for review, as the review queue lists them (ad_campaigns_status_idx). */
export async function pendingReviewCount(ex: Executor): Promise<number> {
  const [r] = await ex
    .select({ n: count() })
    .from(adCampaigns)
    .where(and(eq(adCampaigns.status, 'PENDING_REVIEW'), isNull(adCampaigns.deletedAt)));
  return r?.n ?? 0;
}
