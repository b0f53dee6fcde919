import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stores } from '../../db/schema/stores.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const storeBody = (over: Record<string, unknown> = {}) => ({
  name: `Boulangerie ${uuidv7().slice(-6)}`,
  description: 'Pain et viennoiseries du jour à prix réduit',
  address: '12 Rue Mohamed V',
  city: 'Dakar',
  latitude: 14.6708,
  longitude: -17.4381,
  phone: '+221 77 123 45 67',
  openingHours: { '1': ['15:00-20:00', '08:00-13:00'], '6': ['09:00-14:00'] },
  timezone: 'Africa/Dakar',
  pickupInstructions: 'Ask at the counter',
  ...over,
});

/** A fresh access token: moving the clock past 15 minutes expires the earlier ones. */
const tokenFor = async (user: { id: string }) => {
  const account = (await t.app.services.users.findById(user.id))!;
  return (await t.app.services.auth.signIn(account, {})).accessToken;
};

/** Every change only the store's owner may make. */
const ownerChanges = (storeId: string) =>
  [
    ['PUT', `/supplier/stores/${storeId}`, { name: 'Mine now' }],
    ['DELETE', `/supplier/stores/${storeId}`, undefined],
    ['POST', `/supplier/stores/${storeId}/toggle-active`, undefined],
    [
      'POST',
      `/supplier/stores/${storeId}/temporary-closure`,
      { endsAt: new Date(t.clock.now().getTime() + DAY).toISOString() },
    ],
  ] as const;

const fields = (res: { body: any }) => (res.body.error.details ?? []).map((d: { field: string }) => d.field);

