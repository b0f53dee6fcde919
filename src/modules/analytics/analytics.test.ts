import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { ROLES, USER_STATUSES } from '../../db/schema/users.js';
import { KYC_STATUSES, VERIFICATION_STATUSES } from '../../db/schema/suppliers.js';
import { uuidv7 } from '../../shared/ids.js';
import { commissionOf } from '../../shared/money.js';
import { advertiser, campaignBody } from '../advertising/advertising.test-support.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { gramsPerPlace } from '../deals/deals.figures.js';
import { dealBody, publishDeal, supplierWithStore } from '../deals/deals.test-support.js';
import { admin, completeOrder, paidOrder, payForTest, shop } from '../escrow/escrow.test-support.js';
import { postMultipart, validParts } from '../kyc/kyc.test-support.js';
import '../ledger/ledger.test-support.js';
import { newClient, orderOk, setStatus } from '../orders/orders.test-support.js';
import { periodStart } from '../reports/periods.js';
import { DASHBOARD_CACHE_SECONDS } from './analytics.service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEIGHT = 750;

let t: TestApp;
let adminUser: Awaited<ReturnType<typeof admin>>['user'];
const token = async () => (await t.app.services.auth.signIn(adminUser, {})).accessToken;
const get = async (url: string, query: Record<string, string | number> = {}) =>
  call(t.app, 'GET', url, { token: await token(), query });
const fresh = async (query: Record<string, string> = {}) => {
  t.app.ctx.caches.changed('dashboard');
  const res = await get('/admin/dashboard/stats', query);
  expect(res.status).toBe(200);
  return res.body.data;
};

// One UTC day far in the future of every other test file's data (files share the database on
// PostgreSQL): the windows of the dashboard and the ranges of the reports then hold only what this
// file made there, so those figures are exact.
let day1: Date;
let s: Awaited<ReturnType<typeof shop>>;
const known = { commission: 0, clients: 0, suppliers: 0, others: 0 };
// The food of day 1 by source: order A, one place of a BAKERY deal, a food donation of 2 x 5 kg.
const FOOD = { orders: 2 * WEIGHT, bookings: gramsPerPlace('BAKERY'), foodDonations: 2 * 5000 };
// Platform-wide figures compared with a recomputation: on PostgreSQL no other file may write meanwhile.
let db: PrivateDatabase;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  adminUser = (await admin(t)).user;
  t.clock.advance(randomInt(12_000, 14_000) * DAY);
  day1 = new Date(periodStart(t.clock.now(), 'day').getTime() + DAY);
  t.clock.advance(day1.getTime() + HOUR - t.clock.now().getTime());
  await t.app.jobs.drain();

  const expiresAt = new Date(t.clock.now().getTime() + 72 * HOUR).toISOString();
  s = await shop(t, await token(), { products: 2, product: { expiresAt, unitWeightGrams: WEIGHT } });
  known.suppliers++;
  const [p1, p2] = s.products.map((p) => p.id) as [string, string];
  const supplierToken = (await t.app.services.auth.signIn(s.user, {})).accessToken;

  // A: 2 units, paid, confirmed 90 s after the payment, collected, escrow released (commission).
  const clientA = await newClient(t);
  const a = await orderOk(t, clientA.token, [{ productId: p1, quantity: 2 }]);
  await payForTest(t, a);
  t.clock.advance(90_000);
  await completeOrder(t, { token: supplierToken }, a);
  await call(t.app, 'POST', `/admin/payments/escrow/${a.id}/release`, {
    token: await token(),
    body: { reason: 'Collected' },
  });
  known.commission = commissionOf(a.itemsTotal, t.app.ctx.config.DEFAULT_COMMISSION_BPS);
  // B: paid, then cancelled by the shop (refunded). C: never paid, cancelled by its client. D: paid, open.
  const b = await paidOrder(t, s, { lines: [{ productId: p2 }] });
  expect((await setStatus(t, supplierToken, b.order.id, { status: 'CANCELLED', reason: 'Plus de stock' })).status).toBe(
    200,
  );
  const clientC = await newClient(t);
  const c = await orderOk(t, clientC.token, [{ productId: p2 }]);
  expect(
    (await call(t.app, 'POST', `/orders/${c.id}/cancel`, { token: clientC.token, body: { reason: 'Changed my mind' } }))
      .status,
  ).toBe(200);
  await paidOrder(t, s, { lines: [{ productId: p1 }] });
  known.clients = 4;
  await moduleActivity(supplierToken, clientA, clientC);
  // A product waiting for review, and a KYC attempt waiting for a decision.
  expect(
    (
      await call(t.app, 'POST', '/products', {
        token: supplierToken,
        body: {
          storeId: s.store.id,
          name: 'Beignets',
          description: 'Beignets du matin, invendus du jour',
          category: 'BAKERY',
          originalPrice: 1000,
          discountedPrice: 400,
          quantity: 5,
          expiresAt,
          pickupStart: '18:00',
          pickupEnd: '20:00',
        },
      })
    ).status,
  ).toBe(201);
  const kycSupplier = await createSupplier(t.app, { kycStatus: 'NOT_SUBMITTED' });
  known.suppliers++;
  expect((await postMultipart(t.app, '/suppliers/profile/kyc', kycSupplier.token, await validParts())).status).toBe(
    201,
  );
  await t.app.jobs.drain();
});
afterAll(async () => {
  await t.close();
  await db.drop();
});

