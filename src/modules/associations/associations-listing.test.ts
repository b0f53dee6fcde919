import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { rows } from '../../db/client.js';
import { uuidv7 } from '../../shared/ids.js';
import { nearbyQuery } from './associations-search.repository.js';
import { createAssociation } from './associations.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const ids = (res: { body: any }) => res.body.data.map((s: { id: string }) => s.id);
/** A word no other test uses, so lists on a shared database hold only this test's rows. */
const tag = () => `zq${uuidv7().replace(/-/g, '').slice(-10)}`;

describe('search', () => {
  it('finds verified associations by words, accents either way, prefixes and typos; by city and category', async () => {
    const w = tag();
    const city = `Thiès ${w}`;
    const coeur = await createAssociation(t.app, {
      name: `Restos du Cœur ${w}`,
      mission: 'Repas chauds pour les sans-abri',
      city,
      categories: ['PREPARED_MEALS'],
    });
    const epicerie = await createAssociation(t.app, {
      name: `Épicerie Solidaire ${w}`,
      mission: 'Produits secs à petit prix',
      city,
      categories: ['DRY_GOODS', 'BAKERY'],
    });
    await createAssociation(t.app, { name: `Épicerie Cachée ${w}`, verification: 'PENDING', city });
    await createAssociation(t.app, { name: `Épicerie Refusée ${w}`, verification: 'REJECTED', city });
    const search = (query: Record<string, string | number>) => call(t.app, 'GET', '/associations', { query });

    expect(ids(await search({ q: `epicerie ${w}` }))).toEqual([epicerie.association.id]);
    expect(ids(await search({ q: `ÉPICERIE solidaire ${w}` }))).toEqual([epicerie.association.id]);
    expect(ids(await search({ q: `${w} coeur` }))).toEqual([coeur.association.id]);
    expect(ids(await search({ q: `${w} solid` }))).toEqual([epicerie.association.id]);
    expect(ids(await search({ q: `${w} sans abri` }))).toEqual([coeur.association.id]);
    expect(ids(await search({ q: `${w} epicrie` }))).toEqual([epicerie.association.id]);
    expect(ids(await search({ q: w, sort: 'name' }))).toEqual([epicerie.association.id, coeur.association.id]);
    expect(ids(await search({ q: w, category: 'BAKERY' }))).toEqual([epicerie.association.id]);
    expect(ids(await search({ city: `THIÈS ${w}`.toLowerCase() }))).toEqual([
      epicerie.association.id,
      coeur.association.id,
    ]);
    expect((await search({ q: '!!!' })).body).toMatchObject({ data: [], meta: { total: 0, hasMore: false } });
    const res = await search({ q: w });
    expect(res.body.meta).toEqual({
      page: 1,
      limit: 20,
      total: 2,
      totalPages: 1,
      hasMore: false,
      totalIsEstimate: false,
    });
    expect(res.body.data[0]).not.toHaveProperty('payoutPhone');

    for (const [query, field] of [
      [{ category: 'CAVIAR' }, 'query.category'],
      [{ sort: 'distance' }, 'query.sort'],
      [{ q: 'x'.repeat(101) }, 'query.q'],
      [{ limit: 20, page: 51 }, 'query.page'],
      [{ unknown: 1 }, 'query.unknown'],
    ] as [Record<string, string | number>, string][]) {
      const bad = await search(query);
      expect(bad.status, field).toBe(400);
      expect(bad.body.error.details[0].field).toBe(field);
    }
    // Relevance ranks the first 200 matches: pages beyond them are refused.
    expect((await search({ q: w, limit: 100, page: 3 })).body.error.details[0].field).toBe('query.page');
  });

  it('pages the verified list by name with hasMore, and newest first', async () => {
    const w = tag();
    const city = `Kaolack ${w}`;
    const made: Awaited<ReturnType<typeof createAssociation>>[] = [];
    for (const name of ['Delta', 'alpha', 'Écho', 'Bravo', 'charlie']) {
      t.clock.advance(1000);
      made.push(await createAssociation(t.app, { name: `${name} ${w}`, city }));
    }
    const byName = ['alpha', 'Bravo', 'charlie', 'Delta', 'Écho'].map(
      (n) => made.find((m) => m.association.name.startsWith(n))!.association.id,
    );
    const page = (p: number, extra: Record<string, string> = {}) =>
      call(t.app, 'GET', '/associations/verified', { query: { city, limit: 2, page: p, ...extra } });
    const first = await page(1);
    expect(ids(first)).toEqual(byName.slice(0, 2));
    expect(first.body.meta).toMatchObject({ total: 5, totalPages: 3, hasMore: true, totalIsEstimate: false });
    expect(ids(await page(2))).toEqual(byName.slice(2, 4));
    const last = await page(3);
    expect(ids(last)).toEqual(byName.slice(4));
    expect(last.body.meta.hasMore).toBe(false);
    expect((await page(4)).body).toMatchObject({ data: [], meta: { total: 5, hasMore: false } });
    expect(ids(await page(1, { sort: 'newest' }))).toEqual([made[4]!.association.id, made[3]!.association.id]);
    expect((await call(t.app, 'GET', '/associations/verified', { query: { q: 'x' } })).status).toBe(400);
  });
});

