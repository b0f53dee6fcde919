import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { ROLES, USER_STATUSES } from '../../db/schema/users.js';
import { KYC_STATUSES, VERIFICATION_STATUSES } from '../../db/schema/suppliers.js';
import { uuidv7 } from '../../shared/ids.js';
import { commissionOf } from '../../shared/money.js';
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
const get = async (url: string, query: Record<string, string | number> = {}) => call(t.app, 'GET', url, { token: await token(), query });
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
const known = { commission: 0, clients: 0, suppliers: 0 };
beforeAll(async () => {
  t = await buildTestApp();
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
  await call(t.app, 'POST', `/admin/payments/escrow/${a.id}/release`, { token: await token(), body: { reason: 'Collected' } });
  known.commission = commissionOf(a.itemsTotal, t.app.ctx.config.DEFAULT_COMMISSION_BPS);
  // B: paid, then cancelled by the shop (refunded). C: never paid, cancelled by its client. D: paid, open.
  const b = await paidOrder(t, s, { lines: [{ productId: p2 }] });
  expect((await setStatus(t, supplierToken, b.order.id, { status: 'CANCELLED', reason: 'Plus de stock' })).status).toBe(200);
  const clientC = await newClient(t);
  const c = await orderOk(t, clientC.token, [{ productId: p2 }]);
  expect((await call(t.app, 'POST', `/orders/${c.id}/cancel`, { token: clientC.token, body: { reason: 'Changed my mind' } })).status).toBe(200);
  await paidOrder(t, s, { lines: [{ productId: p1 }] });
  known.clients = 4;
  // A product waiting for review, and a KYC attempt waiting for a decision.
  expect((await call(t.app, 'POST', '/products', { token: supplierToken, body: { storeId: s.store.id, name: 'Beignets', description: 'Beignets du matin, invendus du jour', category: 'BAKERY', originalPrice: 1000, discountedPrice: 400, quantity: 5, expiresAt, pickupStart: '18:00', pickupEnd: '20:00' } })).status).toBe(201);
  const kycSupplier = await createSupplier(t.app, { kycStatus: 'NOT_SUBMITTED' });
  known.suppliers++;
  expect((await postMultipart(t.app, '/suppliers/profile/kyc', kycSupplier.token, await validParts())).status).toBe(201);
  await t.app.jobs.drain();
});
afterAll(() => t.close());

type Windows = Record<'today' | 'last7Days' | 'last30Days', { from: string; to: string }>;

/** The dashboard's sections computed again, plainly, from the rows. */
async function recompute(windows: Windows, currency = 'XOF') {
  const db = t.app.ctx.db;
  const zeroes = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0]));
  const users = { total: 0, byRole: zeroes(ROLES), byStatus: zeroes(USER_STATUSES), byRoleAndStatus: Object.fromEntries(ROLES.map((r) => [r, zeroes(USER_STATUSES)])) };
  for (const u of await rows<{ role: string; status: string }>(db, sql`select role, status from users`)) {
    users.total++;
    users.byRole[u.role]!++;
    users.byStatus[u.status]!++;
    users.byRoleAndStatus[u.role]![u.status]!++;
  }
  const suppliers = { total: 0, byVerification: zeroes(VERIFICATION_STATUSES), byKyc: zeroes(KYC_STATUSES) };
  for (const p of await rows<{ v: string; k: string }>(db, sql`select verification_status as v, kyc_status as k from supplier_profiles where deleted_at is null`)) {
    suppliers.total++;
    suppliers.byVerification[p.v]!++;
    suppliers.byKyc[p.k]!++;
  }
  const products = await rows<{ status: string }>(db, sql`select status from products`);
  const [kyc] = await rows<{ n: number }>(db, sql`select count(*)::int as n from kyc_attempts where status = 'PENDING'`);
  const from30 = new Date(windows.last30Days.from);
  const to = new Date(windows.today.to);
  const orderRows = await rows<{ created_at: Date; paid_at: Date | null; status: string; items_total: number }>(
    db,
    sql`select created_at, paid_at, status, items_total from orders where currency = ${currency}
        and ((created_at >= ${from30} and created_at < ${to}) or (paid_at >= ${from30} and paid_at < ${to}))`,
  );
  const commissionLines = await rows<{ amount: string; created_at: Date }>(
    db,
    sql`select amount::text as amount, created_at from ledger_lines where account = 'platform_commission' and currency = ${currency} and created_at >= ${from30} and created_at < ${to}`,
  );
  const [escrow] = await rows<{ total: string }>(db, sql`select coalesce(sum(amount), 0)::text as total from ledger_lines where account like 'escrow:%' and currency = ${currency}`);
  const within = (at: Date | string | null, w: { from: string; to: string }) => at !== null && new Date(at) >= new Date(w.from) && new Date(at) < new Date(w.to);
  const orders: Record<string, unknown> = {};
  const commission: Record<string, number> = {};
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
    commission[k] = commissionLines.filter((l) => within(l.created_at, w)).reduce((sum, l) => sum - Number(l.amount), 0);
  }
  const count = (st: string) => products.filter((p) => p.status === st).length;
  return {
    users,
    suppliers,
    catalog: { activeProducts: count('ACTIVE') },
    moderation: { suppliers: suppliers.byVerification.PENDING, kyc: Number(kyc?.n ?? 0), products: count('PENDING_REVIEW') },
    orders,
    money: { commission, escrowHeld: -Number(escrow?.total ?? 0) },
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
    expect(d.sections.money.commission).toEqual({ today: known.commission, last7Days: known.commission, last30Days: known.commission });
    expect(d.sections.moderation.kyc).toBeGreaterThanOrEqual(1);
    expect(d.sections.moderation.products).toBeGreaterThanOrEqual(1);
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
    expect((await call(t.app, 'GET', '/admin/dashboard/stats', { token: (await newClient(t)).token })).status).toBe(403);
    known.clients++;
  });
});