/**
 * What the later modules add on day 1, each through its own routes: a deal waiting for review and a
 * booking used at the counter, an association waiting for verification, a campaign waiting for
 * review, a reported review of the shop, and a food donation collected by its association.
 */
async function moduleActivity(supplierToken: string, clientA: { token: string }, clientC: { token: string }) {
  const adminToken = await token();
  const dealer = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
  known.others++;
  const deal = await publishDeal(t, dealer, adminToken, { category: 'BAKERY' });
  const pending = await call(t.app, 'POST', '/supplier/deals', {
    token: dealer.token,
    body: dealBody(t, dealer.store.id, { title: 'Panier du soir' }),
  });
  expect(pending.body.data.status).toBe('PENDING_REVIEW');
  const booked = await call(t.app, 'POST', `/deals/${deal.id}/book`, { token: clientA.token, body: { quantity: 1 } });
  expect(booked.status).toBe(201);
  const used = await call(t.app, 'POST', '/supplier/deals/bookings/validate', {
    token: dealer.token,
    body: { code: booked.body.data.code },
  });
  expect(used.body.data.status).toBe('USED');

  await createAssociation(t.app, { verification: 'PENDING' });
  const association = await createAssociation(t.app);
  known.others += 2;
  const ads = await advertiser(t);
  known.others++;
  const campaign = await call(t.app, 'POST', '/advertising/campaigns', { token: ads.token, body: campaignBody(t) });
  expect(
    (await call(t.app, 'POST', `/advertising/campaigns/${campaign.body.data.id}/submit`, { token: ads.token })).body
      .data.status,
  ).toBe('PENDING_REVIEW');

  const review = await call(t.app, 'POST', '/reviews', {
    token: clientA.token,
    body: { supplierId: s.profile.id, rating: 4, comment: 'Accueil souriant, paniers généreux' },
  });
  expect(review.status).toBe(201);
  expect(
    (
      await call(t.app, 'POST', `/reviews/${review.body.data.id}/report`, {
        token: clientC.token,
        body: { reason: 'spam' },
      })
    ).status,
  ).toBe(200);

  const at = (hours: number) => new Date(t.clock.now().getTime() + hours * HOUR).toISOString();
  const given = await call(t.app, 'POST', '/donations/food', {
    token: supplierToken,
    body: {
      associationId: association.association.id,
      items: [{ name: 'Sacs de riz', quantity: 2, unitWeightGrams: 5000 }],
      pickupWindowStart: at(1),
      pickupWindowEnd: at(5),
    },
  });
  expect(given.body.data.totalWeightGrams).toBe(FOOD.foodDonations);
  const url = `/donations/${given.body.data.id}`;
  expect(
    (await call(t.app, 'PATCH', `${url}/status`, { token: association.token, body: { status: 'ACCEPTED' } })).status,
  ).toBe(200);
  expect(
    (await call(t.app, 'POST', `${url}/schedule-pickup`, { token: association.token, body: { pickupAt: at(2) } }))
      .status,
  ).toBe(200);
  expect((await call(t.app, 'POST', `${url}/confirm-pickup`, { token: association.token })).body.data.status).toBe(
    'COLLECTED',
  );
}

