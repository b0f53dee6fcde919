import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { DAY, admin, publishDeal } from './deals.test-support.js';

// GET /deals on both databases. Each test works in its own region or with its own word, so the
// deals of other files (and of the other tests) never reach its answers.
let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

const ALWAYS = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
/** A word nobody else uses: consonant-vowel pairs, as a name would be spelt. */
const word = () => Array.from({ length: 4 }, () => 'bdfgklmnprstvz'[randomInt(14)]! + 'aeiou'[randomInt(5)]!).join('');
/** A point far from the others (and from Dakar, where the factories put stores). */
const region = () => ({ latitude: -40 + randomInt(8000) / 100, longitude: -150 + randomInt(30000) / 100 });

async function shopAt(latitude: number, longitude: number, over: Record<string, unknown> = {}) {
  const supplier = await createSupplier(t.app);
  const store = await createStore(t.app, supplier, { latitude, longitude, openingHours: ALWAYS, ...over });
  return { ...supplier, store };
}
const ids = (r: { status: number; body: { data: { id: string }[] } }) => {
  if (r.status !== 200) throw new Error(`GET /deals answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.data.map((d) => d.id);
};
const search = (query: Record<string, string | number | boolean>) => call(t.app, 'GET', '/deals', { query });

describe('GET /deals', () => {
  it('finds words with accents either way, the last one as a prefix, and a typo', async () => {
    const w = word();
    const s = await shopAt(14.7, -17.45);
    const d = await publishDeal(t, s, adminToken, { title: `Crème brûlée ${w}`, description: 'Desserts du jour' });
    expect(ids(await search({ q: `creme ${w}` }))).toEqual([d.id]);
    expect(ids(await search({ q: `CRÈME ${w.slice(0, 5)}` }))).toEqual([d.id]);
    expect(ids(await search({ q: `${w.slice(0, -1)}x` }))).toEqual([d.id]);
    expect(ids(await search({ q: `${w} dessert`, sort: 'newest' }))).toEqual([d.id]);
    expect((await search({ q: '!!!' })).body.data).toEqual([]);
  });

  it('near a point: nearest first with distances, within the radius', async () => {
    const p = region();
    const near = await shopAt(p.latitude, p.longitude);
    const mid = await shopAt(p.latitude + 0.01, p.longitude);
    const far = await shopAt(p.latitude + 0.2, p.longitude);
    const [a, b, c] = [
      await publishDeal(t, near, adminToken),
      await publishDeal(t, mid, adminToken),
      await publishDeal(t, far, adminToken),
    ];
    const close = await search({ latitude: p.latitude, longitude: p.longitude, radiusKm: 5 });
    expect(ids(close)).toEqual([a.id, b.id]);
    expect(close.body.data[0].distanceKm).toBeLessThan(0.01);
    expect(close.body.data[1].distanceKm).toBeCloseTo(1.11, 1);
    expect(close.body.meta).toMatchObject({ total: 2, hasMore: false, totalIsEstimate: false });
    expect(ids(await search({ latitude: p.latitude, longitude: p.longitude, radiusKm: 30 }))).toEqual([
      a.id,
      b.id,
      c.id,
    ]);
    const paged = await search({ latitude: p.latitude, longitude: p.longitude, radiusKm: 30, limit: 2, page: 2 });
    expect(ids(paged)).toEqual([c.id]);
  });

  it('sorts by price either way and by ending soon near a point, and filters category, kind, price and open now', async () => {
    const p = region();
    const open = await shopAt(p.latitude, p.longitude);
    const closed = await shopAt(p.latitude + 0.005, p.longitude, { openingHours: {} });
    const soon = new Date(t.clock.now().getTime() + 2 * DAY).toISOString();
    const cheap = await publishDeal(t, open, adminToken, { price: 500, category: 'DAIRY' });
    const dear = await publishDeal(t, open, adminToken, { price: 2000, validUntil: soon });
    const pct = await publishDeal(t, closed, adminToken, {
      kind: 'PERCENTAGE_OFF',
      price: undefined,
      discountPercent: 60,
    });
    const at = { latitude: p.latitude, longitude: p.longitude, radiusKm: 3 };
    expect(ids(await search({ ...at, sort: 'price' }))).toEqual([cheap.id, pct.id, dear.id]);
    expect(ids(await search({ ...at, sort: '-price' }))).toEqual([dear.id, pct.id, cheap.id]);
    expect(ids(await search({ ...at, sort: 'ending_soon' }))[0]).toBe(dear.id);
    expect(ids(await search({ ...at, category: 'DAIRY' }))).toEqual([cheap.id]);
    expect(ids(await search({ ...at, kind: 'PERCENTAGE_OFF' }))).toEqual([pct.id]);
    expect(ids(await search({ ...at, maxPrice: 1100, sort: 'price' }))).toEqual([cheap.id]);
    expect(ids(await search({ ...at, openNow: true, sort: 'price' }))).toEqual([cheap.id, dear.id]);
    expect(ids(await search({ ...at, openNow: false }))).toEqual([pct.id]);
    expect(ids(await search({ storeId: open.store.id, sort: 'price' }))).toEqual([cheap.id, dear.id]);
  });

  it('leaves out paused, sold-out and pending deals; a new deal shows at once', async () => {
    const p = region();
    const s = await shopAt(p.latitude, p.longitude);
    const at = { latitude: p.latitude, longitude: p.longitude };
    const paused = await publishDeal(t, s, adminToken);
    const sold = await publishDeal(t, s, adminToken, { totalPlaces: 1, placesPerClient: 1 });
    expect(ids(await search(at))).toHaveLength(2);
    await call(t.app, 'POST', `/supplier/deals/${paused.id}/toggle-pause`, { token: s.token });
    const c = await createSignedIn(t.app);
    await call(t.app, 'POST', `/deals/${sold.id}/book`, { token: c.token, body: { quantity: 1 } });
    expect(ids(await search(at))).toEqual([]);
    const fresh = await publishDeal(t, s, adminToken);
    expect(ids(await search(at))).toEqual([fresh.id]);
  });

  it('refuses contradictory or unbounded queries with 400 naming the field', async () => {
    const field = async (query: Record<string, string | number | boolean>) => {
      const r = await search(query);
      expect(r.status).toBe(400);
      return r.body.error.details[0].field;
    };
    expect(await field({ sort: 'distance' })).toBe('query.sort');
    expect(await field({ sort: 'relevance' })).toBe('query.sort');
    expect(await field({ radiusKm: 3 })).toBe('query.radiusKm');
    expect(await field({ latitude: 14 })).toBe('query.longitude');
    expect(await field({ longitude: 14 })).toBe('query.latitude');
    expect(await field({ page: 60, limit: 20 })).toBe('query.page');
    expect(await field({ category: 'SHOES' })).toBe('query.category');
    expect(await field({ nope: 1 })).toBe('query.nope');
  });

  it('a deal leaves the list the second it expires', async () => {
    const p = region();
    const s = await shopAt(p.latitude, p.longitude);
    const d = await publishDeal(t, s, adminToken, {
      validUntil: new Date(t.clock.now().getTime() + 2 * 60_000).toISOString(),
    });
    const at = { latitude: p.latitude, longitude: p.longitude };
    expect(ids(await search(at))).toEqual([d.id]);
    t.clock.advance(2 * 60_000);
    expect(ids(await search(at))).toEqual([]);
  });
});
