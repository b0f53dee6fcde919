import type { App } from '../../http/types.js';
import { MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import type { AdvertisingAdminService } from './advertising-admin.service.js';
import * as S from './advertising.schemas.js';
import type { AdvertisingService } from './advertising.service.js';
import { viewerKeyOf } from './click-token.js';

const pub = { access: 'Public' } as const;
const auth = { access: 'Auth' } as const;
const adv = { access: 'ADVERTISER_OR_ADM' } as const;
const adm = { access: 'ADM' } as const;
/** Clicks counted per address and minute, on top of the global limit. */
export const AD_CLICK_RATE_LIMIT = 30;
// A campaign body may carry its picture as base64 (5 MB of image is under 7 MB of text).
const CAMPAIGN_BODY_LIMIT = 8 * 1024 * 1024;

export function advertisingRoutes(advertising: AdvertisingService, admin: AdvertisingAdminService) {
  return async (app: App) => {
    const tags = ['advertising'];
    app.get(
      '/advertising/ads',
      {
        config: pub,
        schema: {
          tags,
          summary:
            'Ads for a placement, matching the optional city, point and category; each with a signed click token',
          querystring: S.AdsQuerySchema,
          response: { 200: Ok(S.AdListSchema) },
        },
      },
      async (req) =>
        ok(
          await advertising.serve(req.query, { ip: req.ip, viewerKey: viewerKeyOf(req.ip, req.headers['user-agent']) }),
        ),
    );

    app.post(
      '/advertising/ads/:id/click',
      {
        config: { ...pub, rateLimit: { max: AD_CLICK_RATE_LIMIT, timeWindow: '1 minute' } },
        schema: {
          tags,
          summary:
            'Count a click with the token the ad came with: once per viewer and campaign in 30 minutes; answers where it leads',
          params: S.CampaignParamsSchema,
          body: S.ClickBodySchema,
          errors: [404],
          response: { 200: Ok(S.ClickResultSchema) },
        },
      },
      async (req) => ok(await advertising.click(req.params.id, req.body.token)),
    );

    app.post(
      '/advertising/profile',
      {
        config: auth,
        schema: {
          tags,
          summary:
            "Create the caller's advertiser profile: any account may advertise, keeping its role; the profile opens the campaign routes",
          body: S.CreateProfileBodySchema,
          errors: [409],
          response: { 201: Ok(S.AdvertiserSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await advertising.createProfile(req.user, req.body))),
    );

    app.get(
      '/advertising/profile',
      {
        config: auth,
        schema: {
          tags,
          summary: "The caller's advertiser profile",
          errors: [404],
          response: { 200: Ok(S.AdvertiserSchema) },
        },
      },
      async (req) => ok(await advertising.getProfile(req.user)),
    );

    app.put(
      '/advertising/profile',
      {
        config: auth,
        schema: {
          tags,
          summary: "Change the caller's advertiser profile (only the fields sent)",
          body: S.UpdateProfileBodySchema,
          errors: [404],
          response: { 200: Ok(S.AdvertiserSchema) },
        },
      },
      async (req) => ok(await advertising.updateProfile(req.user, req.body)),
    );

    app.post(
      '/advertising/campaigns',
      {
        config: adv,
        bodyLimit: CAMPAIGN_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Create a campaign (DRAFT); its picture, if any, as base64 in creative.image',
          body: S.CreateCampaignBodySchema,
          errors: [404, 415, 422, 503],
          response: { 201: Ok(S.CampaignSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await advertising.create(req.user, req.body))),
    );

    app.get(
      '/advertising/campaigns',
      {
        config: adv,
        schema: {
          tags,
          summary: "The caller's campaigns, newest first",
          querystring: S.OwnCampaignsQuerySchema,
          response: { 200: OkPage(S.CampaignSchema) },
        },
      },
      async (req) => {
        const r = await advertising.listOwn(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/advertising/campaigns/:id',
      {
        config: adv,
        schema: {
          tags,
          summary: "One campaign (the owner's, or any for an administrator)",
          params: S.CampaignParamsSchema,
          errors: [404],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await advertising.get(req.user, req.params.id)),
    );

    app.put(
      '/advertising/campaigns/:id',
      {
        config: adv,
        bodyLimit: CAMPAIGN_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Change a campaign; a REJECTED, ACTIVE or PAUSED one goes back to review',
          params: S.CampaignParamsSchema,
          body: S.UpdateCampaignBodySchema,
          errors: [404, 409, 415, 422, 503],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await advertising.update(req.user, req.params.id, req.body)),
    );

    app.post(
      '/advertising/campaigns/:id/submit',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Submit a DRAFT campaign for moderation',
          params: S.CampaignParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await advertising.submit(req.user, req.params.id)),
    );

    app.post(
      '/advertising/campaigns/:id/pause',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Pause an ACTIVE campaign',
          params: S.CampaignParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await advertising.pause(req.user, req.params.id)),
    );

    app.post(
      '/advertising/campaigns/:id/resume',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Resume a PAUSED campaign',
          params: S.CampaignParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await advertising.resume(req.user, req.params.id)),
    );

    app.delete(
      '/advertising/campaigns/:id',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Delete a campaign: it stops and leaves the lists, its figures are kept',
          params: S.CampaignParamsSchema,
          errors: [404],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await advertising.remove(req.user, req.params.id)),
    );

    app.get(
      '/advertising/campaigns/:id/stats',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Impressions, clicks, click rate and spend, in total and per day',
          params: S.CampaignParamsSchema,
          querystring: S.StatsQuerySchema,
          errors: [404],
          response: { 200: Ok(S.CampaignStatsSchema) },
        },
      },
      async (req) => ok(await advertising.stats(req.user, req.params.id, req.query)),
    );

    const atags = ['admin: advertising'];
    app.get(
      '/admin/advertising/advertisers',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Every advertiser, newest first, optionally matching words of the company or email',
          querystring: S.AdvertisersQuerySchema,
          response: { 200: OkPage(S.AdvertiserSchema) },
        },
      },
      async (req) => {
        const r = await admin.listAdvertisers(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/advertising/campaigns',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Every campaign, by status or advertiser, newest first unless sorted',
          querystring: S.AdminCampaignsQuerySchema,
          response: { 200: OkPage(S.CampaignSchema) },
        },
      },
      async (req) => {
        const r = await admin.listCampaigns(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/advertising/campaigns/pending',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Campaigns waiting for review, oldest submission first',
          querystring: S.PendingQuerySchema,
          response: { 200: OkPage(S.CampaignSchema) },
        },
      },
      async (req) => {
        const r = await admin.pending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.patch(
      '/admin/advertising/campaigns/:id/approve',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Approve a campaign waiting for review: it is served within its schedule and budget',
          params: S.CampaignParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await admin.approve(req.user, req.params.id)),
    );

    app.patch(
      '/admin/advertising/campaigns/:id/reject',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Reject a campaign waiting for review, with the reason the advertiser sees',
          params: S.CampaignParamsSchema,
          body: S.RejectBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.CampaignSchema) },
        },
      },
      async (req) => ok(await admin.reject(req.user, req.params.id, req.body.reason)),
    );
  };
}
