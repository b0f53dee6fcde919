import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { admin, productBody, publishProduct, supplierWithStore } from '../products/products.test-support.js';

let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

const inbox = async (token: string) => {
  await t.app.jobs.drain();
  const res = await call(t.app, 'GET', '/notifications', { token });
  expect(res.status).toBe(200);
  return res.body.data as { type: string; title: string; body: string; data: Record<string, unknown> }[];
};

describe('catalog notifications', () => {
  it('tells the supplier of each moderation decision, once', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken, { name: 'Pain de campagne' });
    const rejected = await call(t.app, 'POST', '/products', {
      token: s.token,
      body: productBody(t, s.store.id, { name: 'Tarte du jour' }),
    });
    const refuse = await call(t.app, 'PATCH', `/admin/products/${rejected.body.data.id}/reject`, {
      token: adminToken,
      body: { reason: 'Photo floue' },
    });
    expect(refuse.status).toBe(200);
    const mine = await inbox(s.token);
    expect(mine.filter((n) => n.type === 'product_approved')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ productId: p.id, productName: 'Pain de campagne' }) }),
    ]);
    const refusal = mine.filter((n) => n.type === 'product_rejected');
    expect(refusal).toHaveLength(1);
    expect(refusal[0]!.body).toContain('Photo floue');
    // Running the queue again does not repeat them.
    expect(await inbox(s.token)).toHaveLength(mine.length);
  });

  it("tells a store's followers of its new products, and no one else", async () => {
    const s = await supplierWithStore(t);
    const follower = await createSignedIn(t.app);
    const stranger = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/stores/${s.store.id}/follow`, { token: follower.token })).status).toBe(200);
    const p = await publishProduct(t, s, adminToken, { name: 'Yaourts nature' });
    const told = (await inbox(follower.token)).filter((n) => n.type === 'followed_store_new_product');
    expect(told).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ productId: p.id, storeId: s.store.id }) }),
    ]);
    expect(told[0]!.title).toContain(s.store.name);
    expect((await inbox(stranger.token)).filter((n) => n.type === 'followed_store_new_product')).toEqual([]);
  });
});
