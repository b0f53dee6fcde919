import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createStore } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { storeMembers } from '../../db/schema/staff.js';
import { uuidv7 } from '../../shared/ids.js';
import { EXPIRE_JOB } from './products.service.js';
import { admin, HOUR, productBody, publishProduct, supplierWithStore } from './products.test-support.js';

let t: TestApp;
let adminToken: string;
// Products listed here report orders in progress, as the orders module will.
const busy = new Set<string>();
beforeAll(async () => {
  // It switches platform settings: on PostgreSQL, a database of its own.
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  adminToken = (await admin(t)).token;
  t.app.ctx.workInProgress.register(async (_ex, scope) =>
    'productId' in scope && busy.has(scope.productId) ? '1 order in progress' : null,
  );
});
let db: PrivateDatabase;
afterAll(async () => {
  await t.close();
  await db.drop();
});

describe('POST /products', () => {
  it('creates a product waiting for review, with derived discount and default unit weight', async () => {
    const s = await supplierWithStore(t);
    const res = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      supplierId: s.profile.id,
      storeId: s.store.id,
      status: 'PENDING_REVIEW',
      discountPercent: 60,
      unitWeightGrams: 300,
      currency: 'XOF',
      images: [],
      sales: { unitsSold: 0, orders: 0, revenue: 0 },
      rating: { average: 0, count: 0 },
    });
    // Not public while pending.
    expect((await call(t.app, 'GET', `/products/${res.body.data.id}`)).status).toBe(404);
  });

  it('refuses bad input naming the field, never a 500', async () => {
    const s = await supplierWithStore(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ discountedPrice: 1500 }, 'body.discountedPrice'],
      [{ expiresAt: new Date(t.clock.now().getTime() - HOUR).toISOString() }, 'body.expiresAt'],
      [{ pickupStart: '20:00', pickupEnd: '18:00' }, 'body.pickupEnd'],
      [{ pickupStart: '25:00' }, 'body.pickupStart'],
      [{ category: 'FURNITURE' }, 'body.category'],
      [{ dietaryTags: ['CARNIVORE'] }, 'body.dietaryTags.0'],
      [{ originalPrice: 12.5 }, 'body.originalPrice'],
      [{ quantity: -1 }, 'body.quantity'],
      [{ storeId: 'nope' }, 'body.storeId'],
      [{ extra: 1 }, 'body.extra'],
    ];
    for (const [over, field] of cases) {
      const res = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id, over) });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(over),
      ).toContain(field);
    }
  });

  it("refuses another supplier's store (404), an inactive store (409) and non-suppliers (403)", async () => {
    const s = await supplierWithStore(t);
    const other = await supplierWithStore(t);
    expect(
      (await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, other.store.id) })).status,
    ).toBe(404);
    const closed = await createStore(t.app, s, { isActive: false });
    const inactive = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, closed.id) });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error.code).toBe('STORE_INACTIVE');
    const client = await createSignedIn(t.app);
    expect(
      (await call(t.app, 'POST', '/products', { token: client.token, body: productBody(t, s.store.id) })).status,
    ).toBe(403);
    expect((await call(t.app, 'POST', '/products', { body: productBody(t, s.store.id) })).status).toBe(401);
  });

  it('publishes at once when auto-approval is on and the supplier is verified, not otherwise', async () => {
    const flag = (on: boolean) =>
      call(t.app, 'PATCH', '/admin/settings', {
        token: adminToken,
        body: { features: { autoApproveVerifiedSupplierProducts: on } },
      });
    expect((await flag(true)).status).toBe(200);
    try {
      const verified = await supplierWithStore(t);
      const pending = await supplierWithStore(t, { verification: 'PENDING' });
      const a = await call(t.app, 'POST', '/products', {
        token: verified.token,
        body: productBody(t, verified.store.id),
      });
      const b = await call(t.app, 'POST', '/products', {
        token: pending.token,
        body: productBody(t, pending.store.id),
      });
      expect(a.body.data.status).toBe('ACTIVE');
      expect(a.body.data.publishedAt).not.toBeNull();
      expect(b.body.data.status).toBe('PENDING_REVIEW');
    } finally {
      await flag(false);
    }
  });

  it('stops at the plan limit with 403 PLAN_LIMIT_REACHED; concurrent creations at the last slot create exactly one', async () => {
    const s = await supplierWithStore(t);
    const plan = await createPlan(t.app, { maxProducts: 3 });
    expect(
      (await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: { planCode: plan.code } })).status,
    ).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(
        (await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) })).status,
      ).toBe(201);
    const race = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) }),
      ),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
    const refused = race.find((r) => r.status === 403)!;
    expect(refused.body.error.code).toBe('PLAN_LIMIT_REACHED');
    expect(refused.body.error.message).toContain('3');
    const limits = await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token });
    expect(limits.body.data).toMatchObject({ allowed: false, maxProducts: 3, currentProducts: 3, remaining: 0 });
    // A deleted product frees its slot.
    const mine = await call(t.app, 'GET', '/products/my-products', { token: s.token });
    expect((await call(t.app, 'DELETE', `/products/${mine.body.data[0].id}`, { token: s.token })).status).toBe(200);
    expect(
      (await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data.currentProducts,
    ).toBe(2);
  });
});

