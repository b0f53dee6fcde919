import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
// Stands in for the products module's count until it exists: products per supplier.
const products = new Map<string, number>();
beforeAll(async () => {
  t = await buildTestApp();
  t.app.services.subscriptions.registerProductCounter(async (_ex, supplierId) => products.get(supplierId) ?? 0);
});
afterAll(() => t.close());

const FREE = { code: 'FREE', maxProducts: 10, priceAmount: 0, currency: 'XOF', periodDays: null };

describe('product limit', () => {
  it('puts a supplier without a subscription on the FREE plan', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING' });
    const res = await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      allowed: true,
      maxProducts: 10,
      currentProducts: 0,
      remaining: 10,
      plan: {
        ...FREE,
        id: expect.any(String),
        name: 'Free',
        description: expect.any(String),
        commissionDiscountBps: 0,
        features: [],
        sortOrder: 0,
      },
      subscription: null,
    });
  });

  it("refuses once the plan's limit is reached", async () => {
    const s = await createSupplier(t.app);
    products.set(s.profile.id, 9);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toMatchObject({
      allowed: true,
      currentProducts: 9,
      remaining: 1,
    });
    products.set(s.profile.id, 10);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toMatchObject({
      allowed: false,
      currentProducts: 10,
      remaining: 0,
    });
  });

  it('needs a supplier profile and a supplier role', async () => {
    const bare = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const res = await call(t.app, 'GET', '/suppliers/can-create-products', { token: bare.token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUPPLIER_PROFILE_REQUIRED');
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: client.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products')).status).toBe(401);
  });
});

describe('changing plan', () => {
  it('switches between free plans and back', async () => {
    const s = await createSupplier(t.app);
    const plus = await createPlan(t.app, { maxProducts: 25, periodDays: 30 });
    products.set(s.profile.id, 12);

    const res = await call(t.app, 'POST', '/suppliers/subscription', {
      token: s.token,
      body: { planCode: plus.code.toLowerCase() },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      allowed: true,
      maxProducts: 25,
      currentProducts: 12,
      plan: { code: plus.code, maxProducts: 25 },
      subscription: { status: 'ACTIVE', startedAt: expect.any(String), endsAt: expect.any(String) },
    });
    const { startedAt, endsAt } = res.body.data.subscription;
    expect(new Date(endsAt).getTime() - new Date(startedAt).getTime()).toBe(30 * 86_400_000);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data.plan.code).toBe(
      plus.code,
    );

    // The same plan again changes nothing.
    const same = await call(t.app, 'POST', '/suppliers/subscription', {
      token: s.token,
      body: { planCode: plus.code },
    });
    expect(same.body.data.subscription).toEqual(res.body.data.subscription);

    // Back to FREE with more products than it allows: accepted, but no new product.
    const back = await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: { planCode: 'FREE' } });
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({
      allowed: false,
      maxProducts: 10,
      currentProducts: 12,
      remaining: 0,
      plan: FREE,
      subscription: { status: 'ACTIVE', endsAt: null },
    });
  });

  it('refuses paid, unknown and withdrawn plans and leaves the plan as it was', async () => {
    const s = await createSupplier(t.app);
    const paid = await createPlan(t.app, { priceAmount: 5000, periodDays: 30 });
    const withdrawn = await createPlan(t.app, { isActive: false });

    const res = await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: { planCode: paid.code } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('PAYMENT_REQUIRED');
    for (const planCode of [withdrawn.code, 'NO_SUCH_PLAN']) {
      const missing = await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: { planCode } });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    }
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toMatchObject({
      plan: { code: 'FREE' },
      subscription: null,
    });

    const bad = await call(t.app, 'POST', '/suppliers/subscription', {
      token: s.token,
      body: { planCode: 'free plan!', period: 'year' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['body.planCode', 'body.period']),
    );
    expect((await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: {} })).status).toBe(400);
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    expect(
      (await call(t.app, 'POST', '/suppliers/subscription', { token: client.token, body: { planCode: 'FREE' } }))
        .status,
    ).toBe(403);
    expect((await call(t.app, 'POST', '/suppliers/subscription', { body: { planCode: 'FREE' } })).status).toBe(401);
  });

  it('ends with the profile: a new profile starts on FREE', async () => {
    const s = await createSupplier(t.app);
    const plus = await createPlan(t.app, { maxProducts: 40 });
    expect(
      (await call(t.app, 'POST', '/suppliers/subscription', { token: s.token, body: { planCode: plus.code } })).status,
    ).toBe(200);
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(200);
    const body = {
      businessName: 'Second life',
      address: '1 Rue Neuve',
      city: 'Dakar',
      latitude: 14.7,
      longitude: -17.45,
    };
    expect((await call(t.app, 'POST', '/suppliers/profile', { token: s.token, body })).status).toBe(201);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toMatchObject({
      plan: { code: 'FREE' },
      subscription: null,
    });
  });
});

describe('statistics', () => {
  it('reports verification, KYC, commission, plan usage and stores', async () => {
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    products.set(s.profile.id, 3);

    const before = await call(t.app, 'GET', '/suppliers/statistics', { token: s.token });
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({
      supplierId: s.profile.id,
      verification: { status: 'PENDING', verifiedAt: null, rejectionReason: null, isPublic: false },
      kyc: { status: 'APPROVED' },
      commission: { rateBps: t.app.ctx.config.DEFAULT_COMMISSION_BPS },
      subscription: expect.objectContaining({ allowed: true, maxProducts: 10, currentProducts: 3, remaining: 7 }),
      stores: { total: 0, active: 0 },
      generatedAt: expect.any(String),
    });

    await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, { token: admin.token });
    await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/commission`, {
      token: admin.token,
      body: { commissionRateBps: 800 },
    });
    const after = await call(t.app, 'GET', '/suppliers/statistics', { token: s.token });
    expect(after.body.data).toMatchObject({
      verification: { status: 'VERIFIED', verifiedAt: expect.any(String), isPublic: true },
      commission: { rateBps: 800 },
    });
  });

  it('needs a profile and a supplier role', async () => {
    const bare = await createSignedIn(t.app, { role: 'SUPPLIER_DEALS' });
    expect((await call(t.app, 'GET', '/suppliers/statistics', { token: bare.token })).body.error.code).toBe(
      'SUPPLIER_PROFILE_REQUIRED',
    );
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    expect((await call(t.app, 'GET', '/suppliers/statistics', { token: admin.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/suppliers/statistics')).status).toBe(401);
  });
});
