import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../db/client.js';
import { stores } from '../../db/schema/stores.js';
import { uuidv7 } from '../../shared/ids.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { nearbyQuery } from './stores.repository.js';

// The public lists' shape at scale (DESIGN section 8): folded words, prefixes, typos, the capped
// total and the page cap, on stores and suppliers.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const names = (res: { body: any }) =>
  res.body.data.map((s: { name?: string; businessName?: string }) => s.name ?? s.businessName);

describe('words', () => {
  let supplierId: string;
  beforeAll(async () => {
    const sup = await createSupplier(t.app);
    supplierId = sup.profile.id;
    for (const s of [
      { name: 'Épicerie Fine Ndiaye', description: 'Crème fraîche et œufs', city: 'Thiès' },
      { name: 'Epicerie du Marché', description: 'Riz, huile et sucre', city: 'Dakar' },
      { name: 'Boulangerie Teranga', description: 'Pain de mie, baguettes et croissants', city: 'Dakar' },
      { name: 'Fresh Bakery', description: 'Bread, pastries and cakes', city: 'Saly' },
    ]) {
      await createStore(t.app, sup, s);
    }
  });
  const search = (q: string, extra: Record<string, string | number> = {}) =>
    call(t.app, 'GET', '/stores', { query: { supplierId, q, sort: 'name', ...extra } });

  it('ignores accents and case on both sides', async () => {
    expect(names(await search('epicerie'))).toEqual(['Epicerie du Marché', 'Épicerie Fine Ndiaye']);
    expect(names(await search('ÉPICERIE'))).toEqual(['Epicerie du Marché', 'Épicerie Fine Ndiaye']);
    expect(names(await search('marche'))).toEqual(['Epicerie du Marché']);
    expect(names(await search('creme fraiche'))).toEqual(['Épicerie Fine Ndiaye']);
    expect(names(await search('oeufs'))).toEqual(['Épicerie Fine Ndiaye']);
    expect(names(await search('thies'))).toEqual(['Épicerie Fine Ndiaye']);
  });

  it('matches English words as well as French ones', async () => {
    expect(names(await search('pastries'))).toEqual(['Fresh Bakery']);
    expect(names(await search('bread cakes'))).toEqual(['Fresh Bakery']);
  });

  it('takes the last word as a prefix while it is being typed, the others whole', async () => {
    expect(names(await search('pain bag'))).toEqual(['Boulangerie Teranga']);
    expect(names(await search('croiss'))).toEqual(['Boulangerie Teranga']);
  });

  it('tolerates a typo in each word', async () => {
    expect(names(await search('boulangeri teranga'))).toEqual(['Boulangerie Teranga']);
    expect(names(await search('epicrie ndiaye'))).toEqual(['Épicerie Fine Ndiaye']);
    expect(names(await search('bakerry'))).toEqual(['Fresh Bakery']);
  });

  it('ranks the name before the description and answers words of punctuation only with nothing', async () => {
    const res = await call(t.app, 'GET', '/stores', { query: { supplierId, q: 'epicerie' } });
    expect(names(res)).toHaveLength(2);
    const none = await search('!!! ???');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ data: [], meta: { total: 0, hasMore: false, totalIsEstimate: false } });
    // tsquery syntax in the words is only text.
    expect((await search("pain & !(x) | 'y':*")).status).toBe(200);
  });
});

