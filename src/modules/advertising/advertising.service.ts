import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { CampaignStatus } from '../../db/schema/advertising.js';
import type { AuthUser } from '../../http/access.js';
import { normaliseImage } from '../../http/uploads.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { pageMeta } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import type { LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { requireFeature, type SettingsReader } from '../settings/index.js';
import { platformDay } from './ad-pacing.js';
import { CLICK_WINDOW_MS, createAdServing } from './ad-serving.js';
import { createAdSpend, isFunded } from './ad-spend.js';
import * as billingRepo from './billing.repository.js';
import * as figures from './advertising.figures.js';
import * as repo from './advertising.repository.js';
import type { CampaignRecord } from './advertising.repository.js';
import type {
  CampaignStatsView,
  CampaignView,
  CreateCampaignBody,
  CreateProfileBody,
  OwnCampaignsQuery,
  StatsQuery,
  UpdateCampaignBody,
  UpdateProfileBody,
} from './advertising.schemas.js';
import { toAdvertiserView, toCampaignView } from './advertising.views.js';
import { ADVERTISER_TRANSITIONS, BACK_TO_REVIEW, CAMPAIGN_TRANSITIONS, EDITABLE } from './campaign-status.js';
import { checkFields, decodeImage, mergeFields, type TargetChecks } from './campaign-input.js';

export interface AdvertisingDeps {
  ledger: LedgerApi;
  notifications: NotificationsApi;
  settings: SettingsReader;
  targets: TargetChecks;
  apiPrefix: string;
}

/** Marks campaigns past their end date (or out of budget) COMPLETED, every minute; forgets clicks past their window. */
export const COMPLETE_JOB = 'advertising.complete';
const isAdmin = (u: AuthUser) => u.role === 'ADMIN' || u.role === 'SUPER_ADMIN';
const MAX_STATS_DAYS = 366;
const DAY_MS = 86_400_000;