type Windows = Record<'today' | 'last7Days' | 'last30Days', { from: string; to: string }>;

/** The dashboard's sections computed again, plainly, from the rows. */
async function recompute(windows: Windows, currency = 'XOF') {
  const db = t.app.ctx.db;
  const zeroes = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));
  const users = {
    total: 0,
    byRole: zeroes(ROLES),
    byStatus: zeroes(USER_STATUSES),
    byRoleAndStatus: Object.fromEntries(ROLES.map((r) => [r, zeroes(USER_STATUSES)])),
  };
  for (const u of await rows<{ role: string; status: string }>(db, sql`select role, status from users`)) {
    users.total++;
    users.byRole[u.role]!++;
    users.byStatus[u.status]!++;
    users.byRoleAndStatus[u.role]![u.status]!++;
  }
  const suppliers = { total: 0, byVerification: zeroes(VERIFICATION_STATUSES), byKyc: zeroes(KYC_STATUSES) };
  for (const p of await rows<{ v: string; k: string }>(
    db,
    sql`select verification_status as v, kyc_status as k from supplier_profiles where deleted_at is null`,
  )) {
    suppliers.total++;
    suppliers.byVerification[p.v]!++;
    suppliers.byKyc[p.k]!++;
  }
  const products = await rows<{ status: string }>(db, sql`select status from products`);
  const [kyc] = await rows<{ n: number }>(
    db,
    sql`select count(*)::int as n from kyc_attempts where status = 'PENDING'`,
  );
  const from30 = new Date(windows.last30Days.from);
  const to = new Date(windows.today.to);
  const orderRows = await rows<{ created_at: Date; paid_at: Date | null; status: string; items_total: number }>(
    db,
    sql`select created_at, paid_at, status, items_total from orders where currency = ${currency}
        and ((created_at >= ${from30} and created_at < ${to}) or (paid_at >= ${from30} and paid_at < ${to}))`,
  );
  const incomeLines = await rows<{ account: string; amount: string; created_at: Date }>(
    db,
    sql`select account, amount::text as amount, created_at from ledger_lines where account in ('platform_commission', 'platform_advertising') and currency = ${currency} and created_at >= ${from30} and created_at < ${to}`,
  );
  const [escrow] = await rows<{ total: string }>(
    db,
    sql`select coalesce(sum(amount), 0)::text as total from ledger_lines where account like 'escrow:%' and currency = ${currency}`,
  );
  const within = (at: Date | string | null, w: { from: string; to: string }) =>
    at !== null && new Date(at) >= new Date(w.from) && new Date(at) < new Date(w.to);
  const orders: Record<string, unknown> = {};
  const commission: Record<string, number> = {};
  const advertising: Record<string, number> = {};
  const income = (account: string, w: { from: string; to: string }) =>
    incomeLines
      .filter((l) => l.account === account && within(l.created_at, w))
      .reduce((sum, l) => sum - Number(l.amount), 0);
  for (const [k, w] of Object.entries(windows)) {
    const placed = orderRows.filter((o) => within(o.created_at, w));
    const paid = orderRows.filter((o) => within(o.paid_at, w));
    orders[k] = {
      placed: placed.length,
      completed: placed.filter((o) => o.status === 'COMPLETED').length,
      cancelled: placed.filter((o) => o.status === 'CANCELLED').length,
      paid: paid.length,
      gmv: paid.reduce((sum, o) => sum + Number(o.items_total), 0),
    };
    commission[k] = income('platform_commission', w);
    advertising[k] = income('platform_advertising', w);
  }
  const count = (st: string) => products.filter((p) => p.status === st).length;
  // The later modules' figures: deals bookable at the answer's moment, and each moderation queue.
  const now = new Date(windows.today.to);
  const deals = await rows<{
    status: string;
    listed: boolean;
    valid_from: Date;
    valid_until: Date;
    places_taken: number;
    total_places: number;
  }>(
    db,
    sql`select status, listed, valid_from, valid_until, places_taken, total_places from deals where status in ('ACTIVE', 'PENDING_REVIEW')`,
  );
  const activeDeals = deals.filter(
    (d) =>
      d.status === 'ACTIVE' &&
      d.listed &&
      new Date(d.valid_from) <= now &&
      new Date(d.valid_until) > now &&
      d.places_taken < d.total_places,
  ).length;
  const [queues] = await rows<{ associations: number; campaigns: number; reported: number }>(
    db,
    sql`select (select count(*)::int from associations where status = 'PENDING') as associations,
               (select count(*)::int from ad_campaigns where status = 'PENDING_REVIEW' and deleted_at is null) as campaigns,
               (select count(distinct review_id)::int from review_reports where closed_at is null) as reported`,
  );
  return {
    users,
    suppliers,
    catalog: { activeProducts: count('ACTIVE'), activeDeals },
    moderation: {
      suppliers: suppliers.byVerification.PENDING,
      kyc: Number(kyc?.n ?? 0),
      products: count('PENDING_REVIEW'),
      reportedReviews: queues!.reported,
      deals: deals.filter((d) => d.status === 'PENDING_REVIEW').length,
      associations: queues!.associations,
      campaigns: queues!.campaigns,
    },
    orders,
    money: { commission, advertising, escrowHeld: -Number(escrow?.total ?? 0) },
  };
}

