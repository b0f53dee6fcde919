import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { uuidv7 } from '../../shared/ids.js';
import { advertiserBalance } from '../ledger/index.js';
import { deliverWebhook, postWebhook } from '../payments/payments.test-support.js';
import { platformDay } from './ad-pacing.js';
import { activeCampaign, advertiser, DAY, paidEvent, startTopUp, topUp } from './advertising.test-support.js';

let t: TestApp;
let adminUser: Awaited<ReturnType<typeof createSignedIn>>['user'];
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await createSignedIn(t.app, { role: 'ADMIN' })).user;
  // A day of its own, at noon (pacing lets half the daily budget be spent): its figures are this file's only.
  t.clock.advance(randomInt(3000, 9000) * DAY);
  t.clock.advance(DAY - (t.clock.now().getTime() % DAY) + DAY / 2);
  await t.app.jobs.drain();
});
afterAll(() => t.close());
// The clock moves by days: tokens are signed again before each test.
beforeEach(async () => {
  adminToken = (await t.app.services.auth.signIn(adminUser, {})).accessToken;
});

type Owner = Awaited<ReturnType<typeof advertiser>>;
const as = async (o: Owner) => {
  o.token = (await t.app.services.auth.signIn(o.user, {})).accessToken;
  return o.token;
};
const get = async (o: Owner | null, url: string, query?: Record<string, string | number>) =>
  call(t.app, 'GET', url, { token: o ? await as(o) : adminToken, ...(query && { query }) });
