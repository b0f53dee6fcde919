import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMultipart, validParts } from '../src/modules/kyc/kyc.test-support.js';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, DEFAULT_PASSWORD } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// A spot no other suite uses, so nearby answers contain only this test's store.
const where = { latitude: -33.9 + Math.random() * 0.5, longitude: 18.4 + Math.random() * 0.5 };

describe('a supplier from sign-up to public listing', () => {
  it('is hidden until KYC and verification, then public, then hidden again when suspended or deleted', async () => {
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const supplier = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const tag = `Journey${uuidv7().slice(-8)}`;

    const profile = await call(t.app, 'POST', '/suppliers/profile', {
      token: supplier.token,
      body: {
        businessName: `Boulangerie ${tag}`,
        address: '1 Main Road',
        city: 'Cape Town',
        ...where,
        openingHours: { '1': ['08:00-18:00'] },
        timezone: 'Africa/Johannesburg',
      },
    });
    expect(profile.status).toBe(201);
    const supplierId: string = profile.body.data.id;
    expect(profile.body.data.verificationStatus).toBe('PENDING');

    const store = await call(t.app, 'POST', '/supplier/stores', {
      token: supplier.token,
      body: { name: `Store ${tag}`, address: '1 Main Road', city: 'Cape Town', ...where },
    });
    expect(store.status).toBe(201);
    const storeId: string = store.body.data.id;

    const isPublic = async () => {
      const one = await call(t.app, 'GET', `/stores/${storeId}`);
      const near = await call(t.app, 'GET', '/stores/nearby', { query: { ...where, radiusKm: 1 } });
      const sup = await call(t.app, 'GET', `/suppliers/${supplierId}`);
      const listed = near.body.data.some((s: { id: string }) => s.id === storeId);
      expect(one.status === 200).toBe(listed);
      expect(sup.status === 200).toBe(listed);
      return listed;
    };
    expect(await isPublic()).toBe(false);

    const early = await call(t.app, 'PATCH', `/admin/suppliers/${supplierId}/verify`, { token: admin.token });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('KYC_NOT_APPROVED');

    const kyc = await postMultipart(t.app, '/suppliers/profile/kyc', supplier.token, await validParts());
    expect(kyc.status).toBe(201);
    expect(
      (await call(t.app, 'POST', `/admin/suppliers/${supplierId}/kyc/verify`, { token: admin.token })).status,
    ).toBe(200);
    const verified = await call(t.app, 'PATCH', `/admin/suppliers/${supplierId}/verify`, { token: admin.token });
    expect(verified.status).toBe(200);
    expect(await isPublic()).toBe(true);

    const stats = await call(t.app, 'GET', '/suppliers/statistics', { token: supplier.token });
    expect(stats.body.data.stores).toEqual({ total: 1, active: 1 });
    expect(stats.body.data.kyc.status).toBe('APPROVED');
    expect(stats.body.data.verification.isPublic).toBe(true);

    await call(t.app, 'PATCH', `/admin/users/${supplier.user.id}/status`, {
      token: admin.token,
      body: { status: 'SUSPENDED' },
    });
    expect(await isPublic()).toBe(false);
    await call(t.app, 'PATCH', `/admin/users/${supplier.user.id}/status`, {
      token: admin.token,
      body: { status: 'ACTIVE' },
    });
    expect(await isPublic()).toBe(true);

    const relogin = await createSignedInAgain(supplier.user.phoneNumber!);
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: relogin })).status).toBe(200);
    expect(await isPublic()).toBe(false);
    expect((await call(t.app, 'GET', '/supplier/stores', { token: relogin })).status).toBe(404);
  });
});

async function createSignedInAgain(phoneNumber: string): Promise<string> {
  const res = await call(t.app, 'POST', '/auth/login', { body: { phoneNumber, password: DEFAULT_PASSWORD } });
  return res.body.data.accessToken;
}
