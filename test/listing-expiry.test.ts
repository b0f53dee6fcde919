import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDeal } from '../src/modules/deals/deals.test-support.js';
import { HOUR, admin, publishProduct } from '../src/modules/products/products.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createStore, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

// Cached lists and time: an answer asked before a product or deal expires (or a closure starts) and
// asked again after it, within the same minute (the cache's own bound), must not show it any more.
let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

const ALWAYS = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
/** A point of its own, far from the other files' stores. */
const region = () => ({ latitude: -30 + randomInt(6000) / 100, longitude: 100 + randomInt(6000) / 100 });
const word = () => Array.from({ length: 4 }, () => 'bdfgklmnprstvz'[randomInt(14)]! + 'aeiou'[randomInt(5)]!).join('');
const minute = () => Math.floor(t.clock.now().getTime() / 60_000);

/** The start of a minute at least a minute ahead: things expire 40 s into it, asked at 10 s and 41 s. */
function aMinuteAhead(): number {
  return (Math.floor(t.clock.now().getTime() / 60_000) + 2) * 60_000;
}
const moveTo = (at: number) => t.clock.advance(at - t.clock.now().getTime());

async function shopAt(p: { latitude: number; longitude: number }) {
  const supplier = await createSupplier(t.app);
  const store = await createStore(t.app, supplier, { ...p, openingHours: ALWAYS });
  return { ...supplier, store };
}

const ids = async (url: string, query: Record<string, string | number>) => {
  const res = await call(t.app, 'GET', url, { query });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }[]).map((i) => i.id);
};

describe('cached lists and expiry', () => {
  it('drop a product the second it expires from every product list, and a deal from the deals', async () => {
    const p = region();
    const w = word();
    const s = await shopAt(p);
    const start = aMinuteAhead();
    const expiresAt = new Date(start + 40_000).toISOString();
    const over = { name: `Pain ${w}`, expiresAt };
    const going = await publishProduct(t, s, adminToken, over);
    const staying = await publishProduct(t, s, adminToken, {
      ...over,
      expiresAt: new Date(start + 10 * HOUR).toISOString(),
    });
    const deal = await publishDeal(t, s, adminToken, { title: `Panier ${w}`, validUntil: expiresAt });
    const lasting = await publishDeal(t, s, adminToken, { title: `Panier ${w}` });
    const point = { ...p, radiusKm: 2 };
    const lists: [string, Record<string, string | number>][] = [
      ['/products/search', point],
      ['/products/search', { ...point, sort: 'expiry' }],
      ['/products/search', { q: w }],
      ['/products/search', { supplierId: s.profile.id }],
      ['/products/expiring-soon', point],
      ['/products/trending', point],
    ];
    moveTo(start + 10_000);
    const before = minute();
    for (const [url, query] of lists)
      expect(await ids(url, query)).toEqual(expect.arrayContaining([going.id, staying.id]));
    expect(await ids('/deals', point)).toEqual(expect.arrayContaining([deal.id, lasting.id]));
    expect(await ids('/deals', { q: w })).toEqual(expect.arrayContaining([deal.id, lasting.id]));

    moveTo(start + 41_000);
    expect(minute()).toBe(before);
    for (const [url, query] of lists) {
      const after = await ids(url, query);
      expect(after, `${url} ${JSON.stringify(query)}`).toContain(staying.id);
      expect(after, `${url} ${JSON.stringify(query)}`).not.toContain(going.id);
    }
    expect((await call(t.app, 'GET', `/products/${going.id}`)).status).toBe(404);
    for (const query of [point, { q: w }]) {
      const after = await ids('/deals', query);
      expect(after).toContain(lasting.id);
      expect(after).not.toContain(deal.id);
    }
  });

  it('drop the products and deals of a store the second its temporary closure starts, and show it closed', async () => {
    const p = region();
    const s = await shopAt(p);
    const start = aMinuteAhead();
    const product = await publishProduct(t, s, adminToken, { expiresAt: new Date(start + 10 * HOUR).toISOString() });
    const deal = await publishDeal(t, s, adminToken);
    const closure = {
      startsAt: new Date(start + 40_000).toISOString(),
      endsAt: new Date(start + 5 * HOUR).toISOString(),
    };
    const set = await call(t.app, 'POST', `/supplier/stores/${s.store.id}/temporary-closure`, {
      token: s.token,
      body: closure,
    });
    expect(set.status).toBe(200);
    const point = { ...p, radiusKm: 2 };
    const nearbyStore = async () => {
      const res = await call(t.app, 'GET', '/stores/nearby', { query: point });
      return res.body.data.find((x: { id: string }) => x.id === s.store.id);
    };

    moveTo(start + 10_000);
    const before = minute();
    expect(await ids('/products/search', point)).toEqual([product.id]);
    expect(await ids('/products/expiring-soon', point)).toEqual([product.id]);
    expect(await ids('/deals', point)).toEqual([deal.id]);
    expect(await nearbyStore()).toMatchObject({ isOpenNow: true, closure: { inEffect: false } });

    moveTo(start + 41_000);
    expect(minute()).toBe(before);
    expect(await ids('/products/search', point)).toEqual([]);
    expect(await ids('/products/expiring-soon', point)).toEqual([]);
    expect(await ids('/deals', point)).toEqual([]);
    expect(await nearbyStore()).toMatchObject({ isOpenNow: false, closure: { inEffect: true } });
  });
});
