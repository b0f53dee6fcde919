import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productImages } from '../../db/schema/products.js';
import { JsonItems, OkListing } from '../../listings/index.js';
import { uuidv7 } from '../../shared/ids.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import * as arb from '../../../test/helpers/json-sql.js';
import { PRODUCT_CATEGORIES } from '../products/product-catalog.js';
import { findProduct, insertProduct } from '../products/products.repository.js';
import { searchProducts } from './product-search.repository.js';
import { ProductCardSchema } from './product-search.schemas.js';

// The product card as PostgreSQL writes it (the stored `products.card` and product-search.json-sql.ts)
// against the card's TypeScript view (the favourites' card, with the distance), and the lists' answers.

let t: TestApp;
let supplier: Awaited<ReturnType<typeof createSupplier>>;
beforeAll(async () => {
  t = await buildTestApp();
  supplier = await createSupplier(t.app);
});
afterAll(() => t.close());

const HOUR = 3_600_000;
// The largest price the API accepts (products.schemas.ts).
const MAX_STORED_PRICE = 100_000_000;
const card = fc.record({
  storeName: arb.text(1, 60),
  store: fc.record({ latitude: arb.latitude, longitude: arb.longitude }),
  from: fc.record({ latitude: arb.latitude, longitude: arb.longitude }),
  name: arb.text(1, 120),
  category: fc.constantFrom(...PRODUCT_CATEGORIES),
  originalPrice: fc.oneof(fc.constantFrom(1, MAX_STORED_PRICE), fc.integer({ min: 1, max: MAX_STORED_PRICE })),
  discount: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  currency: fc.constantFrom('XOF', 'EUR', 'USD'),
  expiresIn: fc.integer({ min: HOUR, max: 1_000_000 * HOUR }),
  thumbnail: fc.option(arb.fileKey),
});
type Card = typeof card extends fc.Arbitrary<infer C> ? C : never;

async function writeCard(c: Card) {
  const now = t.clock.now();
  const store = await createStore(t.app, supplier, { name: c.storeName, ...c.store });
  const product = await insertProduct(
    t.app.ctx.db,
    {
      id: uuidv7(),
      supplierId: supplier.profile.id,
      storeId: store.id,
      name: c.name,
      category: c.category,
      originalPrice: c.originalPrice,
      discountedPrice: Math.floor(c.originalPrice * c.discount),
      currency: c.currency,
      quantity: 1,
      unitWeightGrams: 100,
      expiresAt: new Date(now.getTime() + c.expiresIn),
      pickupStart: '18:00',
      pickupEnd: '20:00',
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    },
    store,
  );
  if (c.thumbnail)
    await t.app.ctx.db.insert(productImages).values({
      id: uuidv7(),
      productId: product.id,
      position: 0,
      thumbnailKey: c.thumbnail,
      largeKey: `large-${c.thumbnail}`,
      createdAt: now,
    });
  return { store, product };
}

describe('The product card PostgreSQL writes', () => {
  it('is the card the TypeScript view makes of its row, and matches ProductCardSchema', async () => {
    const files = t.app.ctx.links.publicPrefix;
    await arb.checkRows(card, async (c) => {
      const { store, product } = await writeCard(c);
      const point = { ...c.from, radiusM: 50_000_000 };
      const found = await searchProducts(
        t.app.ctx.db,
        { terms: null, storeId: store.id, point, sort: 'distance' },
        t.clock.now(),
        { page: 1, limit: 20 },
        files,
      );
      const items = found.items instanceof JsonItems ? found.items : JsonItems.of(found.items);
      const [written, ...more] = items.toJSON();
      expect(more).toEqual([]);
      const p = (await findProduct(t.app.ctx.db, product.id))!;
      expect(written).toStrictEqual({
        id: p.id,
        name: p.name,
        originalPrice: p.originalPrice,
        discountedPrice: p.discountedPrice,
        discountPercent: p.discountPercent,
        currency: p.currency,
        expiresAt: p.expiresAt.toISOString(),
        storeId: p.storeId,
        storeName: store.name,
        thumbnailUrl: c.thumbnail ? t.app.ctx.links.publicUrl(c.thumbnail) : null,
        distanceKm: arb.distanceKm(store, c.from),
      });
      arb.expectSchema(ProductCardSchema, written, 'product card');
    });
  });

  it('answers the three product lists as their response schema says', async () => {
    const [c] = fc.sample(card, { seed: arb.SEED, numRuns: 1 });
    const { store } = await writeCard({ ...c!, expiresIn: HOUR });
    t.app.ctx.listings.changed(['products.']);
    const near = { latitude: store.latitude, longitude: store.longitude, radiusKm: 1 };
    for (const [url, query] of [
      ['/products/search', { storeId: store.id, ...near }],
      ['/products/expiring-soon', near],
      ['/products/trending', near],
    ] as const) {
      const res = await call(t.app, 'GET', url, { query });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.length, url).toBeGreaterThan(0);
      arb.expectSchema(OkListing(ProductCardSchema), res.body, `GET ${url}`);
    }
  });
});