const balance = async (o: Owner) => (await get(o, '/advertising/balance')).body.data;
const campaign = async (o: Owner, id: string) => (await get(o, `/advertising/campaigns/${id}`)).body.data;
const inbox = async (o: Owner) =>
  (await get(o, '/notifications')).body.data as { type: string; data: Record<string, unknown> }[];
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** The ad of a campaign as a new viewer is served it, with its click token (a viewer's click counts once). */
async function served(city: string) {
  const res = await call(t.app, 'GET', '/advertising/ads', {
    query: { placement: 'HOME_BANNER', city },
    remoteAddress: newIp(),
  });
  return res.body.data[0] as { id: string; clickToken: string };
}
const click = (id: string, token: string) =>
  call(t.app, 'POST', `/advertising/ads/${id}/click`, { body: { token }, remoteAddress: newIp() });
const spendPostings = async (campaignId: string) =>
  (await t.app.services.ledger.transactionsFor(t.app.ctx.db, { type: 'ad_campaign', id: campaignId })).filter(
    (p) => p.kind === 'ad_spend',
  );

describe('top-ups', () => {
  it('are paid through the provider, idempotent by key, credited once however often the webhook comes', async () => {
    const a = await advertiser(t, { balance: 0 });
    const body = { amount: 5000, paymentMethod: 'wave' };
    const post = (key: string, b: object = body) =>
      call(t.app, 'POST', '/advertising/topups', { token: a.token, body: b, headers: { 'idempotency-key': key } });
    const res = await post('top-1');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.topUp).toMatchObject({ status: 'PENDING', amount: 5000, currency: 'XOF', paidAt: null });
    expect(res.body.data.payment).toMatchObject({ status: 'PENDING', amount: 5000 });
    expect(res.body.data.payment.redirectUrl).toMatch(/^https?:/);
    const again = await post('top-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.topUp.id).toBe(res.body.data.topUp.id);
    expect((await post('top-1', { ...body, amount: 6000 })).status).toBe(422);
    expect(await balance(a)).toMatchObject({ balance: 0, toppedUp: 0, pendingTopUps: { count: 1, amount: 5000 } });

    // The same delivery twice at once, then again: applied once.
    const event = await paidEvent(t, res.body.data.payment.transactionId);
    const outcomes = await Promise.all([postWebhook(t, event), postWebhook(t, event)]);
    expect(outcomes.map((o) => o.body.data.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect((await deliverWebhook(t, event)).outcome).toBe('duplicate');
    expect(await balance(a)).toMatchObject({
      balance: 5000,
      toppedUp: 5000,
      spent: 0,
      pendingTopUps: { count: 0, amount: 0 },
    });
    const history = (await get(a, '/advertising/balance/history')).body;
    expect(history.meta.total).toBe(1);
    expect(history.data[0]).toMatchObject({ type: 'TOP_UP', amount: 5000, topUpId: res.body.data.topUp.id });
    const [listed] = (await get(a, '/advertising/topups')).body.data;
    expect(listed).toMatchObject({ id: res.body.data.topUp.id, status: 'PAID' });
    expect((await inbox(a)).find((n) => n.type === 'ad_topup_paid')?.data).toMatchObject({
      amount: 5000,
      balance: 5000,
    });
    const page = await call(t.app, 'GET', '/payments/mobilemoney/success', {
      query: { ref: res.body.data.payment.transactionId },
    });
    expect(page.body).toContain('data-status="SUCCEEDED"');
    expect(page.body).toContain('Recharge publicitaire');
    await assertMoneyInvariants(t.app);
  });

  it('expire unpaid, are still credited if paid late, and need a profile, the role and a known method', async () => {
    const a = await advertiser(t, { balance: 0 });
    const started = await startTopUp(t, a, 2000);
    t.clock.advance(3 * 3_600_000);
    await t.app.jobs.drain();
    adminToken = (await t.app.services.auth.signIn(adminUser, {})).accessToken;
    expect((await get(a, '/advertising/topups', { status: 'EXPIRED' })).body.data[0].id).toBe(started.topUp.id);
    expect((await deliverWebhook(t, await paidEvent(t, started.payment.transactionId))).outcome).toBe('applied');
    expect((await get(a, '/advertising/topups')).body.data[0]).toMatchObject({ status: 'PAID' });
    expect((await balance(a)).balance).toBe(2000);

    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', '/advertising/topups', { token: client.token, body: {} })).status).toBe(403);
    const admin = await call(t.app, 'POST', '/advertising/topups', {
      token: adminToken,
      body: { amount: 1000, paymentMethod: 'wave' },
    });
    expect([admin.status, admin.body.error.code]).toEqual([404, 'ADVERTISER_PROFILE_REQUIRED']);
    const bad = await call(t.app, 'POST', '/advertising/topups', {
      token: await as(a),
      body: { amount: 50, paymentMethod: 'cheque' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.amount',
      'body.paymentMethod',
    ]);
    // Administrators read any advertiser's balance; an advertiser only its own.
    expect((await get(null, '/advertising/balance', { advertiserId: a.profile.id })).body.data.balance).toBe(2000);
    const other = await advertiser(t, { balance: 0 });
    expect((await get(other, '/advertising/balance', { advertiserId: a.profile.id })).status).toBe(404);
    await assertMoneyInvariants(t.app);
  });
});

describe('spend from the balance', () => {
  it('posts each click, pauses the campaign when the balance cannot pay the next one, and a top-up resumes it', async () => {
    const a = await advertiser(t, { balance: 250 });
    const c = await activeCampaign(t, a, adminToken, { bid: 100 });
    for (let i = 0; i < 2; i++) {
      const ad = await served(c.city!);
      expect((await click(c.id, ad.clickToken)).body.data.counted).toBe(true);
    }
    // 50 left cannot pay a 100 click: paused by the click that spent it, with the reason, the advertiser told.
    expect(await campaign(a, c.id)).toMatchObject({ status: 'PAUSED', stopReason: 'BALANCE_SPENT', spent: 200 });
    expect((await inbox(a)).find((n) => n.type === 'ad_campaign_paused')?.data).toMatchObject({
      campaignId: c.id,
      reason: 'BALANCE_SPENT',
      balance: 50,
    });
    expect(await served(c.city!)).toBeUndefined();
    const resume = await call(t.app, 'POST', `/advertising/campaigns/${c.id}/resume`, { token: await as(a) });
    expect([resume.status, resume.body.error.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect((await spendPostings(c.id)).map((p) => p.lines)).toEqual([
      expect.arrayContaining([
        { account: advertiserBalance(a.profile.id), amount: 100 },
        { account: 'platform_advertising', amount: -100 },
      ]),
      expect.anything(),
    ]);
    const history = (await get(a, '/advertising/balance/history')).body.data;
    expect(history.map((m: { type: string; amount: number }) => [m.type, m.amount])).toEqual([
      ['SPEND', -100],
      ['SPEND', -100],
      ['TOP_UP', 250],
    ]);
    expect(history[0].campaignId).toBe(c.id);

    await topUp(t, a, 1000);
    expect(await campaign(a, c.id)).toMatchObject({ status: 'ACTIVE', stopReason: null });
    expect((await inbox(a)).find((n) => n.type === 'ad_topup_paid')?.data).toMatchObject({ resumed: 1, balance: 1050 });
    expect((await served(c.city!)).id).toBe(c.id);
    expect(await balance(a)).toMatchObject({ balance: 1050, toppedUp: 1250, spent: 200 });
    await assertMoneyInvariants(t.app);
  });

  it('approving a campaign the balance cannot pay pauses it at once', async () => {
    const a = await advertiser(t, { balance: 0 });
    const c = await activeCampaign(t, a, adminToken);
    expect(await campaign(a, c.id)).toMatchObject({ status: 'PAUSED', stopReason: 'BALANCE_SPENT' });
    await assertMoneyInvariants(t.app);
  });

  it('two clicks at the last franc of a balance, on two campaigns at once: exactly one is paid', async () => {
    const a = await advertiser(t, { balance: 100 });
    const one = await activeCampaign(t, a, adminToken, { bid: 100 });
    const two = await activeCampaign(t, a, adminToken, { bid: 100 });
    const [adOne, adTwo] = [await served(one.city!), await served(two.city!)];
    const answers = await Promise.all([click(one.id, adOne.clickToken), click(two.id, adTwo.clickToken)]);
    expect(answers.map((r) => r.body.data.counted).sort()).toEqual([false, true]);
    expect((await spendPostings(one.id)).length + (await spendPostings(two.id)).length).toBe(1);
    expect((await balance(a)).balance).toBe(0);
    for (const c of [one, two]) expect(await campaign(a, c.id)).toMatchObject({ status: 'PAUSED' });
    await assertMoneyInvariants(t.app);
  });

  it('bills impressions per batch, once per batch, never past the balance: two batches at the last francs post one', async () => {
    const a = await advertiser(t, { balance: 1500 });
    const cpm = { pricingModel: 'CPM', bid: 1000, totalBudget: 50_000, dailyBudget: 50_000 };
    const one = await activeCampaign(t, a, adminToken, cpm);
    const two = await activeCampaign(t, a, adminToken, cpm);
    const { serving } = t.app.services.advertising;
    const day = platformDay(t.clock.now()).day;
    const batch = (id: string) => ({ id: uuidv7(), counts: new Map([[id, 1000]]), day, tries: 0 });
    // A batch applied again (a retry after a commit whose answer was lost) changes nothing.
    const first = batch(one.id);
    await serving.applyImpressions(first);
    await serving.applyImpressions(first);
    expect(await campaign(a, one.id)).toMatchObject({ impressions: 1000, spent: 1000 });
    expect(await spendPostings(one.id)).toHaveLength(1);
    // 500 left, two batches of a thousand each at once: 500 is paid by one, the other pays nothing.
    await Promise.all([serving.applyImpressions(batch(one.id)), serving.applyImpressions(batch(two.id))]);
    const [c1, c2] = [await campaign(a, one.id), await campaign(a, two.id)];
    expect([c1.impressions, c2.impressions]).toEqual([2000, 1000]);
    expect(c1.spent + c2.spent).toBe(1500);
    expect((await spendPostings(one.id)).length + (await spendPostings(two.id)).length).toBe(2);
    expect((await balance(a)).balance).toBe(0);
    expect([c1.status, c2.status, c1.stopReason, c2.stopReason]).toEqual([
      'PAUSED',
      'PAUSED',
      'BALANCE_SPENT',
      'BALANCE_SPENT',
    ]);
    await assertMoneyInvariants(t.app);
  });
});

describe('statements and revenue', () => {
  it('gives a monthly statement as PDF or figures, and the revenue in the financial report and dashboard', async () => {
    // The first day of a month of its own: the report's day holds only this test's spend.
    const now = t.clock.now();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1, 12);
    t.clock.advance(monthStart - now.getTime());
    await t.app.jobs.drain();
    adminToken = (await t.app.services.auth.signIn(adminUser, {})).accessToken;
    const a = await advertiser(t, { balance: 900 });
    const c = await activeCampaign(t, a, adminToken, { bid: 300, name: 'Bissap du mois' });
    for (let i = 0; i < 2; i++) {
      const ad = await served(c.city!);
      expect((await click(c.id, ad.clickToken)).body.data.counted).toBe(true);
    }
    const month = t.clock.now().toISOString().slice(0, 7);
    const json = await get(a, `/advertising/statements/${month}`, { format: 'json' });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body.data).toMatchObject({
      month,
      complete: false,
      currency: 'XOF',
      openingBalance: 0,
      toppedUp: 900,
      spent: 600,
      closingBalance: 300,
      campaigns: [{ campaignId: c.id, name: 'Bissap du mois', pricingModel: 'CPC', clicks: 2, spent: 600 }],
    });
    expect(json.body.data.topUps).toHaveLength(1);
    const pdf = await get(a, `/advertising/statements/${month}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="statement-${month}.pdf"`);
    expect(String(pdf.body).startsWith('%PDF-')).toBe(true);
    // Administrators read it by advertiser; another advertiser cannot; a month to come is refused.
    expect(
      (await get(null, `/advertising/statements/${month}`, { format: 'json', advertiserId: a.profile.id })).status,
    ).toBe(200);
    const other = await advertiser(t, { balance: 0 });
    expect((await get(other, `/advertising/statements/${month}`, { advertiserId: a.profile.id })).status).toBe(404);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1)).toISOString().slice(0, 7);
    expect((await get(a, `/advertising/statements/${next}`)).status).toBe(400);
    expect((await get(a, '/advertising/statements/2026-13')).status).toBe(400);

    const dayStart = new Date(monthStart - DAY / 2);
    const report = await get(null, '/admin/reports/financial', {
      from: dayStart.toISOString(),
      to: new Date(dayStart.getTime() + DAY).toISOString(),
    });
    expect(report.body.data.totals.advertising).toBe(600);
    const dashboard = await get(null, '/admin/dashboard/stats');
    expect(dashboard.body.data.sections.money.advertising).toMatchObject({ today: 600 });

    // Next month, the statement of this one is complete, and the next one opens with its closing balance.
    t.clock.advance(32 * DAY);
    const closed = (await get(a, `/advertising/statements/${month}`, { format: 'json' })).body.data;
    expect(closed).toMatchObject({ complete: true, closingBalance: 300 });
    const after = (await get(a, `/advertising/statements/${next}`, { format: 'json' })).body.data;
    expect(after).toMatchObject({ openingBalance: 300, spent: 0, closingBalance: 300, campaigns: [] });
    await assertMoneyInvariants(t.app);
  });
});
