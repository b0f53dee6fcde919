import { createHmac } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { isEnabled, type SettingsReader } from '../settings/index.js';
import type { CampaignRecord } from './advertising.repository.js';
import { AppError, notFound } from '../../shared/errors.js';
import { CachedValue } from '../../shared/cached-value.js';
import { uuidv7 } from '../../shared/ids.js';
import { foldCity, matches, platformDay, rankOf, withinBudget, type ServedCampaign } from './ad-pacing.js';
import type { AdSpend } from './ad-spend.js';
import * as repo from './advertising.repository.js';
import * as billingRepo from './billing.repository.js';
import type { AdsQuery, AdView, ClickResult, TargetView } from './advertising.schemas.js';
import { CLICK_TOKEN_TTL_SECONDS, ClickTokens } from './click-token.js';

/** Name of the served set on the cache registry: dropped on every instance when a campaign changes. */
export const ADS_CACHE = 'advertising.ads';
/** Another instance's clicks and the end of a day show within this time even without Redis. */
const SET_TTL_MS = 30_000;
const IMPRESSION_FLUSH_MS = 10_000;
const MAX_PENDING_CAMPAIGNS = 5_000;
/** A viewer's click on a campaign counts once in this window. */
export const CLICK_WINDOW_MS = 30 * 60_000;

interface ServedSet {
  day: string;
  byPlacement: Map<string, ServedCampaign[]>;
  byId: Map<string, ServedCampaign>;
}

/** Where a click on an ad leads. */
export function targetOf(
  c: Pick<CampaignRecord, 'targetType' | 'targetId' | 'targetUrl'>,
  apiPrefix: string,
): TargetView {
  const paths = { PRODUCT: 'products', STORE: 'stores', SUPPLIER: 'suppliers' } as const;
  if (c.targetType === 'URL') return { type: 'URL', id: null, url: c.targetUrl ?? '' };
  return { type: c.targetType, id: c.targetId, url: `${apiPrefix}/${paths[c.targetType]}/${c.targetId}` };
}

class NotCounted extends Error {
  constructor(readonly atCampaign: boolean) {
    super('click not counted');
  }
}

export interface ImpressionBatch {
  id: string;
  counts: Map<string, number>;
  day: string;
  tries: number;
}
/** A batch whose transaction keeps failing is dropped after this many tries (a minute of flushes). */
const BATCH_TRIES = 6;

/**
 * Serving: the ACTIVE campaigns are read once into memory (and again after any change, on every
 * instance through the cache registry, or after 30 s); a request filters and ranks them with no
 * database round. Impressions are counted here and written every 10 seconds as one batch (one
 * statement per table), CPM spend billed from the advertisers' balances in the same transaction.
 */
