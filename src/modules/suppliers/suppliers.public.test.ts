import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// Each test works in a city of its own so rows of tests running at the same time do not mix in.
const uniqueCity = () => `Testville ${uuidv7()}`;
const ids = (res: { body: any }) => res.body.data.map((s: { id: string }) => s.id);

describe('one supplier', () => {
  it('shows a verified supplier without its private fields', async () => {
    const s = await createSupplier(t.app, { verification: 'VERIFIED', kycStatus: 'APPROVED' });
    const res = await call(t.app, 'GET', `/suppliers/${s.profile.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.profile.id,
      businessName: s.profile.businessName,
      category: 'FOOD',
      city: 'Dakar',
      isOpenNow: false,
      verifiedAt: expect.any(String),
    });
    for (const hidden of [
      'payoutPhone',
      'commissionRateBps',
      'kycStatus',
      'verificationStatus',
      'rejectionReason',
      'userId',
    ]) {
      expect(res.body.data).not.toHaveProperty(hidden);
    }
  });

  it('answers 404 for suppliers that are pending, rejected, deleted or whose account is suspended', async () => {
    const pending = await createSupplier(t.app, { verification: 'PENDING' });
    const rejected = await createSupplier(t.app, { verification: 'REJECTED' });
    const suspended = await createSupplier(t.app, { verification: 'VERIFIED', status: 'SUSPENDED' });
    const deleted = await createSupplier(t.app, { verification: 'VERIFIED' });
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: deleted.token })).status).toBe(200);
    for (const s of [pending, rejected, suspended, deleted]) {
      const res = await call(t.app, 'GET', `/suppliers/${s.profile.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // The owner still sees its own profile whatever its state.
    expect(
      (await call(t.app, 'GET', '/suppliers/profile', { token: pending.token })).body.data.verificationStatus,
    ).toBe('PENDING');
    expect((await call(t.app, 'GET', `/suppliers/${uuidv7()}`)).status).toBe(404);
    const malformed = await call(t.app, 'GET', '/suppliers/not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].field).toBe('params.id');
  });
});

describe('search', () => {
  async function seed(city: string) {
    // A second apart, so the order by creation time is certain.
    const make = (businessName: string, description: string, extra: Parameters<typeof createSupplier>[1] = {}) => {
      t.clock.advance(1000);
      return createSupplier(t.app, { businessName, description, city, ...extra }).then((s) => s.profile);
    };
    return {
      port: await make('Boulangerie du Port', 'Pain frais et viennoiseries'),
      fromagerie: await make('Fromagerie Diallo', 'Fromages affinés et yaourts'),
      awa: await make('Chez Awa', 'Boulangerie et patisserie de quartier'),
      deals: await make('Spa Teranga', 'Massages à prix réduit', { role: 'SUPPLIER_DEALS' }),
      hidden: await make('Boulangerie Cachée', 'Pain en attente de vérification', { verification: 'PENDING' }),
    };
  }

  it('finds suppliers by words of the name or description, by prefix, and despite typos', async () => {
    const city = uniqueCity();
    const s = await seed(city);
    const find = (q: string) => call(t.app, 'GET', '/suppliers/search', { query: { q, city } });

    const bread = await find('boulangerie');
    expect(bread.status).toBe(200);
    // The name match ranks before the description match; the unverified one is not listed.
    expect(ids(bread)).toEqual([s.port.id, s.awa.id]);
    expect(bread.body.meta).toEqual({
      page: 1,
      limit: 20,
      total: 2,
      totalPages: 1,
      hasMore: false,
      totalIsEstimate: false,
    });

    expect(ids(await find('boulangrie'))).toEqual([s.port.id, s.awa.id]);
    expect(ids(await find('fromagrie diallo'))).toEqual([s.fromagerie.id]);
    expect(ids(await find('yaourts'))).toEqual([s.fromagerie.id]);
    expect(ids(await find('froma'))).toEqual([s.fromagerie.id]);
    expect(ids(await find('PATISSERIE'))).toEqual([s.awa.id]);
    expect(ids(await find('xylophone'))).toEqual([]);
    // Query syntax is only text: operators of to_tsquery are not interpreted.
    const odd = await find("pain & !(:* ' \\");
    expect(odd.status).toBe(200);
    expect(ids(odd)).toEqual([s.port.id]);
  });

  it('filters by city and category, sorts, and pages', async () => {
    const city = uniqueCity();
    const s = await seed(city);
    const list = (query: Record<string, string | number | boolean>) =>
      call(t.app, 'GET', '/suppliers/search', { query: { city, ...query } });

    const byName = await list({});
    expect(ids(byName)).toEqual([s.port.id, s.awa.id, s.fromagerie.id, s.deals.id]);
    expect(ids(await list({ category: 'DEALS' }))).toEqual([s.deals.id]);
    expect(ids(await list({ sort: 'newest' }))).toEqual([s.deals.id, s.awa.id, s.fromagerie.id, s.port.id]);
    // The city matches whatever its case.
    expect(
      ids(await call(t.app, 'GET', '/suppliers/search', { query: { city: city.toUpperCase(), category: 'FOOD' } })),
    ).toHaveLength(3);

    const page2 = await list({ limit: 3, page: 2 });
    expect(ids(page2)).toEqual([s.deals.id]);
    expect(page2.body.meta).toEqual({
      page: 2,
      limit: 3,
      total: 4,
      totalPages: 2,
      hasMore: false,
      totalIsEstimate: false,
    });
  });

  it('refuses bad parameters', async () => {
    const res = await call(t.app, 'GET', '/suppliers/search', {
      query: { sort: 'rating', category: 'CARS', limit: 0, openNow: 'maybe', other: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['query.sort', 'query.category', 'query.limit', 'query.openNow', 'query.other']),
    );
    expect((await call(t.app, 'GET', '/suppliers/search', { query: { q: 'x'.repeat(101) } })).status).toBe(400);
  });
});

const EARTH_RADIUS_KM = 6371;
function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(a));
}
/** The point `km` kilometres north of a latitude. */
const north = (lat: number, km: number) => lat + (km / EARTH_RADIUS_KM) * (180 / Math.PI);

describe('nearby', () => {
  // A random spot per run, so suppliers of other tests are far away.
  const lat = randomInt(-50_000, 50_000) / 1000;
  const lng = randomInt(-170_000, 170_000) / 1000;

  it('lists verified suppliers within the radius, nearest first, with their distance', async () => {
    const at = async (km: number, eastKm = 0, extra: Parameters<typeof createSupplier>[1] = {}) => {
      const latitude = north(lat, km);
      const longitude = lng + eastKm / (111.32 * Math.cos((lat * Math.PI) / 180));
      return (await createSupplier(t.app, { latitude, longitude, ...extra })).profile;
    };
    const far = await at(30);
    const near = await at(0.4, 0.3);
    const mid = await at(2.5, -1);
    const edge = await at(4.6, 1);
    await at(1, 0, { verification: 'PENDING' });
    await at(1.5, 0, { verification: 'VERIFIED', status: 'SUSPENDED' });

    await t.app.ctx.db.execute(
      sql`update supplier_profiles set logo_key = ${`logos/${near.id}.webp`}, rating_average = 4.25, rating_count = 4 where id = ${near.id}`,
    );

    const res = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: lat, longitude: lng, radiusKm: 5 },
    });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([near.id, mid.id, edge.id]);
    expect(res.body.meta.total).toBe(3);
    for (const s of res.body.data) {
      const expected = haversineKm(lat, lng, s.latitude, s.longitude);
      // earthdistance uses a slightly larger Earth radius than the haversine here: 0.2 % apart.
      expect(Math.abs(s.distanceKm - expected)).toBeLessThan(expected * 0.003 + 0.002);
      // The card is the supplier's own page, with its distance.
      expect(s).toEqual({ ...(await call(t.app, 'GET', `/suppliers/${s.id}`)).body.data, distanceKm: s.distanceKm });
    }
    expect(res.body.data[0]).toMatchObject({
      logoUrl: expect.stringMatching(new RegExp(`/files/public/logos/${near.id}\\.webp$`)),
      rating: { average: 4.25, count: 4 },
    });

    const wide = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: lat, longitude: lng, radiusKm: 50, limit: 2, page: 2 },
    });
    expect(ids(wide)).toEqual([edge.id, far.id]);
    expect(wide.body.meta).toEqual({
      page: 2,
      limit: 2,
      total: 4,
      totalPages: 2,
      hasMore: false,
      totalIsEstimate: false,
    });

    const byDefault = await call(t.app, 'GET', '/suppliers/nearby', { query: { latitude: lat, longitude: lng } });
    expect(ids(byDefault)).toEqual([near.id, mid.id, edge.id]);
    const tiny = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: lat, longitude: lng, radiusKm: 0.1 },
    });
    expect(ids(tiny)).toEqual([]);
    const deals = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: lat, longitude: lng, category: 'DEALS' },
    });
    expect(ids(deals)).toEqual([]);
  });

  it('measures across the 180th meridian', async () => {
    const latitude = randomInt(-50_000, 50_000) / 1000;
    const s = (await createSupplier(t.app, { latitude, longitude: -179.995 })).profile;
    const res = await call(t.app, 'GET', '/suppliers/nearby', { query: { latitude, longitude: 179.995, radiusKm: 2 } });
    expect(ids(res)).toContain(s.id);
    const found = res.body.data.find((x: { id: string }) => x.id === s.id);
    const expected = haversineKm(latitude, 179.995, latitude, -179.995);
    expect(Math.abs(found.distanceKm - expected)).toBeLessThan(expected * 0.003 + 0.002);
  });

  it('refuses missing or impossible coordinates and radii', async () => {
    const res = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: 91, longitude: -181, radiusKm: 51 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['query.latitude', 'query.longitude', 'query.radiusKm']),
    );
    const missing = await call(t.app, 'GET', '/suppliers/nearby', { query: { radiusKm: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'query.latitude',
      'query.longitude',
    ]);
    expect((await call(t.app, 'GET', '/suppliers/nearby', { query: { latitude: 'north', longitude: 0 } })).status).toBe(
      400,
    );
    expect(
      (await call(t.app, 'GET', '/suppliers/nearby', { query: { latitude: 0, longitude: 0, radiusKm: 0.05 } })).status,
    ).toBe(400);
  });
});
