import { randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { adCampaigns } from '../../db/schema/advertising.js';
import { allowedSoFar } from './ad-pacing.js';
import { AD_CLICK_RATE_LIMIT } from './advertising.routes.js';
import { activeCampaign, advertiser, DAY, MINUTE } from './advertising.test-support.js';

let t: TestApp;
let adminToken: string;
let adminUser: Awaited<ReturnType<typeof createSignedIn>>['user'];
let owner: Awaited<ReturnType<typeof advertiser>>;
beforeAll(async () => {
  t = await buildTestApp();
  ({ token: adminToken, user: adminUser } = await createSignedIn(t.app, { role: 'ADMIN' }));
  owner = await advertiser(t);
});
// These tests move the clock by hours: access tokens (15 minutes) are signed again before each.
const signInAgain = async () => {
  adminToken = (await t.app.services.auth.signIn(adminUser, {})).accessToken;
  owner.token = (await t.app.services.auth.signIn(owner.user, {})).accessToken;
};
beforeEach(signInAgain);
afterAll(() => t.close());

// Viewers are told apart by address (and user agent); random ones keep runs from sharing rate limits.
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
interface Ad {
  id: string;
  title: string;
  clickToken: string;
  target: { url: string };
}
const ads = async (query: Record<string, string | number>, ip = newIp()) => {
  const res = await call(t.app, 'GET', '/advertising/ads', {
    query: { placement: 'HOME_BANNER', limit: 10, ...query },
    remoteAddress: ip,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Ad[];
};
const adIds = async (query: Record<string, string | number>) => (await ads(query)).map((a) => a.id).sort();
const click = (id: string, token: string, ip = newIp()) =>
  call(t.app, 'POST', `/advertising/ads/${id}/click`, { body: { token }, remoteAddress: ip });
const campaign = async (id: string) => {
  const token = (await t.app.services.auth.signIn(owner.user, {})).accessToken;
  return (await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token })).body.data;
};
/** Moves the clock forward to the next hh:mm in Dakar (UTC all year). */
const advanceTo = (hours: number, minutes: number) => {
  const now = t.clock.now().getTime();
  const dayStart = Math.floor(now / DAY) * DAY;
  let at = dayStart + (hours * 60 + minutes) * MINUTE;
  if (at <= now) at += DAY;
  t.clock.advance(at - now);
};

describe('GET /advertising/ads', () => {
  it('refreshes every instance at once through Redis', async ({ skip }) => {
    if (!process.env.REDIS_URL || !process.env.DATABASE_URL) skip();
    const other = await buildTestApp();
    try {
      const a = await activeCampaign(t, owner, adminToken);
      const seen = async () =>
        (
          await call(other.app, 'GET', '/advertising/ads', { query: { placement: 'HOME_BANNER', city: a.city! } })
        ).body.data.map((x: Ad) => x.id);
      /** Reads until `expected`: Redis delivers to the other instance asynchronously. */
      const eventually = async (expected: string[]) => {
        let got = await seen();
        for (let i = 0; i < 100 && JSON.stringify(got) !== JSON.stringify(expected); i++) {
          await new Promise((r) => setTimeout(r, 20));
          got = await seen();
        }
        return got;
      };
      expect(await seen()).toEqual([a.id]);
      await call(t.app, 'POST', `/advertising/campaigns/${a.id}/pause`, { token: owner.token });
      expect(await eventually([])).toEqual([]);
      await call(t.app, 'POST', `/advertising/campaigns/${a.id}/resume`, { token: owner.token });
      expect(await eventually([a.id])).toEqual([a.id]);
    } finally {
      await other.close();
    }
  });

  it('serves active campaigns of the placement that match city, point and category, in schedule', async () => {
    const a = await activeCampaign(t, owner, adminToken);
    const city = a.city!;
    const b = await activeCampaign(t, owner, adminToken, {
      targeting: { cities: [city], latitude: 14.6928, longitude: -17.4467, radiusKm: 5 },
    });
    const c = await activeCampaign(t, owner, adminToken, { targeting: { cities: [city], categories: ['BAKERY'] } });
    const d = await activeCampaign(t, owner, adminToken, {
      targeting: { cities: [city] },
      placement: 'SEARCH_RESULTS',
    });
    await activeCampaign(t, owner, adminToken, {
      targeting: { cities: [city] },
      startsAt: new Date(t.clock.now().getTime() + DAY).toISOString(),
    });
    expect(await adIds({ city })).toEqual([a.id]);
    // Letter case and accents of the city do not matter.
    expect(await adIds({ city: ` ${city.toUpperCase().replace('E', 'É')} ` })).toEqual([a.id]);
    expect(await adIds({ city, latitude: 14.7167, longitude: -17.4677 })).toEqual([a.id, b.id].sort());
    expect(await adIds({ city, latitude: 14.7886, longitude: -16.926 })).toEqual([a.id]);
    expect(await adIds({ city, category: 'BAKERY' })).toEqual([a.id, c.id].sort());
    expect(await adIds({ city, placement: 'SEARCH_RESULTS' })).toEqual([d.id]);
    expect(await adIds({ city: 'Ville-inconnue' })).not.toContain(a.id);
    expect(await ads({ city, limit: 1 })).toHaveLength(1);
    const [ad] = await ads({ city });
    expect(ad).toMatchObject({
      id: a.id,
      placement: 'HOME_BANNER',
      title: 'Le bissap de Dakar',
      imageUrl: null,
      target: { type: 'URL', url: 'https://bissap.example.sn/promo' },
    });
    expect(ad!.clickToken.split('.')).toHaveLength(4);
    for (const q of [
      { placement: 'SIDEBAR' },
      { latitude: 200 },
      { category: 'CARS' },
      { limit: 50 },
      { extra: 1 },
    ] as Record<string, string | number>[]) {
      expect(
        (await call(t.app, 'GET', '/advertising/ads', { query: { placement: 'HOME_BANNER', ...q } })).status,
        JSON.stringify(q),
      ).toBe(400);
    }
    expect((await call(t.app, 'GET', '/advertising/ads')).status).toBe(400);
  });

  it('is served from memory: no write per request, impressions flushed in a batch; changes refresh it', async () => {
    const a = await activeCampaign(t, owner, adminToken);
    const city = a.city!;
    for (let i = 0; i < 5; i++) await ads({ city });
    expect((await campaign(a.id)).impressions).toBe(0);
    await t.app.services.advertising.serving.flushImpressions();
    expect((await campaign(a.id)).impressions).toBe(5);
    // A change behind the API's back shows only when the set is read again (30 s)...
    await t.app.ctx.db.update(adCampaigns).set({ title: 'Changé en base' }).where(eq(adCampaigns.id, a.id));
    expect((await ads({ city }))[0]!.title).toBe('Le bissap de Dakar');
    t.clock.advance(31_000);
    expect((await ads({ city }))[0]!.title).toBe('Changé en base');
    // ...while every change through the API refreshes it at once.
    await call(t.app, 'POST', `/advertising/campaigns/${a.id}/pause`, { token: owner.token });
    expect(await adIds({ city })).toEqual([]);
    await call(t.app, 'POST', `/advertising/campaigns/${a.id}/resume`, { token: owner.token });
    expect(await adIds({ city })).toEqual([a.id]);
    await call(t.app, 'PUT', `/advertising/campaigns/${a.id}`, {
      token: owner.token,
      body: { creative: { title: 'Nouveau bissap' } },
    });
    expect(await adIds({ city })).toEqual([]);
    await call(t.app, 'PATCH', `/admin/advertising/campaigns/${a.id}/approve`, { token: adminToken });
    expect((await ads({ city }))[0]!.title).toBe('Nouveau bissap');
    await call(t.app, 'DELETE', `/advertising/campaigns/${a.id}`, { token: owner.token });
    expect(await adIds({ city })).toEqual([]);
  });
});

describe('POST /advertising/ads/:id/click', () => {
  it('needs a valid token for the ad, counts a viewer once per 30 minutes, and charges the bid', async () => {
    const a = await activeCampaign(t, owner, adminToken);
    const other = await activeCampaign(t, owner, adminToken);
    const viewer = newIp();
    const [ad] = await ads({ city: a.city! }, viewer);
    expect((await call(t.app, 'POST', `/advertising/ads/${a.id}/click`, { body: {} })).status).toBe(400);
    for (const token of ['x', `${ad!.clickToken.slice(0, -2)}AA`, ad!.clickToken.replace(a.id, other.id)]) {
      const res = await click(a.id, token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CLICK_TOKEN');
    }
    expect((await click(other.id, ad!.clickToken)).body.error.code).toBe('INVALID_CLICK_TOKEN');
    const first = await click(a.id, ad!.clickToken);
    expect(first.body.data).toEqual({
      counted: true,
      target: { type: 'URL', id: null, url: 'https://bissap.example.sn/promo' },
    });
    // The token's viewer, from wherever it clicks again, is not counted twice.
    expect((await click(a.id, ad!.clickToken)).body.data.counted).toBe(false);
    expect((await click(a.id, ad!.clickToken, newIp())).body.data.counted).toBe(false);
    const [other1] = await ads({ city: a.city! });
    expect((await click(a.id, other1!.clickToken)).body.data.counted).toBe(true);
    expect(await campaign(a.id)).toMatchObject({ clicks: 2, spent: 200 });
    t.clock.advance(31 * MINUTE);
    const [again] = await ads({ city: a.city! }, viewer);
    expect((await click(a.id, again!.clickToken)).body.data.counted).toBe(true);
    // Tokens expire an hour after the ad was served.
    t.clock.advance(61 * MINUTE);
    expect((await click(a.id, again!.clickToken)).body.error.code).toBe('INVALID_CLICK_TOKEN');
    await call(t.app, 'DELETE', `/advertising/campaigns/${a.id}`, { token: owner.token });
    const [late] = await ads({ city: other.city! });
    expect((await click(other.id, late!.clickToken)).status).toBe(200);
  });

  it('is rate limited per address', async () => {
    const a = await activeCampaign(t, owner, adminToken);
    const ip = newIp();
    const [ad] = await ads({ city: a.city! }, ip);
    const statuses: number[] = [];
    for (let i = 0; i <= AD_CLICK_RATE_LIMIT; i++) statuses.push((await click(a.id, ad!.clickToken, ip)).status);
    expect(statuses.slice(0, AD_CLICK_RATE_LIMIT).every((s) => s === 200)).toBe(true);
    const last = await click(a.id, ad!.clickToken, ip);
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe('RATE_LIMITED');
    expect((await click(a.id, ad!.clickToken, newIp())).status).toBe(200);
  });

  it('never pays past the budget under concurrent clicks: 10 clicks of budget, 15 at once', async () => {
    const a = await activeCampaign(t, owner, adminToken, { totalBudget: 1000, dailyBudget: 1000, bid: 100 });
    const viewers = Array.from({ length: 15 }, () => newIp());
    const tokens = await Promise.all(viewers.map(async (ip) => (await ads({ city: a.city! }, ip))[0]!.clickToken));
    const results = await Promise.all(tokens.map((token, i) => click(a.id, token, viewers[i])));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.data.counted)).toHaveLength(10);
    expect(await campaign(a.id)).toMatchObject({
      clicks: 10,
      spent: 1000,
      status: 'COMPLETED',
      stopReason: 'BUDGET_SPENT',
    });
    expect(await adIds({ city: a.city! })).toEqual([]);
    const stats = (await call(t.app, 'GET', `/advertising/campaigns/${a.id}/stats`, { token: owner.token })).body.data;
    expect(stats.totals).toMatchObject({ clicks: 10, spend: 1000 });
    expect(stats.budget.remaining).toBe(0);
  });
});

