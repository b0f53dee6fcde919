import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createStore } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { inArray, sql } from 'drizzle-orm';
import { productImages, productSearchLexemes } from '../../db/schema/products.js';
import { uuidv7 } from '../../shared/ids.js';
import { HOUR, admin, publishProduct, supplierWithStore } from '../products/products.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const names = (res: { body: any }) => res.body.data.map((p: { name: string }) => p.name);

describe('GET /products/search and /products/expiring-soon', () => {
  // A region of their own, so other files' products are not near it; a city of letters only.
  const base = { latitude: 30 + Math.random() * 10, longitude: -40 + Math.random() * 10 };
  const kmNorth = (km: number) => ({ latitude: base.latitude + km / 111.2, longitude: base.longitude });
  const city = `Prodville ${Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')}`;
  let supplierId: string;
  let nearStoreId: string;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    const adm = await admin(t);
    const s = await supplierWithStore(t);
    supplierId = s.profile.id;
    const near = await createStore(t.app, s, {
      name: 'Boutique Proche',
      city,
      ...kmNorth(1),
      openingHours: Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']])),
    });
    const far = await createStore(t.app, s, { name: 'Boutique Loin', city, ...kmNorth(4), openingHours: {} });
    nearStoreId = near.id;
    const specs: [string, string, Record<string, unknown>][] = [
      [
        'Pain de campagne',
        near.id,
        {
          description: 'Miche au levain',
          originalPrice: 1500,
          discountedPrice: 600,
          expiresAt: new Date(t.clock.now().getTime() + 10 * HOUR).toISOString(),
        },
      ],
      [
        'Crème brûlée',
        near.id,
        {
          category: 'DAIRY',
          description: 'Dessert du jour',
          originalPrice: 2000,
          discountedPrice: 1500,
          dietaryTags: ['VEGETARIAN'],
          allergens: ['MILK', 'EGGS'],
        },
      ],
      [
        'Thiéboudienne',
        far.id,
        {
          category: 'PREPARED_MEALS',
          description: 'Riz au poisson, plat du midi',
          originalPrice: 3000,
          discountedPrice: 1000,
          dietaryTags: ['HALAL'],
          allergens: ['FISH'],
          expiresAt: new Date(t.clock.now().getTime() + 30 * HOUR).toISOString(),
        },
      ],
      [
        'Organic apples',
        far.id,
        {
          category: 'FRUITS_VEGETABLES',
          description: 'Fresh fruit basket',
          originalPrice: 2500,
          discountedPrice: 2000,
          dietaryTags: ['VEGAN', 'ORGANIC'],
          allergens: [],
          quantity: 0,
          expiresAt: new Date(t.clock.now().getTime() + 72 * HOUR).toISOString(),
        },
      ],
    ];
    for (const [name, storeId, over] of specs) {
      t.clock.advance(1000);
      made[name] = (
        await publishProduct(t, { token: s.token, store: { id: storeId } }, adm.token, { name, storeId, ...over })
      ).id;
    }
    // Not listed: waiting for review.
    await call(t.app, 'POST', '/products', {
      token: s.token,
      body: { ...specsBody(near.id), name: 'Pain en attente' },
    });
  }, 60_000);
  const specsBody = (storeId: string) => ({
    storeId,
    description: 'x',
    category: 'BAKERY',
    originalPrice: 1000,
    discountedPrice: 500,
    quantity: 1,
    expiresAt: new Date(t.clock.now().getTime() + 5 * HOUR).toISOString(),
    pickupStart: '18:00',
    pickupEnd: '20:00',
    dietaryTags: [],
    allergens: [],
  });
  const search = (query: Record<string, unknown>) =>
    call(t.app, 'GET', '/products/search', { query: { supplierId, ...query } as never });

  it('finds products by words, ignoring accents and case, with a typo and a prefix', async () => {
    expect(names(await search({ q: 'creme brulee' }))).toEqual(['Crème brûlée']);
    expect(names(await search({ q: 'THIEBOUDIENNE' }))).toEqual(['Thiéboudienne']);
    expect(names(await search({ q: 'thieboudiene' }))).toEqual(['Thiéboudienne']);
    // A misspelt word beside one spelt as the catalog has it; words all there but never together find nothing.
    expect(names(await search({ q: 'thieboudiene riz' }))).toEqual(['Thiéboudienne']);
    expect(names(await search({ q: 'riz thieboudiene', sort: 'price' }))).toEqual(['Thiéboudienne']);
    expect(names(await search({ q: 'pain creme' }))).toEqual([]);
    expect(names(await search({ q: 'pain creme', sort: 'price' }))).toEqual([]);
    // The catalog's words, kept from every product written (names and descriptions).
    const known = await t.app.ctx.db
      .select()
      .from(productSearchLexemes)
      .where(inArray(productSearchLexemes.lexeme, ['thieboudienne', 'levain', 'thieboudiene']));
    expect(known.map((k) => k.lexeme).sort()).toEqual(['levain', 'thieboudienne']);
    // Near spellings keep to their words near a point too, nearest first or in another order.
    for (const sort of ['distance', 'expiry']) {
      const near = await call(t.app, 'GET', '/products/search', {
        query: { q: 'thieboudiene', ...kmNorth(0), radiusKm: 10, sort } as never,
      });
      expect(names(near), sort).toEqual(['Thiéboudienne']);
    }
    expect(names(await search({ q: 'pain camp' }))).toEqual(['Pain de campagne']);
    expect(names(await search({ q: 'fresh apples' }))).toEqual(['Organic apples']);
    const res = await search({ q: 'pain' });
    expect(res.body.data[0]).toEqual({
      id: made['Pain de campagne'],
      name: 'Pain de campagne',
      thumbnailUrl: null,
      originalPrice: 1500,
      discountedPrice: 600,
      discountPercent: 60,
      currency: 'XOF',
      expiresAt: expect.any(String),
      storeId: nearStoreId,
      storeName: 'Boutique Proche',
      distanceKm: null,
    });
    expect(res.body.meta).toMatchObject({ total: 1, hasMore: false, totalIsEstimate: false });
  });

  it('filters by category, price, discount, dietary tags, stock, city, store, expiry and open now', async () => {
    expect(names(await search({ category: 'DAIRY' }))).toEqual(['Crème brûlée']);
    expect(names(await search({ minPrice: 1000, maxPrice: 1500, sort: 'price' }))).toEqual([
      'Thiéboudienne',
      'Crème brûlée',
    ]);
    expect(names(await search({ minDiscount: 60, sort: 'discount' }))).toEqual(['Thiéboudienne', 'Pain de campagne']);
    const tagged = await search({ dietaryTags: 'VEGAN,ORGANIC' });
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
    expect(names(tagged)).toEqual(['Organic apples']);
    expect(names(await search({ inStock: false }))).toEqual(['Organic apples']);
    expect((await search({ inStock: true, city: city.toUpperCase() })).body.data).toHaveLength(3);
    expect(names(await search({ storeId: nearStoreId, sort: 'price' }))).toEqual(['Pain de campagne', 'Crème brûlée']);
    const before = new Date(t.clock.now().getTime() + 20 * HOUR).toISOString();
    expect(names(await search({ expiresBefore: before }))).toEqual(['Pain de campagne']);
    expect(names(await search({ openNow: true, sort: 'price' }))).toEqual(['Pain de campagne', 'Crème brûlée']);
  });

  it('sorts each way and gives the distance of every item when a point is given', async () => {
    expect(names(await search({ sort: '-price' }))).toEqual([
      'Organic apples',
      'Crème brûlée',
      'Thiéboudienne',
      'Pain de campagne',
    ]);
    expect(names(await search({ sort: 'expiry' }))).toEqual([
      'Pain de campagne',
      'Crème brûlée',
      'Thiéboudienne',
      'Organic apples',
    ]);
    expect(names(await search({ sort: 'newest' }))).toEqual([
      'Organic apples',
      'Thiéboudienne',
      'Crème brûlée',
      'Pain de campagne',
    ]);
    expect((await search({ sort: 'popularity' })).body.data).toHaveLength(4);
    const near = await search({ ...base, radiusKm: 2 });
    expect(names(near).sort()).toEqual(['Crème brûlée', 'Pain de campagne']);
    expect(near.body.data[0].distanceKm).toBeCloseTo(1, 1);
    const wide = await search({ ...base, radiusKm: 10, sort: 'price' });
    expect(names(wide)).toEqual(['Pain de campagne', 'Thiéboudienne', 'Crème brûlée', 'Organic apples']);
    expect(wide.body.data.every((p: { distanceKm: number }) => p.distanceKm > 0.9 && p.distanceKm < 4.1)).toBe(true);
    const byDistance = await search({ ...base, radiusKm: 10, limit: 3 });
    expect(byDistance.body.data.map((p: { distanceKm: number }) => Math.round(p.distanceKm))).toEqual([1, 1, 4]);
    expect(byDistance.body.meta).toMatchObject({ hasMore: true });
    const words = await search({ q: 'riz', ...base, radiusKm: 10 });
    expect(words.body.data).toEqual([
      expect.objectContaining({ name: 'Thiéboudienne', distanceKm: expect.closeTo(4, 1) }),
    ]);
  });

  it('lists what expires within 48 hours, soonest first, optionally near a point', async () => {
    const res = await call(t.app, 'GET', '/products/expiring-soon', { query: { ...base, radiusKm: 10 } });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Pain de campagne', 'Crème brûlée', 'Thiéboudienne']);
    expect(res.body.data[0].distanceKm).toBeCloseTo(1, 1);
    // Page by page: the pages the window fills and the last one, which it does not.
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const one = await call(t.app, 'GET', '/products/expiring-soon', {
        query: { ...base, radiusKm: 10, limit: 1, page },
      });
      expect(one.body.data[0]).toEqual(res.body.data[page - 1]);
      pages.push(one.body.meta.hasMore);
    }
    expect(pages).toEqual([true, true, false]);
    t.clock.advance(11 * HOUR);
    const later = await call(t.app, 'GET', '/products/expiring-soon', { query: { ...base, radiusKm: 10 } });
    // Expired products leave the list at once, without waiting for a job.
    expect(names(later)).toEqual(['Crème brûlée', 'Thiéboudienne']);
  });

  it('shows the first picture of each card, in every order and near a point', async () => {
    const id = made['Crème brûlée']!;
    const at = t.clock.now();
    await t.app.ctx.db.insert(productImages).values(
      [1, 0].map((position) => ({
        id: uuidv7(),
        productId: id,
        position,
        thumbnailKey: `products/${id}/p${position}-thumb.jpg`,
        largeKey: `products/${id}/p${position}-large.jpg`,
        createdAt: at,
      })),
    );
    t.app.ctx.listings.changed(['products.']);
    const point = kmNorth(0);
    for (const query of [
      { q: 'creme' },
      { sort: 'price' },
      { ...point, radiusKm: 3 },
      { ...point, radiusKm: 3, sort: 'expiry' },
    ]) {
      const card = (await search(query)).body.data.find((p: { id: string }) => p.id === id);
      expect(card?.thumbnailUrl, JSON.stringify(query)).toMatch(/p0-thumb\.jpg$/);
      expect(card?.storeName).toBe('Boutique Proche');
    }
  });

  it('refuses malformed queries naming the field', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/products/search', { sort: 'distance' }, 'query.sort'],
      ['/products/search', { sort: 'relevance' }, 'query.sort'],
      ['/products/search', { latitude: 10 }, 'query.longitude'],
      ['/products/search', { radiusKm: 3 }, 'query.radiusKm'],
      ['/products/search', { minPrice: 10, maxPrice: 5 }, 'query.maxPrice'],
      ['/products/search', { category: 'TOYS' }, 'query.category'],
      ['/products/search', { dietaryTags: 'VEGAN,KOSHERISH' }, 'query.dietaryTags'],
      ['/products/search', { dietaryTags: 'vegan;x' }, 'query.dietaryTags'],
      ['/products/search', { expiresBefore: 'tomorrow' }, 'query.expiresBefore'],
      ['/products/search', { q: 'pain', page: 11 }, 'query.page'],
      ['/products/expiring-soon', { longitude: 10 }, 'query.latitude'],
      ['/products/expiring-soon', { colour: 'red' }, 'query.colour'],
    ];
    for (const [url, query, field] of cases) {
      const res = await call(t.app, 'GET', url, { query: query as never });
      expect(res.status, `${url} ${JSON.stringify(query)}`).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(query),
      ).toContain(field);
    }
  });
});

