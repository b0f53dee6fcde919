import { randomInt } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { commissionOf } from '../../shared/money.js';
import { admin, completeOrder, paidOrder, shop } from '../escrow/escrow.test-support.js';
import { newClient, orderOk } from '../orders/orders.test-support.js';
import { periodKey, periodStart } from './periods.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let t: TestApp;
let adminUser: Awaited<ReturnType<typeof admin>>['user'];
const token = async () => (await t.app.services.auth.signIn(adminUser, {})).accessToken;
const get = async (url: string, query: Record<string, string | number> = {}) =>
  call(t.app, 'GET', url, { token: await token(), query });

// A small known set of orders over two UTC days, far in the future of every other test's data
// (files share the database on PostgreSQL), so the reports' figures can be exact.
let day1: Date;
const known = { a: 0, commissionA: 0 };
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await admin(t)).user;
  t.clock.advance(randomInt(3000, 9000) * DAY);
  day1 = new Date(periodStart(t.clock.now(), 'day').getTime() + DAY);
  t.clock.advance(day1.getTime() + HOUR - t.clock.now().getTime());
  // The queue follows the clock at each drain: let it catch up before scheduling anything.
  await t.app.jobs.drain();

  const expiresAt = new Date(t.clock.now().getTime() + 72 * HOUR).toISOString();
  const s = await shop(t, await token(), { products: 2, product: { expiresAt } });
  const dear = await shop(t, await token());
  const dearProduct = (
    await call(t.app, 'POST', '/products', {
      token: dear.token,
      body: {
        storeId: dear.store.id,
        name: 'Plateau traiteur',
        description: 'Plateau du jour à emporter avant la fermeture',
        category: 'BAKERY',
        originalPrice: 5000,
        discountedPrice: 2000,
        quantity: 5,
        expiresAt,
        pickupStart: '18:00',
        pickupEnd: '20:00',
      },
    })
  ).body.data;
  await call(t.app, 'PATCH', `/admin/products/${dearProduct.id}/approve`, { token: await token() });
  const [p1, p2] = s.products.map((p) => p.id) as [string, string];

  // Day 1: A (2 x 600) collected and released, paid out; B (600) refunded; E (2000) collected, held.
  const a = await paidOrder(t, s, { lines: [{ productId: p1, quantity: 2 }], complete: true });
  known.a = a.order.itemsTotal;
  known.commissionA = commissionOf(a.order.itemsTotal, t.app.ctx.config.DEFAULT_COMMISSION_BPS);
  await call(t.app, 'POST', `/admin/payments/escrow/${a.order.id}/release`, {
    token: await token(),
    body: { reason: 'Collected, no complaint' },
  });
  const b = await paidOrder(t, s, { lines: [{ productId: p2 }] });
  await call(t.app, 'POST', `/admin/payments/escrow/${b.order.id}/refund`, {
    token: await token(),
    body: { reason: 'Store closed' },
  });
  await paidOrder(t, dear, { lines: [{ productId: dearProduct.id }], complete: true });
  await t.app.jobs.drain();
  for (const p of t.mobilemoney.payouts.values())
    if (p.status === 'processing') t.mobilemoney.settlePayout(p.id, 'succeeded');
  t.clock.advance(5 * 60_000);
  await t.app.jobs.drain();

  // Day 2: C (600) collected, held; D (600) never paid.
  t.clock.advance(DAY);
  await t.app.jobs.drain();
  const c = await paidOrder(t, s, { lines: [{ productId: p1 }] });
  await completeOrder(t, { token: (await t.app.services.auth.signIn(s.user, {})).accessToken }, c.order);
  await orderOk(t, (await newClient(t)).token, [{ productId: p2 }]);
  await t.app.jobs.drain();
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

const range = () => ({ from: day1.toISOString(), to: new Date(day1.getTime() + 2 * DAY).toISOString() });