describe('dashboard stats', () => {
  it('equals a recomputation from the rows', async () => {
    // Other files may write between the two reads on a shared database: the figures must agree
    // whenever nothing changed in between (tried a few times).
    let last: { answer: unknown; expected: unknown } | undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const d = await fresh();
      const expected = await recompute(d.windows);
      last = { answer: d.sections, expected };
      if (JSON.stringify(d.sections) === JSON.stringify(expected) || attempt === 7) break;
    }
    expect(last!.answer).toEqual(last!.expected);
  });

  it("counts this day's orders, GMV and commission exactly", async () => {
    const d = await fresh();
    expect(d.windows.today.from).toBe(day1.toISOString());
    expect(new Date(d.windows.last30Days.from).getTime()).toBe(day1.getTime() - 29 * DAY);
    // A (1200, collected), B (600, paid then cancelled), C (600, never paid, cancelled), D (600, paid, open).
    const today = { placed: 4, completed: 1, cancelled: 2, paid: 3, gmv: 2400 };
    expect(d.sections.orders).toEqual({ today, last7Days: today, last30Days: today });
    expect(d.sections.money.commission).toEqual({
      today: known.commission,
      last7Days: known.commission,
      last30Days: known.commission,
    });
    expect(d.sections.moderation.kyc).toBeGreaterThanOrEqual(1);
    expect(d.sections.moderation.products).toBeGreaterThanOrEqual(1);
    for (const queue of ['deals', 'associations', 'campaigns', 'reportedReviews'])
      expect(d.sections.moderation[queue]).toBeGreaterThanOrEqual(1);
    expect(d.sections.catalog.activeDeals).toBeGreaterThanOrEqual(1);
    expect(d.cachedForSeconds).toBe(DASHBOARD_CACHE_SECONDS);
    await assertMoneyInvariants(t.app);
  });

  it('answers from its cache for a short time, then computes again', async () => {
    const before = await fresh();
    await newClient(t);
    known.clients++;
    const cached = (await get('/admin/dashboard/stats')).body.data;
    expect(cached.generatedAt).toBe(before.generatedAt);
    expect(cached.sections.users.total).toBe(before.sections.users.total);
    t.clock.advance((DASHBOARD_CACHE_SECONDS + 1) * 1000);
    const later = (await get('/admin/dashboard/stats')).body.data;
    expect(later.generatedAt).not.toBe(before.generatedAt);
    expect(later.sections.users.byRole.CLIENT).toBeGreaterThan(before.sections.users.byRole.CLIENT);
  });

  it('refuses a bad currency, no token and a wrong role', async () => {
    const bad = await get('/admin/dashboard/stats', { currency: 'xof' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('query.currency');
    expect((await call(t.app, 'GET', '/admin/dashboard/stats')).status).toBe(401);
    expect((await call(t.app, 'GET', '/admin/dashboard/stats', { token: (await newClient(t)).token })).status).toBe(
      403,
    );
    known.clients++;
  });
});

const twoDays = () => ({ from: day1.toISOString(), to: new Date(day1.getTime() + 2 * DAY).toISOString() });

describe('impact', () => {
  it('turns the food of collected orders, used bookings and collected donations into kg, meals and CO2e per period', async () => {
    const res = await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'day' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.factors).toEqual({ gramsPerMeal: 420, co2eKgPerKgFood: 2.5 });
    expect(d.sources).toEqual(['orders', 'bookings', 'foodDonations', 'financialDonations']);
    // A: 2 x 750 g = 1.5 kg; one place of a BAKERY deal: 0.3 kg; the donation: 2 x 5 kg. 11.8 kg in
    // all: 28 meals of 420 g, 11.8 x 2.5 = 29.5 kg CO2e.
    expect(FOOD).toEqual({ orders: 1500, bookings: 300, foodDonations: 10_000 });
    const bySource = (n: number) => ({
      orders: { count: n, foodKg: n * 1.5, moneyDonated: 0 },
      bookings: { count: n, foodKg: n * 0.3, moneyDonated: 0 },
      foodDonations: { count: n, foodKg: n * 10, moneyDonated: 0 },
      // Money given, not food; exact in donations' financial.test.ts, on a day of its own (other files
      // may pay donations on this day of the shared database).
      financialDonations: { count: expect.any(Number), foodKg: 0, moneyDonated: expect.any(Number) },
    });
    const day = { foodKg: 11.8, meals: 28, co2eKg: 29.5, moneyDonated: expect.any(Number), bySource: bySource(1) };
    const none = { foodKg: 0, meals: 0, co2eKg: 0, moneyDonated: expect.any(Number), bySource: bySource(0) };
    expect(d.periods).toEqual([
      { period: day1.toISOString().slice(0, 10), ...day },
      { period: new Date(day1.getTime() + DAY).toISOString().slice(0, 10), ...none },
    ]);
    expect(d.totals).toEqual(day);
    const month = (await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'month' })).body.data;
    expect(month.totals.foodKg).toBe(11.8);
    expect(month.periods.reduce((sum: number, p: { meals: number }) => sum + p.meals, 0)).toBe(28);
  });

  it('equals a recomputation of the bookings and donations from their rows', async () => {
    const from = new Date(day1.getTime() - 40 * DAY);
    const to = new Date(day1.getTime() + 2 * DAY);
    const d = (
      await get('/admin/dashboard/impact', { from: from.toISOString(), to: to.toISOString(), groupBy: 'month' })
    ).body.data;
    const places = await rows<{ category: 'BAKERY'; quantity: number }>(
      t.app.ctx.db,
      sql`select d.category, b.quantity from deal_bookings b join deals d on d.id = b.deal_id where b.status = 'USED' and b.used_at >= ${from} and b.used_at < ${to}`,
    );
    const items = await rows<{ donations: number; grams: string }>(
      t.app.ctx.db,
      sql`select count(distinct d.id)::int as donations, coalesce(sum(i.quantity * i.unit_weight_grams), 0)::text as grams from donations d join donation_items i on i.donation_id = d.id
          where d.kind = 'FOOD' and d.status = 'COLLECTED' and d.collected_at >= ${from} and d.collected_at < ${to}`,
    );
    const bookingGrams = places.reduce((sum, p) => sum + p.quantity * gramsPerPlace(p.category), 0);
    expect(d.totals.bySource.bookings).toEqual({ count: places.length, foodKg: bookingGrams / 1000, moneyDonated: 0 });
    expect(d.totals.bySource.foodDonations).toEqual({
      count: items[0]!.donations,
      foodKg: Number(items[0]!.grams) / 1000,
      moneyDonated: 0,
    });
  });

  it('counts whole days from the daily rollup and the partial days at the ends order by order', async () => {
    const from = new Date(day1.getTime() - 12 * HOUR).toISOString();
    const to = new Date(day1.getTime() + 36 * HOUR).toISOString();
    const d = (await get('/admin/dashboard/impact', { from, to, groupBy: 'day' })).body.data;
    expect(d.periods.map((p: { period: string; foodKg: number }) => [p.period, p.foodKg])).toEqual([
      [new Date(day1.getTime() - DAY).toISOString().slice(0, 10), 0],
      [day1.toISOString().slice(0, 10), 11.8],
      [new Date(day1.getTime() + DAY).toISOString().slice(0, 10), 0],
    ]);
    // Ranges inside one day are read order by order: the collections (about 01:02 on day 1) are in the first three hours.
    const hours = (
      await get('/admin/dashboard/impact', {
        from: day1.toISOString(),
        to: new Date(day1.getTime() + 3 * HOUR).toISOString(),
      })
    ).body.data;
    expect(hours.totals.foodKg).toBe(11.8);
    expect(
      (
        await get('/admin/dashboard/impact', {
          from: new Date(day1.getTime() + 3 * HOUR).toISOString(),
          to: new Date(day1.getTime() + DAY).toISOString(),
        })
      ).body.data.totals.foodKg,
    ).toBe(0);
  });

  it('keeps the daily rollup equal to the collected orders', async () => {
    const [diff] = await rows<{ n: number }>(
      t.app.ctx.db,
      sql`with o as (select (completed_at at time zone 'UTC')::date as day, count(*)::int as orders, sum(items_weight_grams)::bigint as grams from orders where status = 'COMPLETED' group by 1),
               r as (select day, sum(orders)::int as orders, sum(weight_grams)::bigint as grams from order_daily_collected group by 1)
          select count(*)::int as n from o full join r on r.day = o.day where o.orders is distinct from r.orders or o.grams is distinct from r.grams`,
    );
    expect(diff?.n).toBe(0);
  });

  it('refuses a bad period', async () => {
    const back = await get('/admin/dashboard/impact', { from: twoDays().to, to: twoDays().from });
    expect(back.status).toBe(400);
    expect(back.body.error.details[0].field).toBe('query.from');
    expect((await get('/admin/dashboard/impact', { groupBy: 'year' })).status).toBe(400);
    expect(
      (await get('/admin/dashboard/impact', { from: '2020-01-01T00:00:00Z', to: '2024-01-01T00:00:00Z' })).status,
    ).toBe(400);
    expect((await get('/admin/dashboard/impact', { from: 'yesterday' })).status).toBe(400);
    expect((await call(t.app, 'GET', '/admin/dashboard/impact')).status).toBe(401);
    expect((await call(t.app, 'GET', '/admin/dashboard/impact', { token: s.token })).status).toBe(403);
  });
});