describe('creating and reading stores', () => {
  it('creates a store for the signed-in supplier and shows it publicly and to its owner', async () => {
    const sup = await createSupplier(t.app);
    const body = storeBody();
    const res = await call(t.app, 'POST', '/supplier/stores', { token: sup.token, body });
    expect(res.status).toBe(201);
    const store = res.body.data;
    expect(store).toMatchObject({
      id: expect.any(String),
      supplierId: sup.profile.id,
      name: body.name,
      city: 'Dakar',
      latitude: 14.6708,
      longitude: -17.4381,
      phone: '+221771234567',
      // Ranges are stored sorted.
      openingHours: { '1': ['08:00-13:00', '15:00-20:00'], '6': ['09:00-14:00'] },
      timezone: 'Africa/Dakar',
      pickupInstructions: 'Ask at the counter',
      isActive: true,
      closure: null,
      isOpenNow: expect.any(Boolean),
    });

    const pub = await call(t.app, 'GET', `/stores/${store.id}`);
    expect(pub.status).toBe(200);
    expect(pub.body.data).toEqual(store);

    const own = await call(t.app, 'GET', '/supplier/stores', { token: sup.token });
    expect(own.status).toBe(200);
    expect(own.body.data.map((s: { id: string }) => s.id)).toEqual([store.id]);
    expect(own.body.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
  });

  it('applies defaults: Africa/Dakar, no hours (so never open), no phone', async () => {
    const sup = await createSupplier(t.app);
    const res = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: { name: 'Marché Kermel', address: 'Place Kermel', city: 'Dakar', latitude: 14.67, longitude: -17.43 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      timezone: 'Africa/Dakar',
      openingHours: {},
      phone: null,
      description: '',
      isOpenNow: false,
    });
  });

  it('refuses without a token, for a non-supplier role, and for a supplier without a profile', async () => {
    expect((await call(t.app, 'POST', '/supplier/stores', { body: storeBody() })).status).toBe(401);
    const client = await createSignedIn(t.app);
    const wrongRole = await call(t.app, 'POST', '/supplier/stores', { token: client.token, body: storeBody() });
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.body.error.code).toBe('FORBIDDEN');
    const noProfile = await createSignedIn(t.app, { role: 'SUPPLIER_DEALS' });
    const res = await call(t.app, 'POST', '/supplier/stores', { token: noProfile.token, body: storeBody() });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUPPLIER_PROFILE_REQUIRED');
    expect((await call(t.app, 'GET', '/supplier/stores', { token: noProfile.token })).status).toBe(404);
  });

  it('rejects bad coordinates, phone, time zone and unknown fields field by field', async () => {
    const sup = await createSupplier(t.app);
    const res = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody({ latitude: 91, longitude: -180.5, phone: '12345', color: 'red', name: '' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(fields(res)).toEqual(
      expect.arrayContaining(['body.latitude', 'body.longitude', 'body.phone', 'body.color', 'body.name']),
    );

    const tz = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody({ timezone: 'Mars/Olympus_Mons' }),
    });
    expect(tz.status).toBe(400);
    expect(fields(tz)).toEqual(['body.timezone']);

    const text = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody({ latitude: 'north' }),
    });
    expect(fields(text)).toEqual(['body.latitude']);
    const own = await call(t.app, 'GET', '/supplier/stores', { token: sup.token });
    expect(own.body.meta.total).toBe(0);
  });

  it('rejects opening hours that are malformed, reversed, overlapping or on an unknown day', async () => {
    const sup = await createSupplier(t.app);
    const shape = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody({
        openingHours: { '1': ['8:00-12:00'], '2': ['08:00-25:00'], '7': ['08:00-12:00'], '3': 'all day' },
      }),
    });
    expect(shape.status).toBe(400);
    expect(fields(shape)).toEqual(
      expect.arrayContaining([
        'body.openingHours.1.0',
        'body.openingHours.2.0',
        'body.openingHours.7',
        'body.openingHours.3',
      ]),
    );

    const sense = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody({
        openingHours: { '1': ['20:00-08:00'], '2': ['08:00-12:00', '11:00-14:00'], '3': ['08:00-24:00'] },
      }),
    });
    expect(sense.status).toBe(400);
    expect(sense.body.error.details).toEqual([
      { field: 'body.openingHours.1.0', message: expect.stringContaining('must end after it starts') },
      { field: 'body.openingHours.2', message: expect.stringContaining('overlap') },
    ]);
  });

  it('answers 404 for an unknown store and 400 for a malformed id', async () => {
    expect((await call(t.app, 'GET', `/stores/${uuidv7()}`)).body.error.code).toBe('NOT_FOUND');
    const bad = await call(t.app, 'GET', '/stores/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['params.storeId']);
  });
});