describe('pacing and stats', () => {
  it('spreads the daily budget over the day: not spent in the first hour', async () => {
    const a = await activeCampaign(t, owner, adminToken, {
      totalBudget: 100_000,
      dailyBudget: 9600,
      bid: 100,
      endsAt: new Date(t.clock.now().getTime() + 5 * DAY).toISOString(),
    });
    const city = a.city!;
    /** Clicks (each by a new viewer) while the ad is served; answers how many were paid. */
    const clickWhileServed = async () => {
      let n = 0;
      for (let ad = (await ads({ city }))[0]; ad; ad = (await ads({ city }))[0]) {
        expect((await click(a.id, ad.clickToken)).body.data.counted).toBe(true);
        n++;
      }
      return n;
    };
    advanceTo(0, 1);
    expect(allowedSoFar(9600, 60)).toBe(106);
    expect(await clickWhileServed()).toBe(2);
    // A minute before each round figure (4 x 100 would be reached at 00:30, 5 x 100 at 01:00), so that
    // the seconds a slow run takes cannot let one more click in.
    advanceTo(0, 29);
    expect(await clickWhileServed()).toBe(1); // floor(9600 x (1740 + 900) / 86400) = 293
    advanceTo(0, 59);
    expect(await clickWhileServed()).toBe(2); // 493
    // After the first hour, 500 of the 9,600 were spent.
    expect((await campaign(a.id)).spent).toBe(500);
    advanceTo(11, 59);
    expect(await clickWhileServed()).toBe(44); // floor(9600 x (43140 + 900) / 86400) = 4893
    advanceTo(23, 59);
    expect(await clickWhileServed()).toBe(47); // the daily budget, 9,600, reached
    expect((await campaign(a.id)).spent).toBe(9600);
    // A new day starts a new daily budget.
    advanceTo(0, 20);
    expect(await clickWhileServed()).toBe(3); // floor(9600 x 2100 / 86400) = 233
    // About a hundred clicks, each paid from the balance on the ledger, one after the other.
  }, 90_000);

  it('charges CPM campaigns per thousand impressions and reports per day', async () => {
    // Late in the day, so the pace allows most of the daily budget: floor(2500 x 83700 / 86400) = 2421.
    advanceTo(23, 0);
    await signInAgain();
    const a = await activeCampaign(t, owner, adminToken, {
      pricingModel: 'CPM',
      bid: 1000,
      totalBudget: 2500,
      dailyBudget: 2500,
    });
    const q = { placement: 'HOME_BANNER' as const, city: a.city!, limit: 3 };
    const serve = t.app.services.advertising.serve;
    for (let i = 0; i < 2500; i++) await serve(q, { ip: '10.0.0.1', viewerKey: `v${i}` });
    const [ad] = await ads({ city: a.city! });
    expect((await click(a.id, ad!.clickToken)).body.data.counted).toBe(true);
    owner.token = (await t.app.services.auth.signIn(owner.user, {})).accessToken;
    const stats = (await call(t.app, 'GET', `/advertising/campaigns/${a.id}/stats`, { token: owner.token })).body.data;
    expect(stats.totals).toEqual({ impressions: 2501, clicks: 1, ctrBps: 4, spend: 2000 });
    const today = stats.days.at(-1);
    expect(today).toEqual({
      day: t.clock.now().toISOString().slice(0, 10),
      impressions: 2501,
      clicks: 1,
      ctrBps: 4,
      spend: 2000,
    });
    expect(stats.days).toHaveLength(30);
    // Served until the budget is spent: the third thousand is capped at what is left, then it completes.
    for (let i = 0; i < 1000 && (await serve(q, { ip: '10.0.0.1', viewerKey: 'x' })).length; i++);
    await t.app.services.advertising.serving.flushImpressions();
    expect(await campaign(a.id)).toMatchObject({ spent: 2500, status: 'COMPLETED', stopReason: 'BUDGET_SPENT' });
    const bad = await call(t.app, 'GET', `/advertising/campaigns/${a.id}/stats`, {
      token: owner.token,
      query: { from: '2026-05-02', to: '2026-05-01' },
    });
    expect(bad.status).toBe(400);
    const range = await call(t.app, 'GET', `/advertising/campaigns/${a.id}/stats`, {
      token: owner.token,
      query: { from: '2026-05-01', to: '2026-05-03' },
    });
    expect(range.body.data.days.map((d: { day: string }) => d.day)).toEqual(['2026-05-01', '2026-05-02', '2026-05-03']);
  });
});
