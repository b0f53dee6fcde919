import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

// Settings are global to a database: this suite changes them on a database of its own.
let db: PrivateDatabase;
let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
let superAdmin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp({ ...db.env, DEFAULT_COMMISSION_BPS: '900' });
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
  superAdmin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
});
afterAll(async () => {
  await t.close();
  await db.drop();
});

const DEFAULTS = {
  business: {
    defaultCommissionBps: 900,
    paymentTimeoutMinutes: 15,
    paymentFailureGraceMinutes: 5,
    escrowReleaseDelayHours: 48,
    minimumOrderAmount: 0,
    pickupCodeRequired: true,
    dealsPaidInAppByDefault: false,
    noShowRefunded: false,
  },
  mobilemoney: {
    wave: { displayName: 'Wave', enabled: true, feeBps: 100 },
    orangeMoney: { displayName: 'Orange Money', enabled: true, feeBps: 100 },
    freeMoney: { displayName: 'Free Money', enabled: true, feeBps: 100 },
    card: { displayName: 'Carte bancaire', enabled: true, feeBps: 250 },
  },
  features: {
    autoApproveVerifiedSupplierProducts: false,
    donationsEnabled: true,
    advertisingEnabled: true,
    reviewsRequirePurchase: true,
  },
};

const settings = async () => (await call(t.app, 'GET', '/admin/settings', { token: admin.token })).body.data;
const patch = (body: unknown, token = admin.token) => call(t.app, 'PATCH', '/admin/settings', { token, body });
const audit = (query: Record<string, string | number> = {}, token = admin.token) =>
  call(t.app, 'GET', '/admin/settings/audit', { token, query });

describe('access', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/admin/settings'],
    ['PATCH', '/admin/settings', { features: { donationsEnabled: true } }],
    ['GET', '/admin/settings/audit'],
    ['GET', '/admin/settings/business'],
    ['GET', '/admin/settings/mobilemoney'],
    ['GET', '/admin/settings/features'],
    ['POST', '/admin/settings/invalidate-cache'],
  ];

  it('is for administrators; dropping caches only for a super administrator', async () => {
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const supplier = await createSupplier(t.app);
    for (const [method, url, body] of routes) {
      const anonymous = await call(t.app, method, url, { body });
      expect(anonymous.status, `${method} ${url}`).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      for (const who of [client, supplier]) {
        const refused = await call(t.app, method, url, { token: who.token, body });
        expect(refused.status, `${method} ${url}`).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
      }
      const asAdmin = await call(t.app, method, url, { token: admin.token, body });
      expect(asAdmin.status, `${method} ${url}`).toBe(url.endsWith('invalidate-cache') ? 403 : 200);
      expect((await call(t.app, method, url, { token: superAdmin.token, body })).status, `${method} ${url}`).toBe(200);
    }
  });
});