describe('user growth', () => {
  it('counts new accounts per period and role', async () => {
    const res = await get('/admin/analytics/user-growth', { ...twoDays(), groupBy: 'day' });
    expect(res.status).toBe(200);
    const [first, second] = res.body.data.periods;
    expect(first).toMatchObject({
      period: day1.toISOString().slice(0, 10),
      total: known.clients + known.suppliers + known.others,
    });
    expect(first.byRole).toMatchObject({ CLIENT: known.clients, SUPPLIER_FOOD: known.suppliers, ADMIN: 0 });
    expect(second.total).toBe(0);
    expect(res.body.data.totals.byRole.CLIENT).toBe(known.clients);
    const week = await get('/admin/analytics/user-growth', { ...twoDays(), groupBy: 'week', role: 'SUPPLIER_FOOD' });
    expect(week.body.data.role).toBe('SUPPLIER_FOOD');
    expect(week.body.data.totals).toEqual({ total: known.suppliers, byRole: { SUPPLIER_FOOD: known.suppliers } });
  });

  it('refuses a bad period or role', async () => {
    expect((await get('/admin/analytics/user-growth', { groupBy: 'hour' })).status).toBe(400);
    expect((await get('/admin/analytics/user-growth', { role: 'PIRATE' })).status).toBe(400);
    expect((await get('/admin/analytics/user-growth', { from: twoDays().to, to: twoDays().from })).status).toBe(400);
    expect((await call(t.app, 'GET', '/admin/analytics/user-growth')).status).toBe(401);
    expect((await call(t.app, 'GET', '/admin/analytics/user-growth', { token: s.token })).status).toBe(403);
  });
});