describe('nearby', () => {
  // An empty stretch of ocean of its own per run, so rows of other tests are never near.
  const origin = { latitude: -40 + randomInt(0, 1000) / 100, longitude: -120 + randomInt(0, 1000) / 100 };
  const at = (km: number) => ({ latitude: origin.latitude + km / 111.2, longitude: origin.longitude });
  const haversineKm = (lat: number, lng: number) => {
    const r = Math.PI / 180;
    const h =
      Math.sin(((lat - origin.latitude) * r) / 2) ** 2 +
      Math.cos(lat * r) * Math.cos(origin.latitude * r) * Math.sin(((lng - origin.longitude) * r) / 2) ** 2;
    return 2 * 6371 * Math.asin(Math.sqrt(h));
  };

  it('pages nearest first with ties at one address in id order, within the radius, verified only', async () => {
    const made = [];
    for (const km of [0.5, 2, 2, 2, 3.5, 7, 12])
      made.push(await createAssociation(t.app, { ...at(km), categories: km === 2 ? ['DAIRY'] : ['BAKERY'] }));
    await createAssociation(t.app, { ...at(1), verification: 'PENDING' });
    await createAssociation(t.app, { ...at(1.5), verification: 'REJECTED' });
    const within10 = made.filter((m) => haversineKm(m.association.latitude, m.association.longitude) <= 10);
    const expected = within10
      .sort(
        (x, y) =>
          haversineKm(x.association.latitude, x.association.longitude) -
            haversineKm(y.association.latitude, y.association.longitude) ||
          (x.association.id < y.association.id ? -1 : 1),
      )
      .map((m) => m.association.id);
    expect(expected).toHaveLength(6);

    const seen: string[] = [];
    for (let p = 1; p <= 3; p++) {
      const res = await call(t.app, 'GET', '/associations/nearby', {
        query: { ...origin, radiusKm: 10, limit: 2, page: p },
      });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      expect(res.body.meta.hasMore).toBe(p < 3);
      for (const row of res.body.data) expect(row.distanceKm).toBeCloseTo(haversineKm(row.latitude, row.longitude), 1);
    }
    expect(seen).toEqual(expected);
    const all = await call(t.app, 'GET', '/associations/nearby', { query: { ...origin, radiusKm: 10 } });
    expect(all.body.meta).toMatchObject({ total: 6, hasMore: false, totalIsEstimate: false });
    expect(ids(all)).toEqual(expected);
    const dairy = await call(t.app, 'GET', '/associations/nearby', {
      query: { ...origin, radiusKm: 10, category: 'DAIRY' },
    });
    expect(ids(dairy)).toEqual(expected.slice(1, 4));
    expect(ids(await call(t.app, 'GET', '/associations/nearby', { query: { ...origin, radiusKm: 1 } }))).toEqual([
      expected[0],
    ]);

    for (const [query, field] of [
      [{ latitude: origin.latitude }, 'query.longitude'],
      [{ ...origin, latitude: 95 }, 'query.latitude'],
      [{ ...origin, radiusKm: 500 }, 'query.radiusKm'],
      [{ ...origin, limit: 50, page: 21 }, 'query.page'],
    ] as [Record<string, number>, string][]) {
      const bad = await call(t.app, 'GET', '/associations/nearby', { query });
      expect(bad.status, field).toBe(400);
      expect(bad.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('reads the nearest page from the GiST index in its order on PostgreSQL', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const plan = (
      await rows<{ 'QUERY PLAN': string }>(t.app.ctx.db, sql`explain ${nearbyQuery(t.app.ctx.db, origin, 21).getSQL()}`)
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('associations_earth_idx');
    expect(plan).not.toMatch(/Sort|Seq Scan on associations/);
  });
});