describe('public visibility', () => {
  it('shows only active stores of verified, live suppliers; the owner sees all of his', async () => {
    const pending = await createSupplier(t.app, { verification: 'PENDING' });
    const hidden = await createStore(t.app, pending);
    expect((await call(t.app, 'GET', `/stores/${hidden.id}`)).status).toBe(404);
    const search = await call(t.app, 'GET', '/stores', { query: { supplierId: pending.profile.id } });
    expect(search.body.data).toEqual([]);
    const own = await call(t.app, 'GET', '/supplier/stores', { token: pending.token });
    expect(own.body.data.map((s: { id: string }) => s.id)).toEqual([hidden.id]);

    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(200);
    await t.app.ctx.db
      .update(supplierProfiles)
      .set({ deletedAt: t.clock.now() })
      .where(eq(supplierProfiles.id, sup.profile.id));
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(404);
  });

  it("lists any live supplier's stores to administrators, pending suppliers and inactive stores included", async () => {
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const pending = await createSupplier(t.app, { verification: 'PENDING' });
    const active = await createStore(t.app, pending);
    t.clock.advance(1000);
    const inactive = await createStore(t.app, pending, { isActive: false });
    const gone = await createStore(t.app, pending, { deletedAt: t.clock.now() });
    const url = `/admin/suppliers/${pending.profile.id}/stores`;
    const all = await call(t.app, 'GET', url, { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((s: { id: string }) => s.id)).toEqual([inactive.id, active.id]);
    expect(all.body.data.map((s: { id: string }) => s.id)).not.toContain(gone.id);
    expect(all.body.meta).toMatchObject({ total: 2 });
    const onlyActive = await call(t.app, 'GET', url, { token: admin.token, query: { isActive: true } });
    expect(onlyActive.body.data.map((s: { id: string }) => s.id)).toEqual([active.id]);

    expect((await call(t.app, 'GET', `/admin/suppliers/${uuidv7()}/stores`, { token: admin.token })).status).toBe(404);
    expect((await call(t.app, 'GET', url, { token: pending.token })).status).toBe(403);
  });

  it('toggles a store off and on; an inactive store is hidden and takes no orders', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const off = await call(t.app, 'POST', `/supplier/stores/${store.id}/toggle-active`, { token: sup.token });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ isActive: false, isOpenNow: false });
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(404);
    const own = await call(t.app, 'GET', '/supplier/stores', { token: sup.token, query: { isActive: false } });
    expect(own.body.data.map((s: { id: string }) => s.id)).toEqual([store.id]);
    await expect(t.app.services.stores.assertAcceptingOrders(t.app.ctx.db, store.id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'STORE_INACTIVE',
    });

    const on = await call(t.app, 'POST', `/supplier/stores/${store.id}/toggle-active`, { token: sup.token });
    expect(on.body.data).toMatchObject({ isActive: true, isOpenNow: true });
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(200);
    await expect(t.app.services.stores.assertAcceptingOrders(t.app.ctx.db, store.id)).resolves.toMatchObject({
      id: store.id,
    });
  });
});