describe('supplier performance', () => {
  it('gives orders, cancellations by whom, sales gross and net, and the time to confirm a paid order', async () => {
    const res = await get(`/admin/analytics/supplier/${s.profile.id}`, twoDays());
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.supplier).toMatchObject({
      id: s.profile.id,
      businessName: s.profile.businessName,
      verificationStatus: 'VERIFIED',
    });
    expect(d.orders).toEqual({ placed: 4, completed: 1, cancelled: 2 });
    expect(d.cancellations).toEqual({ total: 2, supplier: 1, client: 1, admin: 0, system: 0 });
    expect(d.sales).toEqual({
      unitsSold: 2,
      revenueGross: 1200,
      commission: known.commission,
      revenueNet: 1200 - known.commission,
    });
    // The rating of the reviews of the supplier (the reported review is still visible: one report).
    expect(d.rating).toEqual({ average: 4, count: 1 });
    expect(d.responseTime.confirmedOrders).toBe(1);
    expect(d.responseTime.averageSeconds).toBeGreaterThanOrEqual(90);
    expect(d.responseTime.averageSeconds).toBeLessThan(120);
    expect(d.responseTime.medianSeconds).toBe(d.responseTime.averageSeconds);
    // Another range holds none of it.
    const before = await get(`/admin/analytics/supplier/${s.profile.id}`, {
      from: new Date(day1.getTime() - 2 * DAY).toISOString(),
      to: day1.toISOString(),
    });
    expect(before.body.data.orders).toEqual({ placed: 0, completed: 0, cancelled: 0 });
    expect(before.body.data.responseTime).toEqual({ confirmedOrders: 0, averageSeconds: null, medianSeconds: null });
    expect(
      (await get(`/admin/analytics/supplier/${(await createSupplier(t.app)).profile.id}`, twoDays())).body.data.rating,
    ).toBeNull();
    known.suppliers++;
  });

  it('answers 404 for an unknown supplier and 400 for a malformed id or range', async () => {
    expect((await get(`/admin/analytics/supplier/${uuidv7()}`)).status).toBe(404);
    expect((await get('/admin/analytics/supplier/not-a-uuid')).status).toBe(400);
    expect(
      (await get(`/admin/analytics/supplier/${s.profile.id}`, { from: twoDays().to, to: twoDays().from })).status,
    ).toBe(400);
    expect((await call(t.app, 'GET', `/admin/analytics/supplier/${s.profile.id}`)).status).toBe(401);
    expect((await call(t.app, 'GET', `/admin/analytics/supplier/${s.profile.id}`, { token: s.token })).status).toBe(
      403,
    );
  });
});