describe('words found in more than the ranked candidates', () => {
  it('ranks the newest 201 matches and pages through them', async () => {
    const s = await supplierWithStore(t);
    const word = `mot${Math.random()
      .toString(36)
      .replace(/[^a-z]/g, '')
      .slice(0, 8)}`;
    const now = t.clock.now().toISOString();
    // 230 products with the word, one second apart (i = 1 the newest), inserted at once.
    const made =
      await t.app.ctx.db.execute(sql`insert into products (id, supplier_id, store_id, name, description, category, original_price, discounted_price,
        quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, status, location, search_document, created_at, updated_at)
      select gen_random_uuid(), ${s.profile.id}, ${s.store.id}, 'Lot ' || i, 'x', 'BAKERY', 1000, 500, 1, 500, ${now}::timestamptz + interval '1 day',
        '18:00', '20:00', 'ACTIVE', ll_to_earth(0, 0), ${word}, ${now}::timestamptz - i * interval '1 second', ${now}::timestamptz
      from generate_series(1, 230) i returning id, name`);
    const rowsMade = (made as unknown as { rows: { id: string; name: string }[] }).rows;
    // Equal ranks: by id among the newest 201.
    const newest = rowsMade
      .filter((r) => Number(r.name.slice(4)) <= 201)
      .map((r) => r.id)
      .sort();
    const page = async (n: number) =>
      (await call(t.app, 'GET', '/products/search', { query: { q: word, limit: 5, page: n } })).body;
    const [one, two] = [await page(1), await page(2)];
    expect(one.data.map((p: { id: string }) => p.id)).toEqual(newest.slice(0, 5));
    expect(two.data.map((p: { id: string }) => p.id)).toEqual(newest.slice(5, 10));
    expect(two.meta).toMatchObject({ page: 2, limit: 5, total: 200, hasMore: true });
    expect(two.data[0]).toMatchObject({ storeName: s.store.name, thumbnailUrl: null, distanceKm: null });
  });
});