const twoDays = () => ({ from: day1.toISOString(), to: new Date(day1.getTime() + 2 * DAY).toISOString() });

describe('impact', () => {
  it('turns the food of collected orders into kg, meals and CO2e per period', async () => {
    const res = await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'day' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.factors).toEqual({ gramsPerMeal: 420, co2eKgPerKgFood: 2.5 });
    expect(d.sources).toEqual(['orders']);
    // Only A was collected: 2 x 750 g = 1.5 kg, 3 meals of 420 g, 1.5 x 2.5 = 3.75 kg CO2e.
    const a = { foodKg: 1.5, meals: 3, co2eKg: 3.8, moneyDonated: 0, bySource: { orders: { count: 1, foodKg: 1.5, moneyDonated: 0 } } };
    const none = { foodKg: 0, meals: 0, co2eKg: 0, moneyDonated: 0, bySource: { orders: { count: 0, foodKg: 0, moneyDonated: 0 } } };
    expect(d.periods).toEqual([{ period: day1.toISOString().slice(0, 10), ...a }, { period: new Date(day1.getTime() + DAY).toISOString().slice(0, 10), ...none }]);
    expect(d.totals).toEqual(a);
    const month = (await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'month' })).body.data;
    expect(month.totals.foodKg).toBe(1.5);
    expect(month.periods.reduce((sum: number, p: { meals: number }) => sum + p.meals, 0)).toBe(3);
  });

  it('counts whole days from the daily rollup and the partial days at the ends order by order', async () => {
    const from = new Date(day1.getTime() - 12 * HOUR).toISOString();
    const to = new Date(day1.getTime() + 36 * HOUR).toISOString();
    const d = (await get('/admin/dashboard/impact', { from, to, groupBy: 'day' })).body.data;
    expect(d.periods.map((p: { period: string; foodKg: number }) => [p.period, p.foodKg])).toEqual([
      [new Date(day1.getTime() - DAY).toISOString().slice(0, 10), 0],
      [day1.toISOString().slice(0, 10), 1.5],
      [new Date(day1.getTime() + DAY).toISOString().slice(0, 10), 0],
    ]);
    // Ranges inside one day are read order by order: the collection (about 01:02 on day 1) is in the first three hours.
    const hours = (await get('/admin/dashboard/impact', { from: day1.toISOString(), to: new Date(day1.getTime() + 3 * HOUR).toISOString() })).body.data;
    expect(hours.totals.foodKg).toBe(1.5);
    expect((await get('/admin/dashboard/impact', { from: new Date(day1.getTime() + 3 * HOUR).toISOString(), to: new Date(day1.getTime() + DAY).toISOString() })).body.data.totals.foodKg).toBe(0);
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
    expect((await get('/admin/dashboard/impact', { from: '2020-01-01T00:00:00Z', to: '2024-01-01T00:00:00Z' })).status).toBe(400);
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
    expect(first).toMatchObject({ period: day1.toISOString().slice(0, 10), total: known.clients + known.suppliers });
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
    expect(d.supplier).toMatchObject({ id: s.profile.id, businessName: s.profile.businessName, verificationStatus: 'VERIFIED' });
    expect(d.orders).toEqual({ placed: 4, completed: 1, cancelled: 2 });
    expect(d.cancellations).toEqual({ total: 2, supplier: 1, client: 1, admin: 0, system: 0 });
    expect(d.sales).toEqual({ unitsSold: 2, revenueGross: 1200, commission: known.commission, revenueNet: 1200 - known.commission });
    expect(d.rating).toBeNull();
    expect(d.responseTime.confirmedOrders).toBe(1);
    expect(d.responseTime.averageSeconds).toBeGreaterThanOrEqual(90);
    expect(d.responseTime.averageSeconds).toBeLessThan(120);
    expect(d.responseTime.medianSeconds).toBe(d.responseTime.averageSeconds);
    // Another range holds none of it.
    const before = await get(`/admin/analytics/supplier/${s.profile.id}`, { from: new Date(day1.getTime() - 2 * DAY).toISOString(), to: day1.toISOString() });
    expect(before.body.data.orders).toEqual({ placed: 0, completed: 0, cancelled: 0 });
    expect(before.body.data.responseTime).toEqual({ confirmedOrders: 0, averageSeconds: null, medianSeconds: null });
  });

  it('answers 404 for an unknown supplier and 400 for a malformed id or range', async () => {
    expect((await get(`/admin/analytics/supplier/${uuidv7()}`)).status).toBe(404);
    expect((await get('/admin/analytics/supplier/not-a-uuid')).status).toBe(400);
    expect((await get(`/admin/analytics/supplier/${s.profile.id}`, { from: twoDays().to, to: twoDays().from })).status).toBe(400);
    expect((await call(t.app, 'GET', `/admin/analytics/supplier/${s.profile.id}`)).status).toBe(401);
    expect((await call(t.app, 'GET', `/admin/analytics/supplier/${s.profile.id}`, { token: s.token })).status).toBe(403);
  });
});