export function createAdvertisingService(ctx: AppContext, deps: AdvertisingDeps) {
  const now = () => ctx.clock.now();
  const view = (c: CampaignRecord): CampaignView => toCampaignView(c, ctx.links, deps.apiPrefix);

  async function notifyCompleted(ids: string[]): Promise<void> {
    serving.changed();
    await ctx.db.transaction(async (tx) => {
      for (const id of ids) {
        const c = await repo.findCampaign(tx, id);
        const owner = c && (await repo.findProfile(tx, c.advertiserId));
        if (c && owner)
          await deps.notifications.notify(
            tx,
            owner.userId,
            'ad_campaign_completed',
            { campaignId: id, campaignName: c.name, reason: c.stopReason },
            { sourceKey: `ad_campaign_completed:${id}` },
          );
      }
    });
  }
  const spend = createAdSpend(ctx, { ledger: deps.ledger, notifications: deps.notifications });
  const serving = createAdServing(ctx, {
    apiPrefix: deps.apiPrefix,
    settings: deps.settings,
    spend,
    onCompleted: notifyCompleted,
  });
  /** Advertisers start or change nothing while advertising is off; pausing and deleting stay open. */
  const open = () => requireFeature(deps.settings, 'advertisingEnabled');

  ctx.jobs.work(COMPLETE_JOB, async () => {
    await repo.pruneClickViewers(ctx.db, new Date(now().getTime() - CLICK_WINDOW_MS));
    await billingRepo.pruneBatches(ctx.db, new Date(now().getTime() - DAY_MS));
    const done = await repo.completeDue(ctx.db, now());
    if (done.length) await notifyCompleted(done.map((c) => c.id));
  });
  ctx.jobs.schedule(COMPLETE_JOB, '* * * * *');

  const ownProfile = (ex: Executor, userId: string, opts: { lock?: boolean } = {}) =>
    repo.findProfileOfUser(ex, userId, opts);

  /** The campaign the caller may manage: their own, or any for an administrator; others' are 404. */
  async function manage(
    ex: Executor,
    user: AuthUser,
    id: string,
    opts: { lock?: boolean } = {},
  ): Promise<CampaignRecord> {
    const c = await repo.findCampaign(ex, id, opts);
    if (!c) throw notFound('Campaign');
    if (isAdmin(user)) return c;
    const profile = await ownProfile(ex, user.id);
    if (!profile || profile.id !== c.advertiserId) throw notFound('Campaign');
    return c;
  }

  /** Stores a picture sent with a campaign, by the upload rules; answers its key. */
  async function storeImage(campaignId: string, data: string): Promise<string> {
    const file = await normaliseImage(decodeImage(data), {
      work: ctx.images,
      kind: 'advertising',
      field: 'body.creative.image',
    });
    const key = `ads/${campaignId}/creative-${uuidv7()}.${file.ext}`;
    await ctx.storage.put('public', key, file.body, file.contentType);
    return key;
  }
  const dropFile = (key: string | null) => (key ? ctx.storage.discard('public', [key]) : undefined);

  /** Moves a campaign along its table; serving is told when an ACTIVE campaign starts or stops. */
  async function move(
    user: AuthUser,
    id: string,
    to: CampaignStatus,
    extra: Partial<CampaignRecord> = {},
  ): Promise<CampaignView> {
    if (to !== 'PAUSED') await open();
    const t = now();
    const [before, row] = await ctx.db.transaction(async (tx) => {
      // Resuming spends: the advertiser's balance is read under its lock, taken before the campaign's.
      const { advertiserId } = await manage(tx, user, id);
      const left = to === 'ACTIVE' ? (await spend.lock(tx, [advertiserId])).get(advertiserId)! : 0;
      const c = await manage(tx, user, id, { lock: true });
      assertTransition(ADVERTISER_TRANSITIONS, c.status, to, 'Campaign');
      if (to === 'PENDING_REVIEW' && c.endsAt <= t)
        throw validationError('body.endsAt', 'the campaign has ended: move endsAt into the future first');
      if (to === 'ACTIVE' && !isFunded(c, left))
        throw conflict(
          'INSUFFICIENT_BALANCE',
          `Your advertising balance (${left} ${c.currency}) cannot pay this campaign: top it up first (POST /advertising/topups)`,
        );
      return [c, await repo.updateCampaign(tx, id, { status: to, stopReason: null, updatedAt: t, ...extra })] as const;
    });
    if (before.status === 'ACTIVE' || row.status === 'ACTIVE') serving.changed();
    return view(row);
  }

  async function checkProfileFields<T extends { contactEmail?: string; contactPhone?: string }>(body: T): Promise<T> {
    return {
      ...body,
      ...(body.contactEmail !== undefined && { contactEmail: normalizeEmail(body.contactEmail) }),
      ...(body.contactPhone !== undefined && { contactPhone: normalizePhone(body.contactPhone, 'body.contactPhone') }),
    };
  }

  return {
    /** Dashboard and impact figures from this module's own tables (docs/analytics.md). */
    figures,
    serving,
    spend,
    serve: serving.serve,
    click: serving.click,
    notifyCompleted,
    view,
    manage,
    async close() {
      await serving.close();
    },

    // ---- advertiser profile

    /** Whether the user holds an advertiser profile: what gives campaign rights to any account. */
    isAdvertiser: async (userId: string) => Boolean(await ownProfile(ctx.db, userId)),

    async createProfile(user: AuthUser, body: CreateProfileBody) {
      await open();
      const b = await checkProfileFields(body);
      const t = now();
      const row = await repo.insertProfile(ctx.db, {
        id: uuidv7(t.getTime()),
        userId: user.id,
        companyName: b.companyName,
        contactName: b.contactName,
        contactEmail: b.contactEmail,
        contactPhone: b.contactPhone,
        website: b.website ?? null,
        billingAddress: b.billingAddress,
        billingTaxId: b.billingTaxId ?? null,
        createdAt: t,
        updatedAt: t,
      });
      if (!row)
        throw conflict(
          'ALREADY_EXISTS',
          'You already have an advertiser profile (PUT /advertising/profile changes it)',
        );
      return toAdvertiserView(row);
    },

    async getProfile(user: AuthUser) {
      const p = await ownProfile(ctx.db, user.id);
      if (!p) throw notFound('Advertiser profile');
      return toAdvertiserView(p);
    },

    async updateProfile(user: AuthUser, body: UpdateProfileBody) {
      await open();
      const b = await checkProfileFields(body);
      return ctx.db.transaction(async (tx) => {
        const p = await ownProfile(tx, user.id, { lock: true });
        if (!p) throw notFound('Advertiser profile');
        return toAdvertiserView(await repo.updateProfile(tx, p.id, { ...b, updatedAt: now() }));
      });
    },

    // ---- campaigns

    async create(user: AuthUser, body: CreateCampaignBody): Promise<CampaignView> {
      await open();
      const t = now();
      const profile = await ownProfile(ctx.db, user.id);
      if (!profile)
        throw new AppError(
          404,
          'ADVERTISER_PROFILE_REQUIRED',
          'Create your advertiser profile first (POST /advertising/profile)',
        );
      const fields = mergeFields(body);
      await checkFields(ctx.db, fields, deps.targets, { now: t, spent: 0, datesChanged: true });
      const id = uuidv7(t.getTime());
      const imageKey = body.creative.image ? await storeImage(id, body.creative.image) : null;
      try {
        const row = await repo.insertCampaign(ctx.db, {
          id,
          advertiserId: profile.id,
          ...fields,
          imageKey,
          status: 'DRAFT',
          createdAt: t,
          updatedAt: t,
        });
        return view(row);
      } catch (err) {
        await dropFile(imageKey);
        throw err;
      }
    },

    async listOwn(user: AuthUser, q: OwnCampaignsQuery) {
      const profile = await ownProfile(ctx.db, user.id);
      if (!profile) return { items: [], meta: pageMeta(q, 0) };
      const { items, total } = await repo.listCampaigns(ctx.db, { advertiserId: profile.id, status: q.status }, q);
      return { items: items.map(view), meta: pageMeta(q, total) };
    },

    async get(user: AuthUser, id: string): Promise<CampaignView> {
      return view(await manage(ctx.db, user, id));
    },

    /**
     * Changes a campaign. What moderators judged (creative, target, placement, targeting,
     * schedule, budget, price) changing on a REJECTED, ACTIVE or PAUSED campaign sends it back to
     * review; a COMPLETED campaign is a record and cannot change.
     */
    async update(user: AuthUser, id: string, body: UpdateCampaignBody): Promise<CampaignView> {
      await open();
      const t = now();
      const current = await manage(ctx.db, user, id);
      if (!EDITABLE.includes(current.status))
        throw conflict('CAMPAIGN_NOT_EDITABLE', `A ${current.status} campaign cannot be changed`);
      const image = body.creative?.image;
      const newKey = typeof image === 'string' ? await storeImage(id, image) : null;
      let before: CampaignRecord;
      let row: CampaignRecord;
      try {
        [before, row] = await ctx.db.transaction(async (tx) => {
          const c = await manage(tx, user, id, { lock: true });
          if (!EDITABLE.includes(c.status))
            throw conflict('CAMPAIGN_NOT_EDITABLE', `A ${c.status} campaign cannot be changed`);
          const fields = mergeFields(body, c);
          await checkFields(tx, fields, deps.targets, {
            now: t,
            spent: c.spent,
            datesChanged: body.startsAt !== undefined || body.endsAt !== undefined,
          });
          if (image !== undefined && c.imageKey) await ctx.storage.deleteLater(tx, 'public', [c.imageKey]);
          const review = BACK_TO_REVIEW.includes(c.status);
          if (review) assertTransition(CAMPAIGN_TRANSITIONS, c.status, 'PENDING_REVIEW', 'Campaign');
          const patch: Partial<CampaignRecord> = {
            ...fields,
            ...(image !== undefined && { imageKey: newKey }),
            ...(review && {
              status: 'PENDING_REVIEW' as const,
              submittedAt: t,
              rejectionReason: null,
              stopReason: null,
            }),
            updatedAt: t,
          };
          return [c, await repo.updateCampaign(tx, id, patch)] as const;
        });
      } catch (err) {
        await dropFile(newKey);
        throw err;
      }
      if (before.status === 'ACTIVE') serving.changed();
      return view(row);
    },

    submit: (user: AuthUser, id: string) =>
      move(user, id, 'PENDING_REVIEW', { submittedAt: now(), rejectionReason: null }),
    pause: (user: AuthUser, id: string) => move(user, id, 'PAUSED'),
    resume: (user: AuthUser, id: string) => move(user, id, 'ACTIVE'),

    /** Soft delete: the campaign stops and disappears from lists; its figures stay for the records. */
    async remove(user: AuthUser, id: string) {
      const t = now();
      const before = await ctx.db.transaction(async (tx) => {
        const c = await manage(tx, user, id, { lock: true });
        await repo.updateCampaign(tx, id, { deletedAt: t, updatedAt: t });
        return c;
      });
      if (before.status === 'ACTIVE') serving.changed();
      return { message: 'Campaign deleted' };
    },

    async stats(user: AuthUser, id: string, q: StatsQuery): Promise<CampaignStatsView> {
      await manage(ctx.db, user, id);
      // Impressions counted in memory are written first, so the figures include them.
      await serving.flushImpressions();
      const c = await manage(ctx.db, user, id);
      const today = platformDay(now()).day;
      const to = q.to ?? today;
      const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
      const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
      if (span < 0) throw validationError('query.from', 'must not be after to');
      if (span >= MAX_STATS_DAYS) throw validationError('query.from', `the period is at most ${MAX_STATS_DAYS} days`);
      const found = new Map((await repo.dailyFigures(ctx.db, id, from, to)).map((d) => [d.day, d]));
      const ctr = (clicks: number, impressions: number) =>
        impressions > 0 ? Math.round((clicks * 10_000) / impressions) : 0;
      const days = [];
      for (let i = 0; i <= span; i++) {
        const day = new Date(Date.parse(`${from}T00:00:00Z`) + i * DAY_MS).toISOString().slice(0, 10);
        const d = found.get(day) ?? { impressions: 0, clicks: 0, spend: 0 };
        days.push({
          day,
          impressions: d.impressions,
          clicks: d.clicks,
          ctrBps: ctr(d.clicks, d.impressions),
          spend: d.spend,
        });
      }
      return {
        campaignId: c.id,
        status: c.status,
        currency: c.currency,
        totals: { impressions: c.impressions, clicks: c.clicks, ctrBps: ctr(c.clicks, c.impressions), spend: c.spent },
        budget: { total: c.totalBudget, daily: c.dailyBudget, remaining: c.totalBudget - c.spent },
        from,
        to,
        days,
      };
    },
  };
}
export type AdvertisingService = ReturnType<typeof createAdvertisingService>;