describe('changing a store', () => {
  it('updates only the given fields and clears nullable ones with null', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup, { phone: '+221771112233', pickupInstructions: 'Back door' });
    const res = await call(t.app, 'PUT', `/supplier/stores/${store.id}`, {
      token: sup.token,
      body: {
        name: 'Nouvelle Boulangerie',
        latitude: 14.7,
        phone: null,
        pickupInstructions: null,
        openingHours: { '0': ['10:00-12:00'] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Nouvelle Boulangerie',
      latitude: 14.7,
      longitude: store.longitude,
      city: store.city,
      phone: null,
      pickupInstructions: null,
      openingHours: { '0': ['10:00-12:00'] },
    });
    expect(new Date(res.body.data.updatedAt).getTime()).toBeGreaterThanOrEqual(store.updatedAt.getTime());
  });

  it('refuses empty bodies, unknown fields and bad values without changing anything', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const empty = await call(t.app, 'PUT', `/supplier/stores/${store.id}`, { token: sup.token, body: {} });
    expect(empty.status).toBe(400);
    const unknown = await call(t.app, 'PUT', `/supplier/stores/${store.id}`, {
      token: sup.token,
      body: { name: 'X', isActive: false },
    });
    expect(fields(unknown)).toEqual(['body.isActive']);
    const hours = await call(t.app, 'PUT', `/supplier/stores/${store.id}`, {
      token: sup.token,
      body: { name: 'X', openingHours: { '5': ['12:00-12:00'] } },
    });
    expect(fields(hours)).toEqual(['body.openingHours.5.0']);
    const after = await call(t.app, 'GET', `/stores/${store.id}`);
    expect(after.body.data.name).toBe(store.name);
  });

  it("refuses another supplier's changes with 403 NOT_OWNER and hides its reads with 404", async () => {
    const owner = await createSupplier(t.app);
    const other = await createSupplier(t.app);
    const store = await createStore(t.app, owner);
    for (const [method, url, body] of ownerChanges(store.id)) {
      const res = await call(t.app, method, url, { token: other.token, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe('NOT_OWNER');
    }
    const stats = await call(t.app, 'GET', `/supplier/stores/${store.id}/statistics`, { token: other.token });
    expect(stats.status).toBe(404);
    const own = await call(t.app, 'GET', '/supplier/stores', { token: other.token });
    expect(own.body.data).toEqual([]);
    const still = await call(t.app, 'GET', `/stores/${store.id}`);
    expect(still.body.data).toMatchObject({ name: store.name, isActive: true, closure: null });
  });

  it("answers 404, not 403, to changes of another supplier's store the public cannot see", async () => {
    const other = await createSupplier(t.app);
    const inactiveOwner = await createSupplier(t.app);
    const inactive = await createStore(t.app, inactiveOwner, { isActive: false });
    const unverifiedOwner = await createSupplier(t.app, { verification: 'PENDING' });
    const unverified = await createStore(t.app, unverifiedOwner);
    for (const store of [inactive, unverified]) {
      for (const [method, url, body] of ownerChanges(store.id)) {
        const res = await call(t.app, method, url, { token: other.token, body });
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
    const own = await call(t.app, 'GET', '/supplier/stores', { token: inactiveOwner.token });
    expect(own.body.data[0]).toMatchObject({ id: inactive.id, name: inactive.name, isActive: false, closure: null });
    const ownUnverified = await call(t.app, 'GET', '/supplier/stores', { token: unverifiedOwner.token });
    expect(ownUnverified.body.data[0]).toMatchObject({ id: unverified.id, name: unverified.name, isActive: true });
  });

  it('answers 404 when changing a store that does not exist', async () => {
    const sup = await createSupplier(t.app);
    const res = await call(t.app, 'PUT', `/supplier/stores/${uuidv7()}`, { token: sup.token, body: { name: 'Ghost' } });
    expect(res.status).toBe(404);
  });
});

describe('temporary closure', () => {
  it('closes the store now: shown closed, refuses orders; clearing reopens it', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const endsAt = new Date(t.clock.now().getTime() + 2 * DAY).toISOString();
    const res = await call(t.app, 'POST', `/supplier/stores/${store.id}/temporary-closure`, {
      token: sup.token,
      body: { endsAt, reason: 'Inventory' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.isOpenNow).toBe(false);
    expect(res.body.data.closure).toEqual({
      startsAt: expect.any(String),
      endsAt,
      reason: 'Inventory',
      inEffect: true,
    });
    const pub = await call(t.app, 'GET', `/stores/${store.id}`);
    expect(pub.body.data).toMatchObject({ isOpenNow: false, closure: { inEffect: true, reason: 'Inventory' } });
    await expect(t.app.services.stores.assertAcceptingOrders(t.app.ctx.db, store.id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'STORE_CLOSED',
    });

    const cleared = await call(t.app, 'POST', `/supplier/stores/${store.id}/temporary-closure`, {
      token: sup.token,
      body: { clear: true },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ closure: null, isOpenNow: true });
    await expect(t.app.services.stores.assertAcceptingOrders(t.app.ctx.db, store.id)).resolves.toMatchObject({
      id: store.id,
    });
  });

  it('schedules a closure that takes effect when its start comes and ends by itself', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const start = t.clock.now().getTime() + DAY;
    const res = await call(t.app, 'POST', `/supplier/stores/${store.id}/temporary-closure`, {
      token: sup.token,
      body: { startsAt: new Date(start).toISOString(), endsAt: new Date(start + DAY).toISOString() },
    });
    expect(res.body.data).toMatchObject({ isOpenNow: true, closure: { inEffect: false, reason: null } });
    t.clock.advance(DAY + HOUR);
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).body.data).toMatchObject({
      isOpenNow: false,
      closure: { inEffect: true },
    });
    t.clock.advance(DAY);
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).body.data).toMatchObject({
      isOpenNow: true,
      closure: null,
    });
  });

  it('refuses closures that end before they start, are already over, lack an end or mix in clear', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const now = t.clock.now().getTime();
    const url = `/supplier/stores/${store.id}/temporary-closure`;
    const cases: [Record<string, unknown> | undefined, string][] = [
      [{ startsAt: new Date(now + 2 * DAY).toISOString(), endsAt: new Date(now + DAY).toISOString() }, 'body.endsAt'],
      [{ startsAt: new Date(now - 2 * DAY).toISOString(), endsAt: new Date(now - DAY).toISOString() }, 'body.endsAt'],
      [{ reason: 'No end' }, 'body.endsAt'],
      [{ clear: true, endsAt: new Date(now + DAY).toISOString() }, 'body.endsAt'],
      [{ endsAt: 'tomorrow' }, 'body.endsAt'],
      [{ endsAt: new Date(now + DAY).toISOString(), until: 'x' }, 'body.until'],
      [{ endsAt: new Date(now + 400 * DAY).toISOString() }, 'body.endsAt'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', url, { token: sup.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fields(res)).toEqual([field]);
    }
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).body.data.closure).toBeNull();
  });
});

