import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { createSignedIn, createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { platformSettings } from '../../db/schema/settings.js';
import { stores } from '../../db/schema/stores.js';
import { SETTINGS_TTL_MS } from './settings.service.js';

// Settings are global to a database: this suite changes them on a database of its own.
let db: PrivateDatabase;
let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
let superAdmin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
  superAdmin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
});
afterAll(async () => {
  await t.close();
  await db.drop();
});

const redis = Boolean(process.env.REDIS_URL);
const business = async (app = t.app, token = admin.token) =>
  (await call(app, 'GET', '/admin/settings/business', { token })).body.data;
const patch = (body: unknown, app = t.app, token = admin.token) =>
  call(app, 'PATCH', '/admin/settings', { token, body });
/** A value written behind the API, as another instance without Redis would leave it. */
const writeBehind = (key: string, value: number) =>
  t.app.ctx.db
    .insert(platformSettings)
    .values({ key, value, updatedBy: admin.user.id, updatedAt: t.clock.now() })
    .onConflictDoUpdate({ target: platformSettings.key, set: { value } });
/** Reads until `read` gives `expected`: Redis delivers to the other instances asynchronously. */
async function eventually<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && JSON.stringify(value) !== JSON.stringify(expected); i++) {
    await new Promise((r) => setTimeout(r, 20));
    value = await read();
  }
  return value;
}

describe('the default commission of new suppliers', () => {
  it('follows the business setting', async () => {
    const profile = {
      businessName: 'Teranga Bakery',
      address: '5 Rue Carnot',
      city: 'Dakar',
      latitude: 14.67,
      longitude: -17.44,
    };
    const create = async () => {
      const supplier = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
      const res = await call(t.app, 'POST', '/suppliers/profile', { token: supplier.token, body: profile });
      expect(res.status).toBe(201);
      return res.body.data.commissionRateBps;
    };
    expect(await create()).toBe(t.app.ctx.config.DEFAULT_COMMISSION_BPS);
    expect((await patch({ business: { defaultCommissionBps: 750 } })).status).toBe(200);
    expect(await create()).toBe(750);
    await patch({ business: { defaultCommissionBps: t.app.ctx.config.DEFAULT_COMMISSION_BPS } });
    expect(await create()).toBe(t.app.ctx.config.DEFAULT_COMMISSION_BPS);
  });
});

describe('the settings cache', () => {
  it('serves reads from memory and shows a change made behind it once its time is up', async () => {
    const before = await business();
    await writeBehind('business.paymentTimeoutMinutes', 42);
    // With a shared Redis another suite's change may drop the cache sooner: only the bound is sure.
    if (!redis) expect((await business()).paymentTimeoutMinutes).toBe(before.paymentTimeoutMinutes);
    t.clock.advance(60_000);
    expect((await business()).paymentTimeoutMinutes).toBe(42);
    await patch({ business: { paymentTimeoutMinutes: before.paymentTimeoutMinutes } });
    expect(await business()).toEqual(before);
  });
});

describe('invalidate-cache', () => {
  const spot = () => ({ latitude: -40 + Math.random() * 5, longitude: 100 + Math.random() * 5 });
  const nearbyIds = async (where: { latitude: number; longitude: number }) =>
    (await call(t.app, 'GET', '/stores/nearby', { query: { ...where, radiusKm: 2 } })).body.data.map(
      (s: { id: string }) => s.id,
    );

  it('drops the cached listings and settings on request of a super administrator', async () => {
    const where = spot();
    const supplier = await createSupplier(t.app);
    const store = await createStore(t.app, supplier, where);
    expect(await nearbyIds(where)).toEqual([store.id]);
    const before = await business();
    await t.app.ctx.db.update(stores).set({ isActive: false }).where(eq(stores.id, store.id));
    await writeBehind('business.minimumOrderAmount', 250);
    if (!redis) {
      expect(await nearbyIds(where)).toEqual([store.id]);
      expect((await business()).minimumOrderAmount).toBe(before.minimumOrderAmount);
    }

    const res = await call(t.app, 'POST', '/admin/settings/invalidate-cache', { token: superAdmin.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      caches: ['advertising.ads', 'dashboard', 'listings', 'notifications', 'settings'],
      allInstances: redis,
    });
    expect(await nearbyIds(where)).toEqual([]);
    expect((await business()).minimumOrderAmount).toBe(250);
    await patch({ business: { minimumOrderAmount: before.minimumOrderAmount } });
  });

  it('refuses a body', async () => {
    const res = await call(t.app, 'POST', '/admin/settings/invalidate-cache', {
      token: superAdmin.token,
      body: { caches: ['listings'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('body');
  });
});

describe('several instances on one database', () => {
  it('see a change made on another instance within the cache time, without Redis', async ({ skip }) => {
    skip(!process.env.DATABASE_URL, 'needs DATABASE_URL: the embedded database belongs to one instance');
    const [one, two] = [
      await buildTestApp({ ...db.env, REDIS_URL: '' }),
      await buildTestApp({ ...db.env, REDIS_URL: '' }),
    ];
    try {
      const before = await business(two.app);
      expect((await patch({ business: { escrowReleaseDelayHours: 72 } }, one.app)).status).toBe(200);
      expect((await business(one.app)).escrowReleaseDelayHours).toBe(72);
      expect((await business(two.app)).escrowReleaseDelayHours).toBe(before.escrowReleaseDelayHours);
      two.clock.advance(SETTINGS_TTL_MS);
      expect((await business(two.app)).escrowReleaseDelayHours).toBe(72);
      await patch({ business: { escrowReleaseDelayHours: before.escrowReleaseDelayHours } }, one.app);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('see a change made on another instance at once, with Redis', async ({ skip }) => {
    skip(
      !process.env.DATABASE_URL || !redis,
      'needs DATABASE_URL and REDIS_URL: two instances sharing a database and Redis',
    );
    const other = await buildTestApp(db.env);
    try {
      const before = await business(other.app);
      expect((await patch({ features: { reviewsRequirePurchase: false } })).status).toBe(200);
      const features = () =>
        call(other.app, 'GET', '/admin/settings/features', { token: admin.token }).then(
          (r) => r.body.data.reviewsRequirePurchase,
        );
      expect(await eventually(features, false)).toBe(false);
      expect((await patch({ business: { minimumOrderAmount: 1000 } }, other.app)).status).toBe(200);
      expect(await eventually(async () => (await business()).minimumOrderAmount, 1000)).toBe(1000);
      await patch({
        features: { reviewsRequirePurchase: true },
        business: { minimumOrderAmount: before.minimumOrderAmount },
      });
    } finally {
      await other.close();
    }
  });

  it('drop every cache on every instance on request, with Redis', async ({ skip }) => {
    skip(
      !process.env.DATABASE_URL || !redis,
      'needs DATABASE_URL and REDIS_URL: two instances sharing a database and Redis',
    );
    const other = await buildTestApp(db.env);
    try {
      const before = await business(other.app);
      await writeBehind('business.minimumOrderAmount', 777);
      expect((await call(t.app, 'POST', '/admin/settings/invalidate-cache', { token: superAdmin.token })).status).toBe(
        200,
      );
      expect(await eventually(async () => (await business(other.app)).minimumOrderAmount, 777)).toBe(777);
      await patch({ business: { minimumOrderAmount: before.minimumOrderAmount } });
    } finally {
      await other.close();
    }
  });
});
