import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stores } from '../src/db/schema/stores.js';
import { HEAP_PER_JSON_BYTE, ListingCache, JsonItems } from '../src/listings/index.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createStore, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

// A spot of its own, so only this file's stores are near it.
const spot = () => ({ latitude: -50 + Math.random() * 5, longitude: -70 + Math.random() * 5 });

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const nearbyIds = async (app: TestApp['app'], where: { latitude: number; longitude: number }) =>
  (await call(app, 'GET', '/stores/nearby', { query: { ...where, radiusKm: 2 } })).body.data.map(
    (s: { id: string }) => s.id,
  );

describe('cached public listings', () => {
  it('show a write made through the API at once', async () => {
    const where = spot();
    const supplier = await createSupplier(t.app, { kycStatus: 'APPROVED' });
    expect(await nearbyIds(t.app, where)).toEqual([]);
    const created = await call(t.app, 'POST', '/supplier/stores', {
      token: supplier.token,
      body: { name: 'Cache Corner', address: '1 Road', city: 'Ushuaia', ...where },
    });
    expect(created.status).toBe(201);
    expect(await nearbyIds(t.app, where)).toEqual([created.body.data.id]);
    await call(t.app, 'POST', `/supplier/stores/${created.body.data.id}/toggle-active`, { token: supplier.token });
    expect(await nearbyIds(t.app, where)).toEqual([]);
  });

  it('keep an answer at most until the minute changes when the data changed behind the API', async () => {
    const where = spot();
    const supplier = await createSupplier(t.app);
    const store = await createStore(t.app, supplier, where);
    expect(await nearbyIds(t.app, where)).toEqual([store.id]);
    await t.app.ctx.db.update(stores).set({ isActive: false }).where(eq(stores.id, store.id));
    // With a shared Redis any other suite's write may drop the cache sooner: only the bound is sure.
    if (!process.env.REDIS_URL) expect(await nearbyIds(t.app, where)).toEqual([store.id]);
    t.clock.advance(60_000);
    expect(await nearbyIds(t.app, where)).toEqual([]);
  });

  it.skipIf(!process.env.REDIS_URL)(
    'drop their answers on every instance when one instance writes (Redis)',
    async () => {
      const other = await buildTestApp();
      try {
        const where = spot();
        const supplier = await createSupplier(t.app);
        const store = await createStore(t.app, supplier, where);
        expect(await nearbyIds(other.app, where)).toEqual([store.id]);
        await call(t.app, 'POST', `/supplier/stores/${store.id}/toggle-active`, { token: supplier.token });
        // Delivery through Redis is asynchronous: wait for the other instance to hear of it.
        let ids: string[] = [store.id];
        for (let i = 0; i < 50 && ids.length; i++) {
          await new Promise((r) => setTimeout(r, 20));
          ids = await nearbyIds(other.app, where);
        }
        expect(ids).toEqual([]);
      } finally {
        await other.close();
      }
    },
  );
});

describe('the listing cache itself', () => {
  const answer = (n: number) => ({ items: 'x'.repeat(n) });

  it('keeps to its byte budget, dropping the oldest answers first', async () => {
    const cache = new ListingCache(t.clock, null, 30_000);
    let loads = 0;
    const get = (i: number) => cache.get('stores.nearby', { i }, async () => (loads++, answer(1000)));
    for (let i = 0; i < 30; i++) await get(i);
    await new Promise((r) => setImmediate(r));
    expect(cache.size.bytes).toBeLessThanOrEqual(30_000);
    expect(cache.size.entries).toBeGreaterThan(5);
    expect(cache.size.entries).toBeLessThan(30);
    await get(29);
    expect(loads).toBe(30);
    await get(0);
    expect(loads).toBe(31);
  });

  it('weighs items the database wrote by their text, without parsing them', async () => {
    const cache = new ListingCache(t.clock, null);
    const parse = vi.spyOn(JsonItems.prototype, 'toJSON');
    const card = JSON.stringify({ id: 'x'.repeat(100) });
    await cache.get('products.search', { a: 1 }, async () => ({
      items: JsonItems.of([{ card }, { card }]),
      meta: { page: 1 },
    }));
    await new Promise((r) => setImmediate(r));
    expect(parse).not.toHaveBeenCalled();
    const json = JSON.stringify({ items: [JSON.parse(card), JSON.parse(card)], meta: { page: 1 } });
    expect(cache.size.bytes / HEAP_PER_JSON_BYTE).toBeGreaterThanOrEqual(json.length);
    expect(cache.size.bytes / HEAP_PER_JSON_BYTE).toBeLessThan(json.length + 60);
    parse.mockRestore();
  });

  it('drops only the scopes a write can change', async () => {
    const cache = new ListingCache(t.clock, null);
    let loads = 0;
    const load = async () => (loads++, answer(10));
    await cache.get('stores.nearby', { a: 1 }, load);
    await cache.get('products.search', { a: 1 }, load);
    await cache.get('suppliers.search', { a: 1 }, load);
    cache.changed(['stores.', 'products.']);
    await cache.get('suppliers.search', { a: 1 }, load);
    expect(loads).toBe(3);
    await cache.get('stores.nearby', { a: 1 }, load);
    await cache.get('products.search', { a: 1 }, load);
    expect(loads).toBe(5);
    cache.changed();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });
});
