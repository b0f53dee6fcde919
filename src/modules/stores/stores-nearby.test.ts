import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../db/client.js';
import { stores } from '../../db/schema/stores.js';
import { uuidv7 } from '../../shared/ids.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { nearbyQuery } from './stores.repository.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const COUNT = 10_000;
const BATCH = 1_000;
// earthdistance models the Earth as a sphere of this radius (its earth() function), in km.
const EARTH_RADIUS_KM = 6378.168;
const rad = (deg: number) => (deg * Math.PI) / 180;

function haversineKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface Point {
  id: string;
  latitude: number;
  longitude: number;
}

describe('nearby over a country of 10,000 stores', () => {
  // A 4° x 4° "country" (about 440 km a side) placed at random in the southern hemisphere,
  // where no other test puts stores, so parallel tests on a shared database do not interfere.
  const south = -40 + Math.random() * 25;
  const west = 110 + Math.random() * 40;
  const points: Point[] = [];

  beforeAll(async () => {
    const sup = await createSupplier(t.app, { latitude: south + 2, longitude: west + 2 });
    const now = t.clock.now();
    const everyDay = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
    for (let i = 0; i < COUNT; i++) {
      points.push({ id: uuidv7(), latitude: south + Math.random() * 4, longitude: west + Math.random() * 4 });
    }
    for (let i = 0; i < COUNT; i += BATCH) {
      await t.app.ctx.db.insert(stores).values(
        points.slice(i, i + BATCH).map((p, j) => ({
          ...p,
          supplierId: sup.profile.id,
          name: `Depot ${i + j}`,
          address: `${i + j} Country Road`,
          city: 'Countryside',
          openingHours: everyDay,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    // What a bulk load is followed by in production too: fresh statistics for the planner.
    await t.app.ctx.db.execute(sql`analyze stores`);
  }, 120_000);

  /** Every page of a nearby query, in order. */
  async function allPages(origin: { latitude: number; longitude: number }, radiusKm: number) {
    const found: { id: string; distanceKm: number }[] = [];
    let total = 0;
    for (let page = 1; ; page++) {
      const { latitude, longitude } = origin;
      const res = await call(t.app, 'GET', '/stores/nearby', {
        query: { latitude, longitude, radiusKm, limit: 100, page },
      });
      expect(res.status).toBe(200);
      total = res.body.meta.total;
      found.push(
        ...res.body.data.map((s: { id: string; distanceKm: number }) => ({ id: s.id, distanceKm: s.distanceKm })),
      );
      if (!res.body.meta.hasMore) break;
    }
    return { found, total };
  }

  const origins = () => [
    { label: 'centre', latitude: south + 2, longitude: west + 2 },
    { label: 'corner', latitude: south + 0.1, longitude: west + 3.9 },
    { label: 'a store', latitude: points[17]!.latitude, longitude: points[17]!.longitude },
  ];

  for (const radiusKm of [5, 20, 50]) {
    it(`returns exactly the stores within ${radiusKm} km, nearest first, with the right distances`, async () => {
      for (const origin of origins()) {
        const expected = points
          .map((p) => ({ id: p.id, d: haversineKm(origin, p) }))
          .filter((p) => p.d <= radiusKm)
          .sort((a, b) => a.d - b.d);
        const { found, total } = await allPages(origin, radiusKm);

        // Points within a metre of the circle may fall either side with floating point: ignore them.
        const edge = (id: string) => Math.abs(haversineKm(origin, points.find((p) => p.id === id)!) - radiusKm) < 0.001;
        expect(
          found.filter((f) => !edge(f.id)).map((f) => f.id),
          origin.label,
        ).toEqual(expected.filter((e) => !edge(e.id)).map((e) => e.id));
        expect(total).toBe(found.length);
        if (radiusKm === 50) expect(found.length, origin.label).toBeGreaterThan(20);

        const byId = new Map(expected.map((e) => [e.id, e.d]));
        for (let i = 0; i < found.length; i++) {
          const f = found[i]!;
          if (i > 0) expect(f.distanceKm).toBeGreaterThanOrEqual(found[i - 1]!.distanceKm);
          expect(
            Math.abs(f.distanceKm - (byId.get(f.id) ?? haversineKm(origin, points.find((p) => p.id === f.id)!))),
          ).toBeLessThan(0.002);
        }
      }
    });
  }

  it('answers the nearby query from the GiST index on the stored earth column', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const query = nearbyQuery(
      t.app.ctx.db,
      { latitude: south + 2, longitude: west + 2, radiusKm: 5 },
      t.clock.now(),
      21,
    );
    const plan = await rows<{ 'QUERY PLAN': string }>(t.app.ctx.db, sql`explain ${query}`);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('stores_earth_idx');
    expect(text).not.toMatch(/Seq Scan on stores/);
  });
});
