import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/access.js';
import { notFound } from '../../shared/errors.js';
import { pageMeta, type PageQuery } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { AdvertisingService } from './advertising.service.js';
import * as repo from './advertising.repository.js';
import type { AdminCampaignsQuery, AdvertisersQuery, CampaignView } from './advertising.schemas.js';
import { toAdvertiserView } from './advertising.views.js';
import { CAMPAIGN_TRANSITIONS } from './campaign-status.js';

/** Moderation of campaigns: every decision audited, the advertiser told. */
export function createAdvertisingAdminService(
  ctx: AppContext,
  advertising: AdvertisingService,
  deps: { notifications: NotificationsApi },
) {
  const now = () => ctx.clock.now();

  async function decide(
    admin: AuthUser,
    id: string,
    to: 'ACTIVE' | 'REJECTED',
    reason: string | null,
  ): Promise<CampaignView> {
    const t = now();
    const row = await ctx.db.transaction(async (tx) => {
      const seen = await repo.findCampaign(tx, id);
      if (!seen) throw notFound('Campaign');
      // An approved campaign spends: its advertiser is locked first (the order of every spend).
      const left = (await advertising.spend.lock(tx, [seen.advertiserId])).get(seen.advertiserId)!;
      const c = (await repo.findCampaign(tx, id, { lock: true }))!;
      assertTransition(CAMPAIGN_TRANSITIONS, c.status, to, 'Campaign');
      let updated = await repo.updateCampaign(tx, id, {
        status: to,
        rejectionReason: reason,
        ...(to === 'ACTIVE' && { approvedAt: t }),
        updatedAt: t,
      });
      const action = to === 'ACTIVE' ? 'advertising.campaign.approve' : 'advertising.campaign.reject';
      await recordAdminAction(tx, {
        actorId: admin.id,
        action,
        targetType: 'ad_campaign',
        targetId: id,
        reason,
        data: { from: c.status, to },
        at: t,
      });
      const owner = await repo.findProfile(tx, c.advertiserId);
      if (owner) {
        const type = to === 'ACTIVE' ? 'ad_campaign_approved' : 'ad_campaign_rejected';
        await deps.notifications.notify(
          tx,
          owner.userId,
          type,
          { campaignId: id, campaignName: c.name, ...(reason && { reason }) },
          { sourceKey: `${action}:${id}:${t.getTime()}` },
        );
      }
      // Approved while the balance cannot pay it: paused at once (BALANCE_SPENT) until a top-up.
      if (to === 'ACTIVE' && (await advertising.spend.pauseUnfunded(tx, c.advertiserId, left)))
        updated = (await repo.findCampaign(tx, id))!;
      return updated;
    });
    if (to === 'ACTIVE') advertising.serving.changed();
    return advertising.view(row);
  }

  return {
    async listAdvertisers(q: AdvertisersQuery) {
      const { items, total } = await repo.listAdvertisers(ctx.db, q);
      return { items: items.map(toAdvertiserView), meta: pageMeta(q, total) };
    },
    async listCampaigns(q: AdminCampaignsQuery) {
      const { items, total } = await repo.listCampaigns(
        ctx.db,
        { status: q.status, advertiserId: q.advertiserId },
        q,
        q.sort,
      );
      return { items: items.map(advertising.view), meta: pageMeta(q, total) };
    },
    async pending(q: PageQuery) {
      const { items, total } = await repo.listCampaigns(ctx.db, { status: 'PENDING_REVIEW' }, q);
      return { items: items.map(advertising.view), meta: pageMeta(q, total) };
    },
    approve: (admin: AuthUser, id: string) => decide(admin, id, 'ACTIVE', null),
    reject: (admin: AuthUser, id: string, reason: string) => decide(admin, id, 'REJECTED', reason),
  };
}
export type AdvertisingAdminService = ReturnType<typeof createAdvertisingAdminService>;
