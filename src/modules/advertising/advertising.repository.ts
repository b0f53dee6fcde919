import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  adCampaignDaily,
  adCampaigns,
  adClickViewers,
  advertiserProfiles,
  type CampaignStatus,
} from '../../db/schema/advertising.js';
import { nameOrderKey } from '../../db/folding.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import type { PageQuery, SortOf } from '../../shared/schemas.js';
import type { CampaignSortField } from './advertising.schemas.js';
import { pageOffset } from '../../shared/schemas.js';

export type AdvertiserRecord = typeof advertiserProfiles.$inferSelect;
export type CampaignRecord = typeof adCampaigns.$inferSelect;
export type NewCampaign = typeof adCampaigns.$inferInsert;
/** An active campaign as serving keeps it: the row and what it spent on `day`. */
export type ServableRecord = CampaignRecord & { todaySpend: number };

const live = isNull(adCampaigns.deletedAt);
const uuidArray = (ids: readonly string[]) => sql`${`{${ids.join(',')}}`}::uuid[]`;
const intArray = (ns: readonly number[]) => sql`${`{${ns.join(',')}}`}::int[]`;
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// ---- advertisers

export async function insertProfile(
  ex: Executor,
  values: typeof advertiserProfiles.$inferInsert,
): Promise<AdvertiserRecord | undefined> {
  const [row] = await ex
    .insert(advertiserProfiles)
    .values(values)
    .onConflictDoNothing({ target: advertiserProfiles.userId })
    .returning();
  return row;
}

