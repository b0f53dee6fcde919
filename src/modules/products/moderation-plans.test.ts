import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { explainEach } from '../../../test/helpers/plans.js';
import * as repo from './products.repository.js';
import { supplierWithStore } from './products.test-support.js';

// The plans of the moderation queue and of the admin list by status with 10,000 products waiting
// among 100,000 (PostgreSQL only: the embedded database is for development; its plans were read by
// hand, see docs/products.md). A database of its own: the rows are committed and vacuumed, as
// autovacuum leaves a table in service (index-only scans need its visibility map), and no other
// file's queue sees them. Every statement a page makes is captured and explained.

let db: PrivateDatabase;
let t: TestApp;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp(db.env);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await db?.drop();
});

const PENDING = 10_000;

describe('plans of the moderation queue with 10,000 products waiting', () => {
  it("reads any page's ids in the queue's order from products_status_idx, and counts from it", async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const s = await supplierWithStore(t);
    const now = t.clock.now().toISOString();
    const plans: [string, string][] = [];
    const last = PENDING / 20;
    // Nine products on sale for each one waiting, as in a catalogue in service.
    await t.app.ctx.db.execute(sql`insert into products (id, supplier_id, store_id, name, description, category, original_price, discounted_price,
        quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, status, location, search_document, created_at, updated_at)
      select gen_random_uuid(), ${s.profile.id}, ${s.store.id}, 'Panier ' || i, 'Invendus du jour', 'BAKERY', 2000, 1000, 5, 500,
        ${now}::timestamptz + interval '3 days', '18:00', '21:00', case when i % 10 = 0 then 'PENDING_REVIEW' else 'ACTIVE' end,
        ll_to_earth(14.7, -17.4), 'panier ' || i, ${now}::timestamptz - i * interval '1 minute', ${now}::timestamptz
      from generate_series(1, ${PENDING * 10}) i`);
    await t.app.ctx.db.execute(sql`vacuum analyze products`);
    await t.app.ctx.db.transaction(async (tx) => {
      for (const [name, page] of [
        ['first', 1],
        ['middle', last / 2],
        ['last', last],
      ] as const) {
        const q = { page, limit: 20 };
        for (const plan of await explainEach(tx, () =>
          repo.listProducts(tx, { status: 'PENDING_REVIEW' }, q, 'createdAt'),
        ))
          plans.push([`queue, ${name} page`, plan]);
        for (const plan of await explainEach(tx, () => repo.listProducts(tx, { status: 'PENDING_REVIEW' }, q)))
          plans.push([`admin list, ${name} page`, plan]);
      }
    });
    // Each page is two statements: the page, and the total.
    expect(plans).toHaveLength(12);
    for (const [name, plan] of plans) {
      expect(plan, name).not.toContain('Seq Scan on products');
      expect(plan, name).not.toContain('Bitmap Heap Scan on products');
      if (plan.includes('Limit')) {
        // The page's ids straight from the index in the queue's order: no sort of the pending rows.
        expect(plan, name).toMatch(/Limit[^\n]*\n\s*->\s+Index Only Scan( Backward)? using products_status_idx/);
      } else {
        expect(plan, name).toMatch(/Index Only Scan using products_status_idx/);
      }
    }
  }, 120_000);
});
