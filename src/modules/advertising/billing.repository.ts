import { and, count, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  adCampaigns,
  adImpressionBatches,
  adTopUps,
  advertiserProfiles,
  type TopUpStatus,
} from '../../db/schema/advertising.js';
import { pageOffset, type PageQuery } from '../../shared/schemas.js';

export type TopUpRecord = typeof adTopUps.$inferSelect;

// ---- advertisers' balances

/** Takes the advertiser's row: every spend of its balance holds it first (ad-spend.ts). */
export async function lockAdvertiser(ex: Executor, id: string): Promise<void> {
  await ex
    .select({ id: advertiserProfiles.id })
    .from(advertiserProfiles)
    .where(eq(advertiserProfiles.id, id))
    .for('update');
}

export async function userOfAdvertiser(ex: Executor, id: string): Promise<string> {
  const [row] = await ex
    .select({ userId: advertiserProfiles.userId })
    .from(advertiserProfiles)
    .where(eq(advertiserProfiles.id, id));
  return row!.userId;
}

/** Whether `left` pays a campaign's next unit: a CPC click's bid, or anything for CPM (the last thousand takes what is left). */
const fundedBy = (left: number) =>
  sql`(case when ${adCampaigns.pricingModel} = 'CPC' then ${adCampaigns.bid} <= ${left} else ${left} > 0 end)`;

export function pauseUnfunded(ex: Executor, advertiserId: string, left: number, at: Date) {
  return ex
    .update(adCampaigns)
    .set({ status: 'PAUSED', stopReason: 'BALANCE_SPENT', updatedAt: at })
    .where(
      and(
        eq(adCampaigns.advertiserId, advertiserId),
        eq(adCampaigns.status, 'ACTIVE'),
        isNull(adCampaigns.deletedAt),
        sql`not ${fundedBy(left)}`,
      ),
    )
    .returning({ id: adCampaigns.id, name: adCampaigns.name });
}

/** Campaigns paused for want of balance that `left` pays again, not past their end: ACTIVE. */
export function resumeFunded(ex: Executor, advertiserId: string, left: number, at: Date) {
  return ex
    .update(adCampaigns)
    .set({ status: 'ACTIVE', stopReason: null, updatedAt: at })
    .where(
      and(
        eq(adCampaigns.advertiserId, advertiserId),
        eq(adCampaigns.status, 'PAUSED'),
        eq(adCampaigns.stopReason, 'BALANCE_SPENT'),
        isNull(adCampaigns.deletedAt),
        sql`${adCampaigns.endsAt} > ${at.toISOString()}::timestamptz`,
        fundedBy(left),
      ),
    )
    .returning({ id: adCampaigns.id });
}

// ---- top-ups

export async function insertTopUp(ex: Executor, values: typeof adTopUps.$inferInsert): Promise<TopUpRecord> {
  const [row] = await ex.insert(adTopUps).values(values).returning();
  return row!;
}

export async function findTopUp(ex: Executor, id: string, opts: { lock?: boolean } = {}) {
  const q = ex.select().from(adTopUps).where(eq(adTopUps.id, id)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

/** Moves a top-up from `from`; undefined when it was no longer there. */
export async function moveTopUp(
  ex: Executor,
  id: string,
  from: TopUpStatus,
  patch: Partial<TopUpRecord> & { status: TopUpStatus },
): Promise<TopUpRecord | undefined> {
  const [row] = await ex
    .update(adTopUps)
    .set(patch)
    .where(and(eq(adTopUps.id, id), eq(adTopUps.status, from)))
    .returning();
  return row;
}

export async function listTopUps(ex: Executor, advertiserId: string, q: PageQuery & { status?: TopUpStatus }) {
  const where = and(eq(adTopUps.advertiserId, advertiserId), q.status && eq(adTopUps.status, q.status));
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(adTopUps)
      .where(where)
      .orderBy(desc(adTopUps.createdAt), desc(adTopUps.id))
      .limit(q.limit)
      .offset(pageOffset(q)),
    ex.select({ n: count() }).from(adTopUps).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

/** Top-ups still waiting for their payment: how many, and for how much. */
export async function pendingTopUps(ex: Executor, advertiserId: string) {
  const [row] = await ex
    .select({ count: count(), amount: sql<string>`coalesce(sum(${adTopUps.amount}), 0)` })
    .from(adTopUps)
    .where(and(eq(adTopUps.advertiserId, advertiserId), eq(adTopUps.status, 'PENDING')));
  return { count: row?.count ?? 0, amount: Number(row?.amount ?? 0) };
}

// ---- impression batches

/** Records a batch as applied; false when it already was (a retry after an unclear failure). */
export async function claimBatch(ex: Executor, id: string, at: Date): Promise<boolean> {
  const got = await ex
    .insert(adImpressionBatches)
    .values({ id, appliedAt: at })
    .onConflictDoNothing()
    .returning({ id: adImpressionBatches.id });
  return got.length > 0;
}

/** Forgets batches older than any retry. */
export async function pruneBatches(ex: Executor, before: Date): Promise<void> {
  await ex.delete(adImpressionBatches).where(lte(adImpressionBatches.appliedAt, before));
}
