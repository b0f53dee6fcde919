import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// Current IANA names that Node 20's ICU does not list (it answers with the old ones).
const CURRENT = [
  'Asia/Kolkata',
  'Europe/Kyiv',
  'America/Nuuk',
  'Pacific/Kanton',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Yangon',
];

// What a user may type, and what is stored.
const ALIASES: [string, string][] = [
  ['Asia/Calcutta', 'Asia/Kolkata'],
  ['Europe/Kiev', 'Europe/Kyiv'],
  ['Europe/Uzhgorod', 'Europe/Kyiv'],
  ['America/Godthab', 'America/Nuuk'],
  ['Pacific/Enderbury', 'Pacific/Kanton'],
  ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
  ['Asia/Katmandu', 'Asia/Kathmandu'],
  ['Asia/Rangoon', 'Asia/Yangon'],
  ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ['asia/kolkata', 'Asia/Kolkata'],
  ['Etc/UTC', 'UTC'],
  ['Africa/Dakar', 'Africa/Dakar'],
];

const NONSENSE = [
  'Mars/Olympus_Mons',
  'Asia/Kolkata/North',
  'Kolkata',
  '+05:30',
  'not a zone',
  'Asia/Kolkata\u200b',
  '',
];

const storeBody = (timezone: string) => ({
  name: `Boutique ${uuidv7().slice(-6)}`,
  address: '3 Rue Jules Ferry',
  city: 'Dakar',
  latitude: 14.67,
  longitude: -17.43,
  timezone,
});

const fields = (res: { body: any }) => (res.body.error?.details ?? []).map((d: { field: string }) => d.field);

describe('time zones of suppliers and stores', () => {
  it('accept the current IANA names and keep them as given', async () => {
    const sup = await createSupplier(t.app);
    for (const timezone of CURRENT) {
      const profile = await call(t.app, 'PUT', '/suppliers/profile', { token: sup.token, body: { timezone } });
      expect(profile.status, timezone).toBe(200);
      expect(profile.body.data.timezone).toBe(timezone);

      const store = await call(t.app, 'POST', '/supplier/stores', { token: sup.token, body: storeBody(timezone) });
      expect(store.status, timezone).toBe(201);
      expect(store.body.data.timezone).toBe(timezone);
      expect((await call(t.app, 'GET', `/stores/${store.body.data.id}`)).body.data.timezone).toBe(timezone);
    }
  });

  it('store an old or differently written name as the current one', async () => {
    const sup = await createSupplier(t.app);
    const created = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody('Africa/Dakar'),
    });
    const storeId = created.body.data.id;
    for (const [given, stored] of ALIASES) {
      const profile = await call(t.app, 'PUT', '/suppliers/profile', { token: sup.token, body: { timezone: given } });
      expect(profile.status, given).toBe(200);
      expect(profile.body.data.timezone, given).toBe(stored);
      expect((await call(t.app, 'GET', `/suppliers/${sup.profile.id}`)).body.data.timezone, given).toBe(stored);

      const store = await call(t.app, 'PUT', `/supplier/stores/${storeId}`, {
        token: sup.token,
        body: { timezone: given },
      });
      expect(store.status, given).toBe(200);
      expect(store.body.data.timezone, given).toBe(stored);
    }
  });

  it('refuse anything else with 400 naming body.timezone, and change nothing', async () => {
    const sup = await createSupplier(t.app, { timezone: 'Africa/Dakar' });
    const created = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: storeBody('Africa/Dakar'),
    });
    const storeId = created.body.data.id;
    for (const timezone of NONSENSE) {
      const label = JSON.stringify(timezone);
      const profile = await call(t.app, 'PUT', '/suppliers/profile', {
        token: sup.token,
        body: { timezone, city: 'Thiès' },
      });
      expect(profile.status, label).toBe(400);
      expect(fields(profile), label).toEqual(['body.timezone']);

      const store = await call(t.app, 'POST', '/supplier/stores', { token: sup.token, body: storeBody(timezone) });
      expect(store.status, label).toBe(400);
      expect(fields(store), label).toEqual(['body.timezone']);

      const update = await call(t.app, 'PUT', `/supplier/stores/${storeId}`, { token: sup.token, body: { timezone } });
      expect(update.status, label).toBe(400);
      expect(fields(update), label).toEqual(['body.timezone']);
    }
    const own = await call(t.app, 'GET', '/suppliers/profile', { token: sup.token });
    expect(own.body.data).toMatchObject({ timezone: 'Africa/Dakar', city: 'Dakar' });
    expect((await call(t.app, 'GET', `/stores/${storeId}`)).body.data.timezone).toBe('Africa/Dakar');
  });
});

describe('open now in Asia/Kolkata (UTC+05:30)', () => {
  it("is computed in the place's time, in SQL filters and in the views", async () => {
    // The next Wednesday, 06:00 UTC: 11:30 in Kolkata, 06:00 in Dakar.
    const now = t.clock.now();
    const target = new Date(
      Date.UTC(
        now.getUTCFullYear(),
        now.getUTCMonth(),
        now.getUTCDate() + ((3 - now.getUTCDay() + 7) % 7 || 7),
        6,
        0,
        0,
      ),
    );
    t.clock.advance(target.getTime() - now.getTime());

    const city = `Pune ${uuidv7()}`;
    const hours = { '3': ['11:00-12:00'] };
    const sup = await createSupplier(t.app, { city });
    const profile = await call(t.app, 'PUT', '/suppliers/profile', {
      token: sup.token,
      body: { timezone: 'Asia/Kolkata', openingHours: hours },
    });
    expect(profile.body.data).toMatchObject({ timezone: 'Asia/Kolkata', isOpenNow: true });
    const dakar = await createSupplier(t.app, { city, timezone: 'Africa/Dakar', openingHours: hours });

    const kolkata = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: { ...storeBody('Asia/Kolkata'), openingHours: hours },
    });
    const calcutta = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: { ...storeBody('Asia/Calcutta'), openingHours: hours },
    });
    const inDakar = await call(t.app, 'POST', '/supplier/stores', {
      token: sup.token,
      body: { ...storeBody('Africa/Dakar'), openingHours: hours },
    });
    expect([kolkata, calcutta, inDakar].map((r) => [r.status, r.body.data.timezone, r.body.data.isOpenNow])).toEqual([
      [201, 'Asia/Kolkata', true],
      [201, 'Asia/Kolkata', true],
      [201, 'Africa/Dakar', false],
    ]);

    const stores = async (openNow: boolean) =>
      (
        await call(t.app, 'GET', '/stores', { query: { supplierId: sup.profile.id, openNow, sort: 'newest' } })
      ).body.data.map((s: { id: string }) => s.id);
    expect(await stores(true)).toEqual([calcutta.body.data.id, kolkata.body.data.id]);
    expect(await stores(false)).toEqual([inDakar.body.data.id]);

    const suppliers = async (openNow: boolean) =>
      (await call(t.app, 'GET', '/suppliers/search', { query: { city, openNow } })).body.data.map(
        (s: { id: string }) => s.id,
      );
    expect(await suppliers(true)).toEqual([sup.profile.id]);
    expect(await suppliers(false)).toEqual([dakar.profile.id]);

    // Half an hour later it is 12:00 in Kolkata: closed.
    t.clock.advance(30 * 60_000);
    expect(await stores(true)).toEqual([]);
    expect(await suppliers(true)).toEqual([]);
    expect((await call(t.app, 'GET', `/stores/${kolkata.body.data.id}`)).body.data.isOpenNow).toBe(false);
  });
});