describe('PUT /products/:id', () => {
  it('lets the owner edit; price edits keep it ACTIVE, substantial edits send it back to review', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const price = await call(t.app, 'PUT', `/products/${p.id}`, {
      token: s.token,
      body: { discountedPrice: 500, quantity: 3 },
    });
    expect(price.status).toBe(200);
    expect(price.body.data).toMatchObject({ status: 'ACTIVE', discountedPrice: 500, quantity: 3, discountPercent: 66 });
    const renamed = await call(t.app, 'PUT', `/products/${p.id}`, {
      token: s.token,
      body: { name: 'Baguettes tradition' },
    });
    expect(renamed.body.data).toMatchObject({ status: 'PENDING_REVIEW', name: 'Baguettes tradition' });
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
  });

  it('keeps a substantially edited product ACTIVE when auto-approval applies', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const flag = (on: boolean) =>
      call(t.app, 'PATCH', '/admin/settings', {
        token: adminToken,
        body: { features: { autoApproveVerifiedSupplierProducts: on } },
      });
    await flag(true);
    try {
      const renamed = await call(t.app, 'PUT', `/products/${p.id}`, {
        token: s.token,
        body: { name: 'Pain complet', category: 'GROCERIES' },
      });
      expect(renamed.body.data).toMatchObject({ status: 'ACTIVE', name: 'Pain complet', category: 'GROCERIES' });
    } finally {
      await flag(false);
    }
    // Off again: an inactive product edited substantially goes to review before it can come back.
    await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: { status: 'INACTIVE' } });
    expect(
      (await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: { description: 'Nouveau' } })).body.data
        .status,
    ).toBe('PENDING_REVIEW');
  });

  it('sends a rejected product back to review on any edit, with the reason cleared', async () => {
    const s = await supplierWithStore(t);
    const created = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    const id = created.body.data.id;
    const rejected = await call(t.app, 'PATCH', `/admin/products/${id}/reject`, {
      token: adminToken,
      body: { reason: 'Photo missing' },
    });
    expect(rejected.body.data).toMatchObject({ status: 'REJECTED', rejectionReason: 'Photo missing' });
    const edited = await call(t.app, 'PUT', `/products/${id}`, { token: s.token, body: { quantity: 4 } });
    expect(edited.body.data).toMatchObject({ status: 'PENDING_REVIEW', rejectionReason: null });
  });

  it('deactivates and reactivates through status; refuses self-approval with 409', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    expect(
      (await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: { status: 'INACTIVE' } })).body.data
        .status,
    ).toBe('INACTIVE');
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    expect(
      (await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: { status: 'ACTIVE' } })).body.data.status,
    ).toBe('ACTIVE');
    const pending = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    const self = await call(t.app, 'PUT', `/products/${pending.body.data.id}`, {
      token: s.token,
      body: { status: 'ACTIVE' },
    });
    expect(self.status).toBe(409);
    expect(self.body.error.code).toBe('INVALID_TRANSITION');
  });

  it("answers 403 NOT_OWNER on another supplier's public product, 404 on a hidden one", async () => {
    const s = await supplierWithStore(t);
    const other = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const res = await call(t.app, 'PUT', `/products/${p.id}`, { token: other.token, body: { quantity: 1 } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('NOT_OWNER');
    const hidden = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    expect(
      (await call(t.app, 'PUT', `/products/${hidden.body.data.id}`, { token: other.token, body: { quantity: 1 } }))
        .status,
    ).toBe(404);
    expect((await call(t.app, 'PUT', `/products/${uuidv7()}`, { token: s.token, body: { quantity: 1 } })).status).toBe(
      404,
    );
    expect((await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: {} })).status).toBe(400);
  });

  it('lets store staff whose role manages products edit them, and refuses the others with 403', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const member = async (role: 'MANAGER' | 'STAFF') => {
      const u = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
      const at = t.clock.now();
      await t.app.ctx.db
        .insert(storeMembers)
        .values({ id: uuidv7(), storeId: s.store.id, userId: u.user.id, role, createdAt: at, updatedAt: at });
      return u;
    };
    const manager = await member('MANAGER');
    const staff = await member('STAFF');
    expect(
      (await call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: manager.token, body: { quantity: 7 } })).body.data
        .quantity,
    ).toBe(7);
    const refused = await call(t.app, 'PATCH', `/products/${p.id}/stock`, {
      token: staff.token,
      body: { quantity: 1 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });
});