describe('the registry', () => {
  it('shows the figures, impact and ratings a module registers later, with nothing else changed', async () => {
    const { analytics } = t.app.services;
    analytics.registerFigures('deals-for-test', async (_ex, scope) => ({ catalog: { activeDeals: 2 }, moderation: { deals: 3 }, deals: { bookedToday: scope.today.from.getTime() === day1.getTime() ? 5 : 0 } }));
    analytics.registerImpactSource('foodDonations', async (_ex, r) => [{ period: r.from.toISOString().slice(0, 10), foodGrams: 4200, moneyDonated: 0, count: 1 }]);
    analytics.registerSupplierRating(async (_ex, supplierId) => (supplierId === s.profile.id ? { average: 4.5, count: 2 } : null));
    expect(() => analytics.registerFigures('deals-for-test', async () => ({}))).toThrow(/already registered/);

    t.clock.advance(day1.getTime() + 2 * HOUR - t.clock.now().getTime());
    const d = await fresh();
    expect(d.sections.catalog.activeDeals).toBe(2);
    expect(d.sections.moderation.deals).toBe(3);
    expect(d.sections.deals).toEqual({ bookedToday: 5 });
    expect(d.sections.catalog.activeProducts).toBeGreaterThan(0);

    const impact = (await get('/admin/dashboard/impact', { ...twoDays(), groupBy: 'day' })).body.data;
    expect(impact.sources).toEqual(['orders', 'foodDonations']);
    expect(impact.totals).toMatchObject({ foodKg: 5.7, meals: 13, co2eKg: 14.3 });
    expect(impact.totals.bySource.foodDonations).toEqual({ count: 1, foodKg: 4.2, moneyDonated: 0 });
    expect(impact.periods[0].bySource.foodDonations.foodKg).toBe(4.2);

    const perf = (await get(`/admin/analytics/supplier/${s.profile.id}`, twoDays())).body.data;
    expect(perf.rating).toEqual({ average: 4.5, count: 2 });
  });
});