describe('the registry', () => {
  it('shows the figures, impact and ratings a module registers later, with nothing else changed', async () => {
    const { analytics } = t.app.services;
    analytics.registerFigures('later-for-test', async (_ex, scope) => ({
      catalog: { activeLoans: 2 },
      moderation: { loans: 3 },
      loans: { bookedToday: scope.today.from.getTime() === day1.getTime() ? 5 : 0 },
    }));
    analytics.registerImpactSource('giftsForTest', async (_ex, r) => [
      { period: r.from.toISOString().slice(0, 10), foodGrams: 4200, moneyDonated: 0, count: 1 },
    ]);
    expect(() => analytics.registerFigures('later-for-test', async () => ({}))).toThrow(/already registered/);
    expect(() => analytics.registerImpactSource('foodDonations', async () => [])).toThrow(/already registered/);
    expect(() => analytics.registerSupplierRating(async () => null)).toThrow(/already registered/);

    t.clock.advance(day1.getTime() + 2 * HOUR - t.clock.now().getTime());
    const d = await fresh();
    expect(d.sections.catalog.activeLoans).toBe(2);
    expect(d.sections.moderation.loans).toBe(3);
    expect(d.sections.loans).toEqual({ bookedToday: 5 });
    expect(d.sections.catalog.activeProducts).toBeGreaterThan(0);

    const impact = (await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'day' })).body.data;
    expect(impact.sources).toEqual(['orders', 'bookings', 'foodDonations', 'financialDonations', 'giftsForTest']);
    // 11.8 kg of day 1 and 4.2 kg more: 16 kg, 38 meals, 40 kg CO2e.
    expect(impact.totals).toMatchObject({ foodKg: 16, meals: 38, co2eKg: 40 });
    expect(impact.totals.bySource.giftsForTest).toEqual({ count: 1, foodKg: 4.2, moneyDonated: 0 });
    expect(impact.periods[0].bySource.giftsForTest.foodKg).toBe(4.2);
  });
});