describe('financial report', () => {
  it('gives GMV, commission, refunds, payouts and escrow held per day, and totals, from the ledger', async () => {
    const before =
      (await t.app.services.ledger.escrowHeldAt(t.app.ctx.db, day1)).find((b) => b.currency === 'XOF')?.held ?? 0;
    const res = await get('/admin/reports/financial', { ...range(), groupBy: 'day' });
    expect(res.status).toBe(200);
    const { commissionA: c, a } = known;
    const d1 = {
      period: periodKey(day1),
      gmv: a + 600 + 2000,
      commission: c,
      refunds: 600,
      payouts: a - c,
      advertising: 0,
      heldInEscrow: before + 2000,
    };
    const d2 = {
      period: periodKey(new Date(day1.getTime() + DAY)),
      gmv: 600,
      commission: 0,
      refunds: 0,
      payouts: 0,
      advertising: 0,
      heldInEscrow: before + 2600,
    };
    expect(res.body.data).toMatchObject({ groupBy: 'day', currency: 'XOF', periods: [d1, d2] });
    expect(res.body.data.totals).toEqual({
      gmv: d1.gmv + 600,
      commission: c,
      refunds: 600,
      payouts: a - c,
      advertising: 0,
      heldInEscrow: before + 2600,
    });

    const month = await get('/admin/reports/financial', { ...range(), groupBy: 'month' });
    const months = month.body.data.periods;
    expect(months.reduce((s: number, p: { gmv: number }) => s + p.gmv, 0)).toBe(d1.gmv + 600);
    expect(months.at(-1).heldInEscrow).toBe(before + 2600);
  });

  it('answers CSV with a header row, one row per period and the totals', async () => {
    const res = await get('/admin/reports/financial', { ...range(), groupBy: 'day', format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="financial-report-.*\.csv"$/);
    const json = (await get('/admin/reports/financial', { ...range(), groupBy: 'day' })).body.data;
    const lines = String(res.body).trimEnd().split('\r\n');
    expect(lines[0]).toBe('period,currency,gmv,commission,refunds,payouts,advertising,heldInEscrow');
    expect(lines.slice(1)).toEqual([
      ...json.periods.map((p: Record<string, number>) =>
        [p.period, 'XOF', p.gmv, p.commission, p.refunds, p.payouts, p.advertising, p.heldInEscrow].join(','),
      ),
      [
        'total',
        'XOF',
        json.totals.gmv,
        json.totals.commission,
        json.totals.refunds,
        json.totals.payouts,
        json.totals.advertising,
        json.totals.heldInEscrow,
      ].join(','),
    ]);
  });

  it('refuses a bad range and a wrong role', async () => {
    const back = await get('/admin/reports/financial', { from: range().to, to: range().from });
    expect(back.status).toBe(400);
    expect(back.body.error.details[0].field).toBe('query.from');
    const tooMany = await get('/admin/reports/financial', {
      from: '2020-01-01T00:00:00Z',
      to: '2024-01-01T00:00:00Z',
      groupBy: 'day',
    });
    expect(tooMany.status).toBe(400);
    expect((await get('/admin/reports/financial', { format: 'pdf' })).status).toBe(400);
    const client = await newClient(t);
    expect((await call(t.app, 'GET', '/admin/reports/financial', { token: client.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/admin/payments/statistics')).status).toBe(401);
  });
});

describe('payment statistics', () => {
  it('counts payments and volume by status, by method and per day', async () => {
    const res = await get('/admin/payments/statistics', { ...range(), period: 'day' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    const total = known.a + 600 + 2000 + 600 + 600;
    expect(d.totals).toEqual({ count: 5, volume: total });
    const status = (s: string) => d.byStatus.find((x: { status: string }) => x.status === s);
    expect(status('PENDING')).toEqual({ status: 'PENDING', count: 1, volume: 600 });
    const paid = ['SUCCEEDED', 'REFUND_PENDING', 'REFUNDED'].map(status).reduce((s, x) => s + x.count, 0);
    expect(paid).toBe(4);
    expect(d.byMethod.find((m: { method: string }) => m.method === 'wave')).toEqual({
      method: 'wave',
      count: 5,
      volume: total,
      succeeded: { count: 4, volume: total - 600 },
    });
    expect(d.byMethod.find((m: { method: string }) => m.method === 'card')).toEqual({
      method: 'card',
      count: 0,
      volume: 0,
      succeeded: { count: 0, volume: 0 },
    });
    expect(d.perPeriod).toEqual([
      { period: periodKey(day1), count: 3, volume: known.a + 2600, succeeded: { count: 3, volume: known.a + 2600 } },
      {
        period: periodKey(new Date(day1.getTime() + DAY)),
        count: 2,
        volume: 1200,
        succeeded: { count: 1, volume: 600 },
      },
    ]);
  });
});

describe('top products', () => {
  it('ranks products of completed orders by units and by revenue', async () => {
    const res = await get('/admin/analytics/top-products', { ...range(), limit: 2 });
    expect(res.status).toBe(200);
    const { byUnits, byRevenue } = res.body.data;
    expect(
      byUnits.map((p: { unitsSold: number; revenue: number; orders: number }) => [p.unitsSold, p.revenue, p.orders]),
    ).toEqual([
      [3, 1800, 2],
      [1, 2000, 1],
    ]);
    expect(byRevenue.map((p: { revenue: number }) => p.revenue)).toEqual([2000, 1800]);
    expect(byRevenue[0]).toMatchObject({ name: 'Plateau traiteur', unitsSold: 1 });
    expect((await get('/admin/analytics/top-products', { ...range(), limit: 1 })).body.data.byUnits).toHaveLength(1);
  });
});

it("feeds the supplier's statistics balances from the ledger", async () => {
  const s = await shop(t, await token());
  const { order } = await paidOrder(t, s, { complete: true });
  await call(t.app, 'POST', `/admin/payments/escrow/${order.id}/release`, {
    token: await token(),
    body: { reason: 'Collected' },
  });
  const other = await paidOrder(t, s);
  const res = await call(t.app, 'GET', '/orders/supplier-statistics', {
    token: (await t.app.services.auth.signIn(s.user, {})).accessToken,
  });
  const net = order.itemsTotal - commissionOf(order.itemsTotal, t.app.ctx.config.DEFAULT_COMMISSION_BPS);
  expect(res.body.data.balances).toEqual({ escrowHeld: other.order.itemsTotal, released: net, paidOut: 0 });
  await t.app.jobs.drain();
  for (const p of t.mobilemoney.payouts.values())
    if (p.status === 'processing') t.mobilemoney.settlePayout(p.id, 'succeeded');
  t.clock.advance(5 * 60_000);
  await t.app.jobs.drain();
  await call(t.app, 'POST', `/admin/payments/escrow/${other.order.id}/refund`, {
    token: await token(),
    body: { reason: 'Store closed' },
  });
});
