import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssociation } from '../src/modules/associations/associations.test-support.js';
import { publishDeal } from '../src/modules/deals/deals.test-support.js';
import { admin, publishProduct } from '../src/modules/products/products.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createStore, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

// Totals of the nearby lists: exact whenever the radius holds no more than the cap, so an app draws
// as many page buttons as there are pages, and every page agrees with them.
let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

const ALWAYS = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
/** A point of its own, far from the other files' rows. */
const region = () => ({ latitude: -45 + randomInt(9000) / 100, longitude: -170 + randomInt(6000) / 100 });
/** `km` north of `p` (inside the radius up to 25 km). */
const north = (p: { latitude: number; longitude: number }, km: number) => ({
  latitude: p.latitude + km / 111.2,
  longitude: p.longitude,
});

interface Meta {
  page: number;
  total: number;
  totalPages: number;
  hasMore: boolean;
  totalIsEstimate: boolean;
}

/** Every page of a list, in order, until one says there is no more; checks that each agrees with the first's total. */
async function pageThrough(url: string, query: Record<string, number>, limit: number) {
  const ids: string[] = [];
  const metas: Meta[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await call(t.app, 'GET', url, { query: { ...query, limit, page } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((i: { id: string }) => i.id));
    metas.push(res.body.meta);
    if (!res.body.meta.hasMore) break;
  }
  const first = metas[0]!;
  expect(first).toMatchObject({ total: ids.length, totalPages: Math.ceil(ids.length / limit), totalIsEstimate: false });
  expect(metas.length).toBe(first.totalPages);
  for (const m of metas)
    expect(m).toMatchObject({
      total: first.total,
      totalPages: first.totalPages,
      hasMore: m.page < first.totalPages,
      totalIsEstimate: false,
    });
  expect(new Set(ids).size).toBe(ids.length);
  return { ids, first };
}

describe('nearby totals', () => {
  it('of stores: 6 inside 25 km, 4 a page, are 6 on 2 pages', async () => {
    const p = region();
    const supplier = await createSupplier(t.app);
    const inside = [];
    for (const km of [0, 2, 5, 9, 14, 20]) inside.push((await createStore(t.app, supplier, north(p, km))).id);
    await createStore(t.app, supplier, north(p, 40));
    const { ids, first } = await pageThrough('/stores/nearby', { ...p, radiusKm: 25 }, 4);
    expect(ids).toEqual(inside);
    expect(first).toMatchObject({ total: 6, totalPages: 2 });
  });

  it('of suppliers and associations: exact, and the pages agree', async () => {
    const p = region();
    const suppliers = [];
    const associations = [];
    for (const km of [1, 3, 6, 10, 15, 21, 45]) {
      suppliers.push((await createSupplier(t.app, north(p, km))).profile.id);
      associations.push((await createAssociation(t.app, north(p, km))).association.id);
    }
    expect((await pageThrough('/suppliers/nearby', { ...p, radiusKm: 25 }, 4)).ids).toEqual(suppliers.slice(0, 6));
    expect((await pageThrough('/suppliers/nearby', { ...p, radiusKm: 25 }, 2)).ids).toEqual(suppliers.slice(0, 6));
    expect((await pageThrough('/associations/nearby', { ...p, radiusKm: 25 }, 4)).ids).toEqual(
      associations.slice(0, 6),
    );
  });

  it('of products and deals, several at one place: exact, and the pages agree', async () => {
    const p = region();
    const products: string[] = [];
    const deals: string[] = [];
    for (const km of [1, 8, 30]) {
      const supplier = await createSupplier(t.app);
      const s = { ...supplier, store: await createStore(t.app, supplier, { ...north(p, km), openingHours: ALWAYS }) };
      for (let i = 0; i < 3; i++) {
        const product = await publishProduct(t, s, adminToken);
        const deal = await publishDeal(t, s, adminToken);
        if (km < 25) {
          products.push(product.id);
          deals.push(deal.id);
        }
      }
    }
    for (const limit of [4, 2]) {
      const found = await pageThrough('/products/search', { ...p, radiusKm: 25 }, limit);
      expect(found.ids.sort()).toEqual([...products].sort());
      expect((await pageThrough('/deals', { ...p, radiusKm: 25 }, limit)).ids.sort()).toEqual([...deals].sort());
    }
  }, 120_000);
});