export function createAdServing(
  ctx: AppContext,
  opts: {
    apiPrefix: string;
    settings: SettingsReader;
    spend: AdSpend;
    onCompleted: (ids: string[]) => Promise<void>;
  },
) {
  const tokens = new ClickTokens(createHmac('sha256', ctx.config.JWT_ACCESS_SECRET).update('ad-clicks').digest('hex'));
  const now = () => ctx.clock.now();

  const set = new CachedValue<ServedSet>(ctx.clock, SET_TTL_MS, ctx.db, async (ex) => {
    const at = now();
    const { day } = platformDay(at);
    const records = await repo.loadServable(ex, day, at);
    const byPlacement = new Map<string, ServedCampaign[]>();
    const byId = new Map<string, ServedCampaign>();
    for (const record of records) {
      const c: ServedCampaign = {
        record,
        localImpressions: 0,
        localSpend: 0,
        rank: rankOf(record),
        cities: new Set(record.cities.map(foldCity)),
        categories: new Set(record.categories),
      };
      byId.set(record.id, c);
      const list = byPlacement.get(record.placement) ?? [];
      list.push(c);
      byPlacement.set(record.placement, list);
    }
    for (const list of byPlacement.values())
      list.sort((a, b) => b.rank - a.rank || (a.record.id < b.record.id ? -1 : 1));
    return { day, byPlacement, byId };
  });
  ctx.caches.register(ADS_CACHE, () => set.drop());
  /** Forgets the served set here and on every instance (a campaign started, stopped or changed). */
  const changed = () => ctx.caches.changed(ADS_CACHE);

  let pending = new Map<string, number>();
  // Batches whose transaction failed: tried again (by id, so a batch that did commit applies once).
  let retry: ImpressionBatch[] = [];

  /**
   * One batch in one transaction: counted, and each CPM campaign charged for the thousands it
   * reached, never past its total budget nor its advertiser's balance (the last thousand takes what
   * is left); each charge is a ledger posting keyed by batch and campaign.
   */
  const applyBatch = (b: ImpressionBatch) =>
    ctx.db.transaction(async (tx) => {
      if (!(await billingRepo.claimBatch(tx, b.id, now()))) return { completed: [], paused: 0 };
      const ids = [...b.counts.keys()];
      const cpm = (await repo.campaignsOf(tx, ids)).filter((c) => c.pricingModel === 'CPM');
      const funds = await opts.spend.lock(
        tx,
        cpm.map((c) => c.advertiserId),
      );
      const charged = (await repo.campaignsOf(tx, ids, { lock: true })).map((c) => {
        const n = b.counts.get(c.id)!;
        const left = funds.get(c.advertiserId);
        if (c.pricingModel !== 'CPM' || left === undefined) return { ...c, n, cost: 0 };
        const thousands = Math.floor((c.impressions + n) / 1000) - Math.floor(c.impressions / 1000);
        const cost = Math.max(0, Math.min(thousands * c.bid, c.totalBudget - c.spent, left));
        funds.set(c.advertiserId, left - cost);
        return { ...c, n, cost };
      });
      await repo.applyImpressions(tx, charged, b.day);
      for (const c of charged)
        if (c.cost > 0)
          await opts.spend.post(tx, {
            advertiserId: c.advertiserId,
            campaignId: c.id,
            amount: c.cost,
            key: `ad_impressions:${b.id}:${c.id}`,
            memo: `${c.n} impressions`,
          });
      let paused = 0;
      for (const [advertiserId, left] of funds) paused += await opts.spend.pauseUnfunded(tx, advertiserId, left);
      return { completed: await repo.completeDue(tx, now()), paused };
    });

  async function flushImpressions(): Promise<void> {
    if (pending.size) retry.push({ id: uuidv7(), counts: pending, day: platformDay(now()).day, tries: 0 });
    pending = new Map();
    const batches = retry;
    retry = [];
    for (const b of batches) {
      try {
        const { completed, paused } = await applyBatch(b);
        if (paused) changed();
        if (completed.length) await opts.onCompleted(completed.map((c) => c.id));
      } catch (err) {
        if (++b.tries < BATCH_TRIES) retry.push(b);
        ctx.log.warn({ err, batchId: b.id, tries: b.tries }, 'ad impression batch not applied');
      }
    }
  }
  const timer = setInterval(() => void flushImpressions(), IMPRESSION_FLUSH_MS);
  timer.unref();

  /** Pauses the advertiser's campaigns its balance no longer pays (a click found it short). */
  async function stopUnfunded(advertiserId: string): Promise<void> {
    const paused = await ctx.db.transaction(async (tx) => {
      const left = (await opts.spend.lock(tx, [advertiserId])).get(advertiserId)!;
      return opts.spend.pauseUnfunded(tx, advertiserId, left);
    });
    if (paused) changed();
  }

  async function current(): Promise<ServedSet> {
    const s = await set.get();
    if (s.day === platformDay(now()).day) return s;
    // A new day: today's spend starts again from the database's figures.
    set.drop();
    return set.get();
  }

  const imageUrl = (key: string | null) => (key ? ctx.links.publicUrl(key) : null);

  return {
    flushImpressions,
    /** One batch of impressions applied and billed, once whatever the tries (flushImpressions makes them). */
    applyImpressions: applyBatch,
    changed,
    async close() {
      clearInterval(timer);
      await flushImpressions();
    },

    async serve(q: AdsQuery, viewer: { ip: string; viewerKey: string }): Promise<AdView[]> {
      if (!(await isEnabled(opts.settings, 'advertisingEnabled'))) return [];
      const s = await current();
      const list = s.byPlacement.get(q.placement);
      if (!list) return [];
      const at = now();
      const atMs = at.getTime();
      const { elapsedSeconds } = platformDay(at);
      const city = q.city === undefined ? undefined : foldCity(q.city);
      const exp = Math.floor(atMs / 1000) + CLICK_TOKEN_TTL_SECONDS;
      const expiresAt = new Date(exp * 1000).toISOString();
      const chosen: ServedCampaign[] = [];
      for (const c of list) {
        const r = c.record;
        if (r.startsAt.getTime() > atMs || r.endsAt.getTime() <= atMs) continue;
        if (!matches(c, q, city) || !withinBudget(c, elapsedSeconds)) continue;
        chosen.push(c);
        if (chosen.length >= q.limit) break;
      }
      if (!chosen.length) return [];
      const clickToken = tokens.sign(
        chosen.map((c) => c.record.id),
        viewer.viewerKey,
        exp,
      );
      const out = chosen.map((c): AdView => {
        const r = c.record;
        c.localImpressions++;
        pending.set(r.id, (pending.get(r.id) ?? 0) + 1);
        return {
          id: r.id,
          placement: r.placement,
          title: r.title,
          text: r.text,
          imageUrl: imageUrl(r.imageKey),
          target: targetOf(r, opts.apiPrefix),
          clickToken,
          clickTokenExpiresAt: expiresAt,
        };
      });
      // Bounded memory: a burst over many campaigns is written early rather than held.
      if (pending.size >= MAX_PENDING_CAMPAIGNS) void flushImpressions();
      return out;
    },

    /**
     * Counts a click carrying a valid token: once per viewer and campaign in 30 minutes, while the
     * campaign is served and its budgets can pay it (a CPC click costs the bid). Answers where the
     * click leads either way.
     */
    async click(id: string, token: string): Promise<ClickResult> {
      const at = now();
      const viewerKey = tokens.verify(token, id, Math.floor(at.getTime() / 1000));
      if (!viewerKey)
        throw new AppError(400, 'INVALID_CLICK_TOKEN', 'The click token is missing, expired or not for this ad', [
          { field: 'body.token', message: 'is not a valid click token for this ad' },
        ]);
      const campaign = await repo.findCampaign(ctx.db, id);
      if (!campaign) throw notFound('Ad');
      const target = targetOf(campaign, opts.apiPrefix);
      // Advertising off: an ad shown before still leads where it said, but costs its advertiser nothing.
      if (!(await isEnabled(opts.settings, 'advertisingEnabled'))) return { counted: false, target };
      const { day } = platformDay(at);
      let charged: { cost: number; completed: boolean; paused: number } | null = null;
      try {
        charged = await ctx.db.transaction(async (tx) => {
          // The viewer's window first (a repeated click stops there), then the advertiser and its campaign:
          // the lock order of every spend (no spend waits for a viewer's row while holding an advertiser).
          if (!(await repo.takeViewerClick(tx, id, viewerKey, at, new Date(at.getTime() - CLICK_WINDOW_MS))))
            return null;
          const left = (await opts.spend.lock(tx, [campaign.advertiserId])).get(campaign.advertiserId)!;
          const row = await repo.chargeClick(tx, id, at, left);
          if (!row) throw new NotCounted(true);
          const cost = row.pricingModel === 'CPC' ? row.bid : 0;
          // Over the day's budget: undone whole, the viewer's window included.
          if (!(await repo.addDailyClick(tx, id, day, cost, row.dailyBudget))) throw new NotCounted(false);
          if (cost === 0) return { cost, completed: false, paused: 0 };
          // One counted click of one viewer: its key never posts twice.
          await opts.spend.post(tx, {
            advertiserId: row.advertiserId,
            campaignId: id,
            amount: cost,
            key: `ad_click:${id}:${viewerKey}:${at.getTime()}`,
            memo: 'click',
          });
          const paused = await opts.spend.pauseUnfunded(tx, row.advertiserId, left - cost);
          return { cost, completed: row.status === 'COMPLETED', paused };
        });
      } catch (err) {
        if (!(err instanceof NotCounted)) throw err;
        // Refused by the campaign's row: perhaps its advertiser's balance no longer pays it.
        if (err.atCampaign) await stopUnfunded(campaign.advertiserId);
      }
      if (!charged) return { counted: false, target };
      const served = (await set.get()).byId.get(id);
      if (served) served.localSpend += charged.cost;
      if (charged.paused) changed();
      if (charged.completed) await opts.onCompleted([id]);
      return { counted: true, target };
    },
  };
}
export type AdServing = ReturnType<typeof createAdServing>;