describe('deleting a store', () => {
  it('soft-deletes: gone from public and owner lists, still in the database', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    const res = await call(t.app, 'DELETE', `/supplier/stores/${store.id}`, { token: sup.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Store deleted' });
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/supplier/stores', { token: sup.token })).body.data).toEqual([]);
    expect((await call(t.app, 'DELETE', `/supplier/stores/${store.id}`, { token: sup.token })).status).toBe(404);
    expect(await t.app.services.stores.countBySupplier(t.app.ctx.db, sup.profile.id)).toEqual({ total: 0, active: 0 });
    const [row] = await t.app.ctx.db.select().from(stores).where(eq(stores.id, store.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
  });

  it('refuses while another module reports work in progress on the store', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    t.app.ctx.workInProgress.register(async (_ex, scope) =>
      'storeId' in scope && scope.storeId === store.id ? '2 orders in progress' : null,
    );
    const res = await call(t.app, 'DELETE', `/supplier/stores/${store.id}`, { token: sup.token });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'HAS_WORK_IN_PROGRESS',
      message: expect.stringContaining('2 orders in progress'),
    });
    expect((await call(t.app, 'GET', `/stores/${store.id}`)).status).toBe(200);
  });
});

describe('counts and statistics', () => {
  it("counts a supplier's live stores and the active ones", async () => {
    const sup = await createSupplier(t.app);
    await createStore(t.app, sup);
    await createStore(t.app, sup, { isActive: false });
    await createStore(t.app, sup, { deletedAt: t.clock.now() });
    expect(await t.app.services.stores.countBySupplier(t.app.ctx.db, sup.profile.id)).toEqual({ total: 2, active: 1 });
  });

  it('reports the store state, staff numbers, days active and sections added by other modules', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    t.app.services.stores.registerStatistics('bookings', async (_ex, storeId) => ({
      total: storeId === store.id ? 3 : 0,
    }));
    await call(t.app, 'POST', `/staff/stores/${store.id}/invite`, {
      token: sup.token,
      body: { email: 'helper@example.test', role: 'STAFF' },
    });
    t.clock.advance(3 * DAY + HOUR);
    const token = await tokenFor(sup.user);
    const res = await call(t.app, 'GET', `/supplier/stores/${store.id}/statistics`, { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      storeId: store.id,
      generatedAt: expect.any(String),
      store: {
        isActive: true,
        isOpenNow: true,
        closure: null,
        createdAt: store.createdAt.toISOString(),
        daysActive: 3,
      },
      staff: { members: 0, managers: 0, staff: 0, pendingInvitations: 1 },
      products: { total: 0, active: 0, pendingReview: 0 },
      orders: { open: 0, completed: 0, cancelled: 0, unitsSold: 0, revenueGross: 0 },
      bookings: { total: 3 },
    });
    expect(() => t.app.services.stores.registerStatistics('staff', async () => ({}))).toThrow();
  });
});