export async function findProfileOfUser(
  ex: Executor,
  userId: string,
  opts: { lock?: boolean } = {},
): Promise<AdvertiserRecord | undefined> {
  const q = ex.select().from(advertiserProfiles).where(eq(advertiserProfiles.userId, userId)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function findProfile(ex: Executor, id: string): Promise<AdvertiserRecord | undefined> {
  const [row] = await ex.select().from(advertiserProfiles).where(eq(advertiserProfiles.id, id)).limit(1);
  return row;
}

export async function updateProfile(
  ex: Executor,
  id: string,
  patch: Partial<AdvertiserRecord>,
): Promise<AdvertiserRecord> {
  const [row] = await ex.update(advertiserProfiles).set(patch).where(eq(advertiserProfiles.id, id)).returning();
  return row!;
}

export async function listAdvertisers(ex: Executor, q: PageQuery & { q?: string }) {
  const where = q.q
    ? or(
        ilike(advertiserProfiles.companyName, `%${escapeLike(q.q)}%`),
        ilike(advertiserProfiles.contactEmail, `%${escapeLike(q.q)}%`),
      )
    : undefined;
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(advertiserProfiles)
      .where(where)
      .orderBy(desc(advertiserProfiles.createdAt), desc(advertiserProfiles.id))
      .limit(q.limit)
      .offset(pageOffset(q)),
    ex.select({ n: count() }).from(advertiserProfiles).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- campaigns

export async function insertCampaign(ex: Executor, values: NewCampaign): Promise<CampaignRecord> {
  const [row] = await ex.insert(adCampaigns).values(values).returning();
  return row!;
}

/** A campaign that is not deleted; `lock` takes its row until the transaction ends. */
export async function findCampaign(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<CampaignRecord | undefined> {
  const q = ex
    .select()
    .from(adCampaigns)
    .where(and(eq(adCampaigns.id, id), live))
    .limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function updateCampaign(
  ex: Executor,
  id: string,
  patch: Partial<CampaignRecord>,
): Promise<CampaignRecord> {
  const [row] = await ex.update(adCampaigns).set(patch).where(eq(adCampaigns.id, id)).returning();
  return row!;
}

export interface CampaignFilter {
  advertiserId?: string;
  status?: CampaignStatus;
}

const SORT_KEYS: Record<CampaignSortField, SortKey> = {
  createdAt: adCampaigns.createdAt,
  submittedAt: adCampaigns.submittedAt,
  approvedAt: adCampaigns.approvedAt,
  startsAt: adCampaigns.startsAt,
  endsAt: adCampaigns.endsAt,
  name: nameOrderKey(adCampaigns.name),
  status: byteOrderKey(adCampaigns.status),
  totalBudget: adCampaigns.totalBudget,
  dailyBudget: adCampaigns.dailyBudget,
  bid: adCampaigns.bid,
  spent: adCampaigns.spent,
  impressions: adCampaigns.impressions,
  clicks: adCampaigns.clicks,
};

/** Newest first unless sorted otherwise; the review queue (PENDING_REVIEW) oldest submission first. */
export async function listCampaigns(ex: Executor, f: CampaignFilter, q: PageQuery, sort?: SortOf<CampaignSortField>) {
  const conds: SQL[] = [live];
  if (f.advertiserId) conds.push(eq(adCampaigns.advertiserId, f.advertiserId));
  if (f.status) conds.push(eq(adCampaigns.status, f.status));
  const where = and(...conds);
  const order = toOrderBy(
    sort ?? (f.status === 'PENDING_REVIEW' ? 'submittedAt' : '-createdAt'),
    SORT_KEYS,
    adCampaigns.id,
  );
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(adCampaigns)
      .where(where)
      .orderBy(...order)
      .limit(q.limit)
      .offset(pageOffset(q)),
    ex.select({ n: count() }).from(adCampaigns).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- serving

/** Every ACTIVE campaign not past its end, with its spend on `day`: what serving keeps in memory. */
export async function loadServable(ex: Executor, day: string, now: Date): Promise<ServableRecord[]> {
  const found = await ex
    .select({ c: adCampaigns, todaySpend: sql<number>`coalesce(${adCampaignDaily.spend}, 0)::int` })
    .from(adCampaigns)
    .leftJoin(adCampaignDaily, and(eq(adCampaignDaily.campaignId, adCampaigns.id), eq(adCampaignDaily.day, day)))
    .where(and(eq(adCampaigns.status, 'ACTIVE'), live, sql`${adCampaigns.endsAt} > ${now.toISOString()}::timestamptz`));
  return found.map((r) => ({ ...r.c, todaySpend: Number(r.todaySpend) }));
}

/**
 * Counts a viewer's click once per window: the row is written only when there is none or the
 * last counted click is older than `windowStart`. Concurrent clicks of one viewer queue on the row.
 */
export async function takeViewerClick(
  ex: Executor,
  campaignId: string,
  viewerKey: string,
  at: Date,
  windowStart: Date,
): Promise<boolean> {
  const got = await ex
    .insert(adClickViewers)
    .values({ campaignId, viewerKey, countedAt: at })
    .onConflictDoUpdate({
      target: [adClickViewers.campaignId, adClickViewers.viewerKey],
      set: { countedAt: at },
      setWhere: lte(adClickViewers.countedAt, windowStart),
    })
    .returning({ campaignId: adClickViewers.campaignId });
  return got.length > 0;
}

/**
 * Adds a click to a campaign being served. A CPC click costs the bid and is taken only while the
 * total budget and the advertiser's balance (`left`, read under the advertiser's lock) can pay it:
 * the row lock makes concurrent clicks wait and re-read `spent`, so a budget of n clicks pays n.
 * The campaign completes with the click that leaves less than a bid.
 */
export async function chargeClick(ex: Executor, id: string, now: Date, left: number) {
  const cost = sql`(case when ${adCampaigns.pricingModel} = 'CPC' then ${adCampaigns.bid} else 0 end)`;
  const exhausted = sql`(${adCampaigns.pricingModel} = 'CPC' and ${adCampaigns.spent} + 2 * ${adCampaigns.bid} > ${adCampaigns.totalBudget})`;
  const [row] = await ex
    .update(adCampaigns)
    .set({
      clicks: sql`${adCampaigns.clicks} + 1`,
      spent: sql`${adCampaigns.spent} + ${cost}`,
      status: sql`case when ${exhausted} then 'COMPLETED' else ${adCampaigns.status} end`,
      stopReason: sql`case when ${exhausted} then 'BUDGET_SPENT' else ${adCampaigns.stopReason} end`,
      completedAt: sql`case when ${exhausted} then ${now.toISOString()}::timestamptz else ${adCampaigns.completedAt} end`,
    })
    .where(
      and(
        eq(adCampaigns.id, id),
        eq(adCampaigns.status, 'ACTIVE'),
        live,
        sql`${adCampaigns.startsAt} <= ${now.toISOString()}::timestamptz and ${adCampaigns.endsAt} > ${now.toISOString()}::timestamptz`,
        sql`${adCampaigns.spent} + ${cost} <= ${adCampaigns.totalBudget}`,
        sql`${cost} <= ${left}`,
      ),
    )
    .returning({
      status: adCampaigns.status,
      advertiserId: adCampaigns.advertiserId,
      pricingModel: adCampaigns.pricingModel,
      bid: adCampaigns.bid,
      dailyBudget: adCampaigns.dailyBudget,
    });
  return row;
}

/** Adds the click to the day, unless it would take the day's spend past the daily budget. */
export async function addDailyClick(
  ex: Executor,
  campaignId: string,
  day: string,
  cost: number,
  dailyBudget: number,
): Promise<boolean> {
  const got = await ex
    .insert(adCampaignDaily)
    .values({ campaignId, day, clicks: 1, spend: cost })
    .onConflictDoUpdate({
      target: [adCampaignDaily.campaignId, adCampaignDaily.day],
      set: { clicks: sql`${adCampaignDaily.clicks} + 1`, spend: sql`${adCampaignDaily.spend} + ${cost}` },
      setWhere: sql`${adCampaignDaily.spend} + ${cost} <= ${dailyBudget}`,
    })
    .returning({ day: adCampaignDaily.day });
  return got.length > 0;
}

/** What an impression batch charges reads of its campaigns; `lock` takes them in id order. */
export function campaignsOf(ex: Executor, ids: string[], opts: { lock?: boolean } = {}) {
  const q = ex
    .select({
      id: adCampaigns.id,
      advertiserId: adCampaigns.advertiserId,
      pricingModel: adCampaigns.pricingModel,
      bid: adCampaigns.bid,
      spent: adCampaigns.spent,
      totalBudget: adCampaigns.totalBudget,
      impressions: adCampaigns.impressions,
    })
    .from(adCampaigns)
    .where(inArray(adCampaigns.id, ids))
    .orderBy(asc(adCampaigns.id));
  return opts.lock ? q.for('update') : q;
}

/** Adds batched impressions and what they cost, in one statement per table (the campaigns locked by the caller). */
export async function applyImpressions(
  ex: Executor,
  charged: { id: string; n: number; cost: number }[],
  day: string,
): Promise<void> {
  if (!charged.length) return;
  const ids = uuidArray(charged.map((c) => c.id));
  const ns = intArray(charged.map((c) => c.n));
  const costs = intArray(charged.map((c) => c.cost));
  await ex.execute(sql`update ${adCampaigns} c set impressions = c.impressions + v.n, spent = c.spent + v.cost
    from unnest(${ids}, ${ns}, ${costs}) as v(id, n, cost) where c.id = v.id`);
  await ex.execute(sql`insert into ${adCampaignDaily} (campaign_id, day, impressions, spend)
    select v.id, ${day}::date, v.n, v.cost from unnest(${ids}, ${ns}, ${costs}) as v(id, n, cost)
    on conflict (campaign_id, day) do update set impressions = ${adCampaignDaily.impressions} + excluded.impressions, spend = ${adCampaignDaily.spend} + excluded.spend`);
}

/** ACTIVE or PAUSED campaigns past their end date or whose budget cannot pay another unit: COMPLETED. */
export async function completeDue(
  ex: Executor,
  now: Date,
): Promise<{ id: string; advertiserId: string; name: string }[]> {
  const ended = sql`${adCampaigns.endsAt} <= ${now.toISOString()}::timestamptz`;
  return ex
    .update(adCampaigns)
    .set({
      status: 'COMPLETED',
      stopReason: sql`case when ${ended} then 'END_DATE' else 'BUDGET_SPENT' end`,
      completedAt: now,
      updatedAt: now,
    })
    .where(
      and(
        inArray(adCampaigns.status, ['ACTIVE', 'PAUSED']),
        live,
        sql`(${ended} or ${adCampaigns.spent} >= ${adCampaigns.totalBudget}
          or (${adCampaigns.pricingModel} = 'CPC' and ${adCampaigns.spent} + ${adCampaigns.bid} > ${adCampaigns.totalBudget}))`,
      ),
    )
    .returning({ id: adCampaigns.id, advertiserId: adCampaigns.advertiserId, name: adCampaigns.name });
}

export async function dailyFigures(ex: Executor, campaignId: string, from: string, to: string) {
  return ex
    .select({
      day: adCampaignDaily.day,
      impressions: adCampaignDaily.impressions,
      clicks: adCampaignDaily.clicks,
      spend: adCampaignDaily.spend,
    })
    .from(adCampaignDaily)
    .where(
      and(eq(adCampaignDaily.campaignId, campaignId), gte(adCampaignDaily.day, from), lte(adCampaignDaily.day, to)),
    )
    .orderBy(asc(adCampaignDaily.day));
}

/** Campaigns by id, deleted ones included (records and tests). */
export function findCampaignsIncludingDeleted(ex: Executor, ids: string[]) {
  return ex.select().from(adCampaigns).where(inArray(adCampaigns.id, ids));
}

/** Forgets counted clicks older than the window: they no longer stop a viewer's next click counting. */
export async function pruneClickViewers(ex: Executor, before: Date): Promise<void> {
  await ex.delete(adClickViewers).where(lte(adClickViewers.countedAt, before));
}

/** Each campaign of the advertiser (deleted ones too) with its impressions and clicks of the month (YYYY-MM). */
export async function monthFigures(ex: Executor, advertiserId: string, month: string) {
  const found = await ex
    .select({
      campaignId: adCampaigns.id,
      name: adCampaigns.name,
      pricingModel: adCampaigns.pricingModel,
      impressions: sql<string>`coalesce(sum(${adCampaignDaily.impressions}), 0)`,
      clicks: sql<string>`coalesce(sum(${adCampaignDaily.clicks}), 0)`,
    })
    .from(adCampaigns)
    .leftJoin(
      adCampaignDaily,
      and(
        eq(adCampaignDaily.campaignId, adCampaigns.id),
        sql`${adCampaignDaily.day} >= ${`${month}-01`}::date and ${adCampaignDaily.day} < (${`${month}-01`}::date + interval '1 month')`,
      ),
    )
    .where(eq(adCampaigns.advertiserId, advertiserId))
    .groupBy(adCampaigns.id)
    .orderBy(asc(adCampaigns.createdAt), asc(adCampaigns.id));
  return found.map((r) => ({ ...r, impressions: Number(r.impressions), clicks: Number(r.clicks) }));
}
