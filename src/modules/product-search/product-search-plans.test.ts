import { getTableColumns, sql } from 'drizzle-orm';
import { stores } from '../../db/schema/stores.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { explainEach } from '../../../test/helpers/plans.js';
import type { Executor } from '../../db/client.js';
import { searchTerms } from '../../listings/index.js';
import { supplierWithStore } from '../products/products.test-support.js';
import { EXPIRING_SOON_HOURS } from './product-search.service.js';
import * as repo from './product-search.repository.js';
import type { ProductSort } from './product-search.schemas.js';

// The plans of the public product lists at scale (PostgreSQL only: the embedded database is for
// development). 100,000 listed products are inserted in one statement inside a transaction that is
// rolled back, so no other test sees them; every query a list makes is captured and explained.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('plans of the public product lists with 100,000 products', () => {
  it('reads every list from an index: no sequential scan of products, no sort of its rows', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const s = await supplierWithStore(t);
    const now = t.clock.now();
    const point = { latitude: -52.5, longitude: -31.5, radiusM: 5000 };
    const page = { page: 1, limit: 20 };
    const plans: [string, string][] = [];
    let kept: { name: string; generic: number; custom: number }[] = [];
    const explain = async (tx: Executor, name: string, run: () => Promise<unknown>) => {
      for (const plan of await explainEach(tx, run)) plans.push([name, plan]);
    };
    await t.app.ctx.db
      .transaction(async (tx) => {
        // 500 stores (copies of the supplier's store), so no store holds a large share of the products.
        const copied = Object.values(getTableColumns(stores))
          .filter((c) => !c.generated && c.name !== 'id')
          .map((c) => `"${c.name}"`)
          .join(', ');
        await tx.execute(
          sql`insert into stores (id, ${sql.raw(copied)}) select gen_random_uuid(), ${sql.raw(copied)} from stores, generate_series(1, 500) where id = ${s.store.id}`,
        );
        // A region of 2 x 2 degrees of its own (about 50,000 km2), a denser town in one corner.
        await tx.execute(sql`insert into products (id, supplier_id, store_id, name, description, category, original_price, discounted_price,
            quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, status, popularity_score, location, search_document, created_at, updated_at)
          select gen_random_uuid(), ${s.profile.id}, (ids)[1 + i % 500], 'Panier ' || i, 'Invendus du jour', 'BAKERY', 1000 + i % 50 * 100, 500 + i % 40 * 10,
            1 + i % 5, 500, ${now.toISOString()}::timestamptz + (1 + i % 72) * interval '1 hour', '18:00', '20:00', 'ACTIVE', i % 1000,
            case when i % 4 = 0 then ll_to_earth(-52.6 + random() * 0.2, -31.6 + random() * 0.2) else ll_to_earth(-54 + random() * 2, -33 + random() * 2) end,
            'panier ' || i || ' invendus du jour ' || (array['pain', 'fromage', 'mangue', 'poulet', 'yaourt'])[1 + i % 5],
            ${now.toISOString()}::timestamptz - i * interval '1 second', ${now.toISOString()}::timestamptz
          from generate_series(1, 100000) i, (select array_agg(id) ids from stores where supplier_id = ${s.profile.id} and id <> ${s.store.id}) st`);
        await tx.execute(sql`analyze products`);
        await explain(tx, 'nearby', () =>
          repo.searchProducts(tx, { terms: null, point, sort: 'distance' }, now, page, ''),
        );
        await explain(tx, 'words', () =>
          repo.searchProducts(tx, { terms: searchTerms('pain'), sort: 'relevance' }, now, page, ''),
        );
        await explain(tx, 'rare words', () =>
          repo.searchProducts(tx, { terms: searchTerms('panier 4242'), sort: 'relevance' }, now, page, ''),
        );
        await explain(tx, 'expiring soon near a point', () =>
          repo.expiringSoon(tx, now, new Date(now.getTime() + EXPIRING_SOON_HOURS * 3_600_000), point, page, ''),
        );
        await explain(tx, 'trending near a point', () =>
          repo.searchProducts(tx, { terms: null, point, sort: 'popularity' }, now, page, ''),
        );
        for (const sort of ['newest', 'price', '-price', 'expiry', 'popularity', 'discount'] as ProductSort[]) {
          await explain(tx, `sorted by ${sort}`, () => repo.searchProducts(tx, { terms: null, sort }, now, page, ''));
        }
        // The prepared pages keep one plan after their first runs (preparedPage): planned again on every
        // run, they cost the database about twice as much.
        const until = new Date(now.getTime() + EXPIRING_SOON_HOURS * 3_600_000);
        for (let i = 0; i < 7; i++) {
          await repo.searchProducts(tx, { terms: null, point, sort: 'distance' }, now, page, '');
          await repo.expiringSoon(tx, now, until, point, page, '');
          await repo.searchProducts(tx, { terms: null, point, sort: 'popularity' }, now, page, '');
        }
        kept = (
          (await tx.execute(
            sql`select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name like 'products%page%'`,
          )) as unknown as { rows: typeof kept }
        ).rows;
        tx.rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error && err.message.includes('Rollback'))) throw err;
      });
    expect(plans.length).toBeGreaterThanOrEqual(11);
    expect(kept.map((k) => k.name.replace(/_\d+$/, '')).sort()).toEqual([
      'products_expiring_window_page',
      'products_nearest_page',
      'products_trending_window_page',
    ]);
    for (const k of kept) expect(k.generic, k.name).toBeGreaterThan(0);
    for (const [name, plan] of plans) {
      expect(plan, name).not.toContain('Seq Scan on products');
      expect(plan, name).toMatch(/Scan( Backward)? (using|on) products_listed_\w+_idx/);
      // A sort of products' rows (not of the page's few rows or of the ranked candidates) would read them all.
      expect(plan, name).not.toMatch(/Sort Key: products\./);
    }
  }, 120_000);
});
