import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productImages } from '../src/db/schema/products.js';
import { admin, publishProduct } from '../src/modules/products/products.test-support.js';
import { uuidv7 } from '../src/shared/ids.js';
import { compactJson } from '../src/listings/index.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createStore, createSupplier } from './helpers/factories.js';
import { addressOf } from './helpers/http.js';

// Answers whose JSON the database writes (the product page, product cards, nearby stores and suppliers)
// are written as every other answer is: compact, with no space between tokens.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const raw = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, remoteAddress: addressOf(t.app) });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

describe('JSON written by the database', () => {
  it('is compact on the product page, the product lists and the nearby lists, strings untouched', async () => {
    const p = { latitude: -20 + randomInt(4000) / 100, longitude: 60 + randomInt(2000) / 100 };
    // Text that looks like JSON's separators inside strings must stay as it is.
    const tricky = 'Pain : "levain", {miche}, \\ fin';
    const supplier = await createSupplier(t.app, { ...p, businessName: `Boulangerie ${tricky}` });
    const store = await createStore(t.app, supplier, {
      ...p,
      name: `Boutique ${tricky}`,
      openingHours: { '1': ['08:00-12:00', '14:00-18:00'] },
    });
    const product = await publishProduct(t, { ...supplier, store }, (await admin(t)).token, {
      name: 'Miche',
      description: tricky,
    });
    await t.app.ctx.db.insert(productImages).values({
      id: uuidv7(),
      productId: product.id,
      position: 0,
      thumbnailKey: 'a-thumb.jpg',
      largeKey: 'a-large.jpg',
      createdAt: t.clock.now(),
    });
    t.app.ctx.listings.changed(['products.']);
    const near = `latitude=${p.latitude}&longitude=${p.longitude}&radiusKm=2`;
    const bodies = [
      await raw(`/products/${product.id}`),
      await raw(`/products/search?${near}`),
      await raw(`/products/search?supplierId=${supplier.profile.id}`),
      await raw(`/products/expiring-soon?${near}`),
      await raw(`/products/trending?${near}`),
      await raw(`/stores/nearby?${near}`),
      await raw(`/suppliers/nearby?${near}`),
    ];
    for (const body of bodies) {
      expect(body).not.toContain('" : ');
      expect(body).toBe(JSON.stringify(JSON.parse(body)));
      expect(body).toContain(JSON.stringify(tricky).slice(1, -1));
    }
    expect(JSON.parse(bodies[0]!).data).toMatchObject({
      description: tricky,
      store: { name: `Boutique ${tricky}` },
      images: [{ position: 0 }],
    });
  });

  it('compacts any JSON text to what JSON.stringify writes', () => {
    const texts = [
      '{"a" : 1, "b" : "x : y, z", "c" : [1, 2], "d" : "q\\"u : o", "e" : "back\\\\", "f" : {"g" : null}}',
      '[{"v":1}, \n {"v":2}]',
      '{"a": 1, "b": "x"}',
      '{"a" : "\\n\\t x"}',
    ];
    for (const text of texts) expect(compactJson(text)).toBe(JSON.stringify(JSON.parse(text)));
  });
});