describe('counting and paging', () => {
  // A region and a city of their own, so the rows of other tests do not count.
  const base = { latitude: -60 + Math.random() * 5, longitude: -150 + Math.random() * 20 };
  // Letters only: digits of the city would be words of every store's document.
  const city = `Listville ${Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')}`;
  let supplierId: string;

  beforeAll(async () => {
    const sup = await createSupplier(t.app);
    supplierId = sup.profile.id;
    const now = t.clock.now();
    const everyDay = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
    for (let i = 0; i < 1050; i += 350) {
      await t.app.ctx.db.insert(stores).values(
        Array.from({ length: 350 }, (_, j) => ({
          id: uuidv7(),
          supplierId,
          name: `Comptoir ${i + j}`,
          description: 'Paniers anti-gaspi',
          address: `${i + j} Rue`,
          city,
          latitude: base.latitude + Math.random() * 0.05,
          longitude: base.longitude + Math.random() * 0.05,
          openingHours: everyDay,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    await t.app.ctx.db.execute(sql`analyze stores`);
  }, 120_000);

  it('counts exactly up to a cap and flags a larger total as an estimate', async () => {
    const nearby = await call(t.app, 'GET', '/stores/nearby', { query: { ...base, radiusKm: 50, limit: 10 } });
    expect(nearby.status).toBe(200);
    expect(nearby.body.data).toHaveLength(10);
    expect(nearby.body.meta).toEqual({
      page: 1,
      limit: 10,
      total: 1000,
      totalPages: 100,
      hasMore: true,
      totalIsEstimate: true,
    });

    // Relevance ranks the first 200 matches the index returns.
    const words = await call(t.app, 'GET', '/stores', { query: { supplierId, q: 'comptoir', limit: 10 } });
    expect(words.body.meta).toMatchObject({ total: 200, totalPages: 20, hasMore: true, totalIsEstimate: true });
    const sorted = await call(t.app, 'GET', '/stores', { query: { city, sort: 'name', limit: 10 } });
    expect(sorted.body.meta).toMatchObject({ total: 1000, hasMore: true, totalIsEstimate: true });

    const exact = await call(t.app, 'GET', '/stores', { query: { supplierId, q: 'comptoir 1049' } });
    expect(names(exact)[0]).toBe('Comptoir 1049');
  });

  it('says whether a next page exists, also on the last page and past it', async () => {
    const few = await call(t.app, 'GET', '/stores', { query: { supplierId, q: 'comptoir 7', sort: 'name', limit: 1 } });
    expect(few.body.meta, JSON.stringify(few.body)).toMatchObject({ hasMore: true, totalIsEstimate: false });
    const { total } = few.body.meta;
    const last = await call(t.app, 'GET', '/stores', {
      query: { supplierId, q: 'comptoir 7', sort: 'name', limit: 1, page: total },
    });
    expect(last.body.meta).toMatchObject({ total, hasMore: false });
    const past = await call(t.app, 'GET', '/stores', {
      query: { supplierId, q: 'comptoir 7', sort: 'name', limit: 1, page: total + 1 },
    });
    expect(past.body).toMatchObject({ data: [], meta: { total, hasMore: false } });
  });

  it('refuses pages beyond the counted rows with a 400 naming query.page', async () => {
    for (const [url, query] of [
      ['/stores', { city, limit: 20, page: 51 }],
      ['/stores', { q: 'comptoir', limit: 20, page: 11 }],
      ['/stores/nearby', { ...base, limit: 100, page: 11 }],
      ['/suppliers/search', { q: 'x', limit: 50, page: 21 }],
      ['/suppliers/nearby', { ...base, page: 100_000 }],
    ] as const) {
      const res = await call(t.app, 'GET', url, { query });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['query.page']);
    }
    const deepest = await call(t.app, 'GET', '/stores/nearby', {
      query: { ...base, radiusKm: 50, limit: 100, page: 10 },
    });
    expect(deepest.status).toBe(200);
    expect(deepest.body.data).toHaveLength(100);
  });

  it('reads each list from its indexes on PostgreSQL', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const text = async (query: SQL) =>
      (await rows<{ 'QUERY PLAN': string }>(t.app.ctx.db, sql`explain ${query}`))
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    // The page query itself: the nearest rows straight from the index's order, no sort.
    const near = await text(nearbyQuery(t.app.ctx.db, { ...base, radiusKm: 5 }, t.clock.now(), 21).getSQL());
    expect(near).toContain('stores_earth_idx');
    expect(near).not.toMatch(/Sort|Seq Scan/);
    // Word searches over a table this small may rightly read it in sequence: at scale, see docs/benchmarks.md.
  });
});