describe('reading', () => {
  it('gives every key at its default until an administrator changes it, the commission from the configuration', async () => {
    const all = await call(t.app, 'GET', '/admin/settings', { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual(DEFAULTS);
    for (const group of ['business', 'mobilemoney', 'features'] as const) {
      const one = await call(t.app, 'GET', `/admin/settings/${group}`, { token: superAdmin.token });
      expect(one.body).toEqual({ success: true, data: DEFAULTS[group] });
    }
  });

  it('never shows a payment secret', async () => {
    const body = JSON.stringify((await call(t.app, 'GET', '/admin/settings/mobilemoney', { token: admin.token })).body);
    expect(body).not.toMatch(/secret|apiKey|token/i);
  });
});

describe('changing', () => {
  it('changes the keys sent, leaves the others, and writes one audit row per changed key', async () => {
    const before = await settings();
    const res = await patch({
      business: { paymentTimeoutMinutes: 20, minimumOrderAmount: 0 },
      mobilemoney: { card: { enabled: false, displayName: '  Carte Visa  ' } },
      features: { donationsEnabled: false },
      reason: 'Rainy season',
    });
    expect(res.status).toBe(200);
    const expected = structuredClone(before);
    expected.business.paymentTimeoutMinutes = 20;
    expected.mobilemoney.card = { ...before.mobilemoney.card, enabled: false, displayName: 'Carte Visa' };
    expected.features.donationsEnabled = false;
    expect(res.body.data.settings).toEqual(expected);
    const change = (key: string, oldValue: unknown, newValue: unknown) => ({
      id: expect.any(String),
      key,
      oldValue,
      newValue,
      reason: 'Rainy season',
      actorId: admin.user.id,
      createdAt: res.body.data.changes[0].createdAt,
    });
    // The minimum was sent with its current value: no row for it.
    expect(res.body.data.changes).toEqual([
      change('business.paymentTimeoutMinutes', before.business.paymentTimeoutMinutes, 20),
      change('mobilemoney.card.displayName', before.mobilemoney.card.displayName, 'Carte Visa'),
      change('mobilemoney.card.enabled', true, false),
      change('features.donationsEnabled', true, false),
    ]);
    expect(await settings()).toEqual(expected);
    expect((await call(t.app, 'GET', '/admin/settings/business', { token: admin.token })).body.data).toEqual(
      expected.business,
    );

    const logged = await audit({ actorId: admin.user.id, limit: 100 });
    expect(logged.body.data.filter((c: { reason: string }) => c.reason === 'Rainy season')).toHaveLength(4);

    // The same values again change nothing and log nothing.
    const total = logged.body.meta.total;
    const again = await patch({ business: { paymentTimeoutMinutes: 20 }, features: { donationsEnabled: false } });
    expect(again.status).toBe(200);
    expect(again.body.data.changes).toEqual([]);
    expect(again.body.data.settings).toEqual(expected);
    const empty = await patch({});
    expect(empty.body.data.changes).toEqual([]);
    expect((await audit({ actorId: admin.user.id })).body.meta.total).toBe(total);

    // Back to the values the other tests expect.
    const restored = await patch({
      business: { paymentTimeoutMinutes: before.business.paymentTimeoutMinutes },
      mobilemoney: { card: before.mobilemoney.card },
      features: { donationsEnabled: true },
    });
    expect(restored.body.data.settings).toEqual(before);
  });

  it('refuses the whole change, naming every bad key, and changes nothing', async () => {
    const before = await settings();
    const total = (await audit()).body.meta.total;
    const res = await patch({
      business: {
        paymentTimeoutMinutes: 30, // valid, but goes down with the others
        defaultCommissionBps: 10_001,
        escrowReleaseDelayHours: -1,
        paymentFailureGraceMinutes: 0,
        minimumOrderAmount: 12.5,
        currency: 'EUR',
        pickupCodeRequired: 'yes',
        vatRateBps: 1800,
      },
      mobilemoney: {
        wave: { feeBps: 1001, displayName: '   ', apiKey: 'sk_live' },
        paypal: { enabled: true },
        orangeMoney: null,
      },
      features: { donationsEnabled: 1 },
      theme: 'dark',
      reason: '',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(
      [
        'body.business.defaultCommissionBps',
        'body.business.escrowReleaseDelayHours',
        'body.business.paymentFailureGraceMinutes',
        'body.business.minimumOrderAmount',
        'body.business.currency',
        'body.business.pickupCodeRequired',
        'body.business.vatRateBps',
        'body.mobilemoney.wave.feeBps',
        'body.mobilemoney.wave.displayName',
        'body.mobilemoney.wave.apiKey',
        'body.mobilemoney.paypal',
        'body.mobilemoney.orangeMoney',
        'body.features.donationsEnabled',
        'body.theme',
        'body.reason',
      ].sort(),
    );
    const detail = (field: string) => res.body.error.details.find((d: { field: string }) => d.field === field).message;
    expect(detail('body.business.defaultCommissionBps')).toMatch(/10000/);
    // The currency is no setting (every amount is stored in XOF).
    expect(detail('body.business.currency')).toBe('is not an allowed property');
    expect(detail('body.business.vatRateBps')).toBe('is not an allowed property');
    expect(await settings()).toEqual(before);
    expect((await audit()).body.meta.total).toBe(total);
  });

  it('refuses a body that is not an object of groups', async () => {
    for (const body of [undefined, [], { business: 15 }, { features: [true] }, { mobilemoney: { wave: 'on' } }]) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('takes the bounds themselves', async () => {
    const before = await settings();
    const res = await patch({
      business: { defaultCommissionBps: 10_000, escrowReleaseDelayHours: 0, paymentTimeoutMinutes: 1440 },
      mobilemoney: { freeMoney: { feeBps: 0 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.settings.business).toMatchObject({
      defaultCommissionBps: 10_000,
      escrowReleaseDelayHours: 0,
      paymentTimeoutMinutes: 1440,
    });
    await patch({ business: before.business, mobilemoney: before.mobilemoney });
    expect(await settings()).toEqual(before);
  });
});

describe('audit', () => {
  it('pages the history newest first, filtered by key, group, administrator and dates', async () => {
    const other = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
    const start = t.clock.now().toISOString();
    t.clock.advance(1000);
    await patch({ business: { minimumOrderAmount: 500 }, reason: 'first' }, other.token);
    t.clock.advance(1000);
    const middle = t.clock.now().toISOString();
    await patch(
      { mobilemoney: { wave: { feeBps: 120 } }, features: { advertisingEnabled: false }, reason: 'second' },
      other.token,
    );
    t.clock.advance(1000);
    await patch({ business: { minimumOrderAmount: 0 }, reason: 'third' }, other.token);
    t.clock.advance(1000);
    const end = t.clock.now().toISOString();

    const mine = await audit({ actorId: other.user.id });
    expect(mine.status).toBe(200);
    expect(mine.body.meta).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    const rows = mine.body.data.map((c: { key: string; reason: string }) => `${c.key}:${c.reason}`);
    expect(rows[0]).toBe('business.minimumOrderAmount:third');
    // The rows of one request share their time; their order between them is not specified.
    expect(rows.slice(1, 3).sort()).toEqual(['features.advertisingEnabled:second', 'mobilemoney.wave.feeBps:second']);
    expect(rows[3]).toBe('business.minimumOrderAmount:first');
    expect(mine.body.data[0]).toMatchObject({ oldValue: 500, newValue: 0, reason: 'third', actorId: other.user.id });
    expect(mine.body.data[3]).toMatchObject({ oldValue: 0, newValue: 500, reason: 'first' });

    const keys = async (query: Record<string, string | number>) =>
      (await audit({ actorId: other.user.id, ...query })).body.data.map(
        (c: { key: string; reason: string }) => `${c.key}:${c.reason}`,
      );
    expect(await keys({ key: 'business.minimumOrderAmount' })).toEqual([
      'business.minimumOrderAmount:third',
      'business.minimumOrderAmount:first',
    ]);
    expect(await keys({ key: 'mobilemoney' })).toEqual(['mobilemoney.wave.feeBps:second']);
    expect(await keys({ key: 'mobilemoney.wave' })).toEqual(['mobilemoney.wave.feeBps:second']);
    expect(await keys({ key: 'mobilemoney.card' })).toEqual([]);
    expect(await keys({ from: middle, to: end })).toHaveLength(3);
    expect(await keys({ from: start, to: middle })).toEqual(['business.minimumOrderAmount:first']);
    expect(await keys({ key: 'business', from: middle })).toEqual(['business.minimumOrderAmount:third']);
    expect(await keys({ limit: 1, page: 4 })).toEqual(['business.minimumOrderAmount:first']);

    // Without an administrator filter the other administrators' changes are there too.
    expect((await audit({ limit: 100 })).body.data.some((c: { actorId: string }) => c.actorId === admin.user.id)).toBe(
      true,
    );
    await patch({ mobilemoney: { wave: { feeBps: 100 } }, features: { advertisingEnabled: true } }, other.token);
  });

  it('refuses unknown keys and bad filters', async () => {
    const cases: [Record<string, string | number>, string][] = [
      [{ key: 'business.vatRateBps' }, 'query.key'],
      [{ key: 'business.' }, 'query.key'],
      [{ actorId: 'not-an-id' }, 'query.actorId'],
      [{ from: 'yesterday' }, 'query.from'],
      [{ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 'query.to'],
      [{ limit: 101 }, 'query.limit'],
      [{ sort: 'asc' }, 'query.sort'],
    ];
    for (const [query, field] of cases) {
      const res = await audit(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await audit({ actorId: uuidv7() })).body).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
