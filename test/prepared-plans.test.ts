import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as deals from '../src/modules/deals/deals-search.repository.js';
import * as reviews from '../src/modules/reviews/reviews.repository.js';
import * as stores from '../src/modules/stores/stores.repository.js';
import * as suppliers from '../src/modules/suppliers/suppliers-search.repository.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

// The nearby pages of stores, suppliers and deals, and a product's reviews, are prepared statements that keep one plan
// (preparedPage in src/db/client.ts): PostgreSQL planned them again on every request, which cost
// about as much as running them. The product lists are checked in product-search-plans.test.ts.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('prepared list pages', () => {
  it('keep a generic plan after their first runs (PostgreSQL)', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const now = t.clock.now();
    const page = { page: 1, limit: 20 };
    // A region of its own (no other file's rows near it), so every run asks the same number of rows.
    const point = { latitude: -60 - Math.random() * 10, longitude: 150 + Math.random() * 10 };
    const kept = await t.app.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < 7; i++) {
        await stores.nearbyStores(tx, { ...point, radiusKm: 5 }, now, page);
        await suppliers.nearbyPublic(tx, { ...point, radiusM: 5000 }, page, now, '');
        await deals.searchDeals(tx, { terms: null, point: { ...point, radiusM: 5000 }, sort: 'distance' }, now, page);
        await reviews.pageWithSummary(tx, randomUUID(), { ...page, page: 1 + i, sort: 'newest' }, page.limit + 1);
      }
      const res = await tx.execute(
        sql`select name, generic_plans::int as generic from pg_prepared_statements where name like '%nea%page%' or name like 'reviews_page%'`,
      );
      return (res as unknown as { rows: { name: string; generic: number }[] }).rows;
    });
    expect(kept.map((k) => k.name.replace(/_\d+$/, '')).sort()).toEqual([
      'deals_nearest_page',
      'reviews_page_newest_all',
      'stores_nearby_page',
      'suppliers_nearby_page',
    ]);
    for (const k of kept) expect(k.generic, k.name).toBeGreaterThan(0);
  });
});
