import { getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { explainEach } from '../../../test/helpers/plans.js';
import type { Executor } from '../../db/client.js';
import { stores } from '../../db/schema/stores.js';
import { searchTerms } from '../../listings/index.js';
import { supplierWithStore } from '../products/products.test-support.js';
import * as repo from './deals-search.repository.js';
import type { DealSort } from './deals.schemas.js';

// The plans of the public deal list at scale (PostgreSQL only): 50,000 listed deals in 2,000
// stores spread over a region of their own, inserted inside a transaction that is rolled back; every
// query a list makes is captured and explained.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('plans of the public deal list with 50,000 deals', () => {
  it('near a point, with words and in each order: an index of listed deals, no sequential scan, no sort of deals', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const s = await supplierWithStore(t);
    const now = t.clock.now();
    const page = { page: 1, limit: 20 };
    const plans: [string, string][] = [];
    const explain = async (tx: Executor, name: string, run: () => Promise<unknown>) => {
      for (const plan of await explainEach(tx, run)) plans.push([name, plan]);
    };
    await t.app.ctx.db
      .transaction(async (tx) => {
        const copied = Object.values(getTableColumns(stores))
          .filter((c) => !c.generated && !['id', 'latitude', 'longitude'].includes(c.name))
          .map((c) => `"${c.name}"`)
          .join(', ');
        // 2,000 stores in 2 x 2 degrees of their own, a quarter of them in a denser town in one corner.
        await tx.execute(sql`insert into stores (id, latitude, longitude, ${sql.raw(copied)})
          select gen_random_uuid(), case when i % 4 = 0 then -52.6 + random() * 0.2 else -54 + random() * 2 end,
            case when i % 4 = 0 then -31.6 + random() * 0.2 else -33 + random() * 2 end, ${sql.raw(copied)}
          from stores, generate_series(1, 2000) i where id = ${s.store.id}`);
        await tx.execute(sql`insert into deals (id, supplier_id, store_id, title, description, kind, category, price, original_value, discount_percent,
            total_places, places_per_client, valid_from, valid_until, pickup_start, pickup_end, status, earth, created_at, updated_at)
          select gen_random_uuid(), ${s.profile.id}, (ids)[1 + i % 2000], 'Panier ' || i, 'Invendus du jour ' || (array['pain', 'fromage', 'mangue', 'poulet', 'yaourt'])[1 + i % 5],
            'SURPRISE_BAG', 'BAKERY', 500 + i % 40 * 10, 3000, 50, 10, 2, ${now.toISOString()}::timestamptz,
            ${now.toISOString()}::timestamptz + (1 + i % 300) * interval '1 hour', '18:00', '20:00', 'ACTIVE', '(0,0,0)',
            ${now.toISOString()}::timestamptz - i * interval '1 second', ${now.toISOString()}::timestamptz
          from generate_series(1, 50000) i, (select array_agg(id) ids from stores where supplier_id = ${s.profile.id} and id <> ${s.store.id}) st`);
        await tx.execute(sql`analyze deals`);
        await tx.execute(sql`analyze stores`);
        const point = { latitude: -52.5, longitude: -31.5, radiusM: 5000 };
        await explain(tx, 'near a point', () =>
          repo.searchDeals(tx, { terms: null, point, sort: 'distance' }, now, page),
        );
        await explain(tx, 'near a point, a category', () =>
          repo.searchDeals(tx, { terms: null, point, category: 'BAKERY', sort: 'distance' }, now, page),
        );
        await explain(tx, 'words', () =>
          repo.searchDeals(tx, { terms: searchTerms('pain'), sort: 'relevance' }, now, page),
        );
        for (const sort of ['newest', 'price', '-price', 'ending_soon'] as DealSort[]) {
          await explain(tx, `sorted by ${sort}`, () => repo.searchDeals(tx, { terms: null, sort }, now, page));
        }
        tx.rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error && err.message.includes('Rollback'))) throw err;
      });
    expect(plans.length).toBeGreaterThanOrEqual(7);
    for (const [name, plan] of plans) {
      expect(plan, name).not.toContain('Seq Scan on deals');
      expect(plan, name).toMatch(/Scan( Backward)? (using|on) deals_listed_\w+_idx/);
      expect(plan, name).not.toMatch(/Sort Key: deals\./);
    }
    // Nearest first is the GiST index's own order.
    const near = plans.filter(([n]) => n.startsWith('near')).map(([, p]) => p);
    for (const p of near) expect(p).toMatch(/Index Scan using deals_listed_earth_idx/);
  }, 180_000);
});