describe('PATCH /products/:id/stock', () => {
  it('sets or corrects the stock, never below zero, and concurrent corrections all count', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken, { quantity: 10 });
    expect(
      (await call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: s.token, body: { delta: -3 } })).body.data
        .quantity,
    ).toBe(7);
    const below = await call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: s.token, body: { delta: -8 } });
    expect(below.status).toBe(409);
    expect(below.body.error.code).toBe('STOCK_BELOW_ZERO');
    const race = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: s.token, body: { delta: -1 } }),
      ),
    );
    expect(race.filter((r) => r.status === 200)).toHaveLength(7);
    expect(race.filter((r) => r.status === 409)).toHaveLength(3);
    expect(
      (await call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: s.token, body: { quantity: 5 } })).body.data
        .quantity,
    ).toBe(5);
    for (const body of [{}, { quantity: -1 }, { quantity: 1, delta: 1 }, { delta: 'x' }]) {
      expect(
        (await call(t.app, 'PATCH', `/products/${p.id}/stock`, { token: s.token, body })).status,
        JSON.stringify(body),
      ).toBe(400);
    }
  });
});

describe('DELETE /products/:id', () => {
  it('refuses with 409 PRODUCT_HAS_ACTIVE_ORDERS while orders are in progress, then deletes for good', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    busy.add(p.id);
    const refused = await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('PRODUCT_HAS_ACTIVE_ORDERS');
    busy.delete(p.id);
    expect((await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token })).status).toBe(200);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token })).status).toBe(404);
    const mine = await call(t.app, 'GET', '/products/my-products', { token: s.token });
    expect(mine.body.data.map((x: { id: string }) => x.id)).not.toContain(p.id);
    const other = await supplierWithStore(t);
    const q = await publishProduct(t, s, adminToken);
    expect((await call(t.app, 'DELETE', `/products/${q.id}`, { token: other.token })).body.error.code).toBe(
      'NOT_OWNER',
    );
  });
});

describe('stores', () => {
  it('counts products in the store statistics, and deletes them with the store', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    const stats = await call(t.app, 'GET', `/supplier/stores/${s.store.id}/statistics`, { token: s.token });
    expect(stats.body.data.products).toEqual({ total: 2, active: 1, pendingReview: 1 });
    expect((await call(t.app, 'DELETE', `/supplier/stores/${s.store.id}`, { token: s.token })).status).toBe(200);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/products/my-products', { token: s.token })).body.meta.total).toBe(0);
  });
});

describe('supplier deletion', () => {
  it("deletes the supplier's products with its profile", async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(200);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    const listed = await call(t.app, 'GET', '/admin/products', {
      token: adminToken,
      query: { supplierId: s.profile.id },
    });
    expect(listed.body.meta.total).toBe(0);
  });
});

describe('GET /products/my-products', () => {
  it('lists own products in every state, filtered by status and store', async () => {
    const s = await supplierWithStore(t);
    const second = await createStore(t.app, s);
    const active = await publishProduct(t, s, adminToken);
    const pending = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, second.id) });
    const all = await call(t.app, 'GET', '/products/my-products', { token: s.token });
    expect(all.body.meta.total).toBe(2);
    expect(all.body.data.map((x: { id: string }) => x.id).sort()).toEqual([active.id, pending.body.data.id].sort());
    const byStatus = await call(t.app, 'GET', '/products/my-products', {
      token: s.token,
      query: { status: 'PENDING_REVIEW' },
    });
    expect(byStatus.body.data.map((x: { id: string }) => x.id)).toEqual([pending.body.data.id]);
    const byStore = await call(t.app, 'GET', '/products/my-products', {
      token: s.token,
      query: { storeId: s.store.id },
    });
    expect(byStore.body.data.map((x: { id: string }) => x.id)).toEqual([active.id]);
    expect(
      (await call(t.app, 'GET', '/products/my-products', { token: s.token, query: { status: 'NOPE' } })).status,
    ).toBe(400);
  });

  it('shows EXPIRED after the expiry job, and the product leaves public view at the second it expires', async () => {
    const s = await supplierWithStore(t);
    // Ten minutes: the access tokens stay valid (15 minutes).
    const p = await publishProduct(t, s, adminToken, {
      expiresAt: new Date(t.clock.now().getTime() + 10 * 60_000).toISOString(),
    });
    t.clock.advance(9 * 60_000);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(200);
    t.clock.advance(60_000);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    // The scheduled job, run now.
    await t.app.ctx.jobs.send(EXPIRE_JOB, {});
    await t.app.jobs.drain();
    const mine = await call(t.app, 'GET', '/products/my-products', { token: s.token, query: { status: 'EXPIRED' } });
    expect(mine.body.data.map((x: { id: string }) => x.id)).toContain(p.id);
    // A later expiry sends it back to review.
    const renewed = await call(t.app, 'PUT', `/products/${p.id}`, {
      token: s.token,
      body: { expiresAt: new Date(t.clock.now().getTime() + 5 * HOUR).toISOString() },
    });
    expect(renewed.body.data.status).toBe('PENDING_REVIEW');
  });
});
