import { createHmac } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { isEnabled, type SettingsReader } from '../settings/index.js';
import type { CampaignRecord } from './advertising.repository.js';
import { AppError, notFound } from '../../shared/errors.js';
import { CachedValue } from '../../shared/cached-value.js';
import { foldCity, matches, platformDay, rankOf, withinBudget, type ServedCampaign } from './ad-pacing.js';
import * as repo from './advertising.repository.js';
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

class NotCounted extends Error {}

/**
 * Serving: the ACTIVE campaigns are read once into memory (and again after any change, on every
 * instance through the cache registry, or after 30 s); a request filters and ranks them with no
 * database round. Impressions are counted here and written every 10 seconds in one statement.
 */
export function createAdServing(
  ctx: AppContext,
  opts: { apiPrefix: string; settings: SettingsReader; onCompleted: (ids: string[]) => Promise<void> },
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

  let pending = new Map<string, number>();
  async function flushImpressions(): Promise<void> {
    if (!pending.size) return;
    const batch = pending;
    pending = new Map();
    try {
      const { day } = platformDay(now());
      const completed = await ctx.db.transaction(async (tx) => {
        await repo.addImpressions(tx, batch, day);
        return repo.completeDue(tx, now());
      });
      if (completed.length) await opts.onCompleted(completed.map((c) => c.id));
    } catch (err) {
      ctx.log.warn({ err }, 'ad impression counts lost');
    }
  }
  const timer = setInterval(() => void flushImpressions(), IMPRESSION_FLUSH_MS);
  timer.unref();

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
    /** Forgets the served set here and on every instance (a campaign started, stopped or changed). */
    changed: () => ctx.caches.changed(ADS_CACHE),
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
      let charged: { cost: number; completed: boolean } | null = null;
      try {
        charged = await ctx.db.transaction(async (tx) => {
          if (!(await repo.takeViewerClick(tx, id, viewerKey, at, new Date(at.getTime() - CLICK_WINDOW_MS))))
            return null;
          const row = await repo.chargeClick(tx, id, at);
          if (!row) throw new NotCounted();
          const cost = row.pricingModel === 'CPC' ? row.bid : 0;
          // Over the day's budget: undone whole, the viewer's window included.
          if (!(await repo.addDailyClick(tx, id, day, cost, row.dailyBudget))) throw new NotCounted();
          return { cost, completed: row.status === 'COMPLETED' };
        });
      } catch (err) {
        if (!(err instanceof NotCounted)) throw err;
      }
      if (!charged) return { counted: false, target };
      const served = (await set.get()).byId.get(id);
      if (served) served.localSpend += charged.cost;
      if (charged.completed) await opts.onCompleted([id]);
      return { counted: true, target };
    },
  };
}
export type AdServing = ReturnType<typeof createAdServing>;