describe('a card in step with its product, store and pictures', () => {
  it("shows the store's new name, the first picture left and the product's new price at once", async () => {
    const adm = await admin(t);
    const s = await supplierWithStore(t);
    const { id } = await publishProduct(t, s, adm.token, {
      name: 'Galette des rois',
      originalPrice: 3000,
      discountedPrice: 2000,
    });
    const card = async () => {
      const res = await call(t.app, 'GET', '/products/search', { query: { supplierId: s.profile.id } });
      expect(res.status).toBe(200);
      return res.body.data.find((p: { id: string }) => p.id === id);
    };
    expect(await card()).toMatchObject({ storeName: s.store.name, thumbnailUrl: null, discountPercent: 33 });

    const renamed = await call(t.app, 'PUT', `/supplier/stores/${s.store.id}`, {
      token: s.token,
      body: { name: 'Four du Port' },
    });
    expect(renamed.status).toBe(200);
    expect((await card()).storeName).toBe('Four du Port');

    const at = t.clock.now();
    const pictures = [0, 1].map((position) => ({
      id: uuidv7(),
      productId: id,
      position,
      thumbnailKey: `products/${id}/g${position}-thumb.jpg`,
      largeKey: `products/${id}/g${position}-large.jpg`,
      createdAt: at,
    }));
    await t.app.ctx.db.insert(productImages).values(pictures);
    t.app.ctx.listings.changed(['products.']);
    expect((await card()).thumbnailUrl).toMatch(/g0-thumb\.jpg$/);
    const removed = await call(t.app, 'DELETE', `/products/${id}/images`, {
      token: s.token,
      query: { imageId: pictures[0]!.id },
    });
    expect(removed.status).toBe(200);
    expect((await card()).thumbnailUrl).toMatch(/g1-thumb\.jpg$/);
    await call(t.app, 'DELETE', `/products/${id}/images`, { token: s.token, query: { imageId: pictures[1]!.id } });
    expect((await card()).thumbnailUrl).toBeNull();

    // A quick stock correction keeps the product listed; its card follows a new price through the review.
    expect(
      (await call(t.app, 'PATCH', `/products/${id}/stock`, { token: s.token, body: { quantity: 7 } })).status,
    ).toBe(200);
    const edited = await call(t.app, 'PUT', `/products/${id}`, { token: s.token, body: { discountedPrice: 1500 } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    if (edited.body.data.status !== 'ACTIVE')
      await call(t.app, 'PATCH', `/admin/products/${id}/approve`, { token: adm.token });
    expect(await card()).toMatchObject({
      id,
      name: 'Galette des rois',
      originalPrice: 3000,
      discountedPrice: 1500,
      discountPercent: 50,
      storeName: 'Four du Port',
    });
  });
});

describe('products near a point, page by page', () => {
  const base = { latitude: -20 - Math.random() * 10, longitude: 100 + Math.random() * 10 };
  const kmNorth = (km: number) => ({ latitude: base.latitude + km / 111.2, longitude: base.longitude });

  it('gives each product once, nearest first and by id at one place, every card whole', async () => {
    const adm = await admin(t);
    const [a, b] = [await supplierWithStore(t), await supplierWithStore(t)];
    const near = await createStore(t.app, a, { name: 'Near', ...kmNorth(0.2) });
    const busy = await createStore(t.app, b, { name: 'Busy', ...kmNorth(0.5) });
    const ids: Record<string, string[]> = { [near.id]: [], [busy.id]: [] };
    for (const [s, storeId, count] of [
      [a, near.id, 2],
      [b, busy.id, 9],
    ] as const) {
      for (let i = 0; i < count; i++)
        ids[storeId]!.push(
          (
            await publishProduct(t, { token: s.token, store: { id: storeId } }, adm.token, {
              name: `Lot ${i}`,
              storeId,
            })
          ).id,
        );
    }
    // Each page reads the rest of the place's products beyond it, whose cards it does not need.
    const seen: { id: string; storeName: string; distanceKm: number; name: string }[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await call(t.app, 'GET', '/products/search', { query: { ...base, radiusKm: 2, limit: 4, page } });
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
    }
    expect(seen.map((p) => p.id)).toEqual([...ids[near.id]!.sort(), ...ids[busy.id]!.sort()]);
    for (const p of seen)
      expect(p).toMatchObject({
        name: expect.stringMatching(/^Lot /),
        storeName: expect.stringMatching(/^(Near|Busy)$/),
        distanceKm: expect.any(Number),
      });
  }, 60_000);
});
