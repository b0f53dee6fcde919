import { getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/client.js';
import { orders } from '../src/db/schema/orders.js';
import * as escrowRepo from '../src/modules/escrow/escrow-admin.repository.js';
import { paidOrder, shop } from '../src/modules/escrow/escrow.test-support.js';
import * as productsRepo from '../src/modules/products/products.repository.js';
import * as usersRepo from '../src/modules/users/users.repository.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { explainEach } from './helpers/plans.js';

// The plans of the administrators' big lists (users, products, escrows) with a few thousand rows
// each, sorted by default and by the sorts an operator clicks most (PostgreSQL only). The rows are
// inserted inside a transaction that is rolled back, so no other test sees them.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const ROWS = 5000;

describe('plans of the sorted administrators lists', () => {
  it('read the page of the default order and the common sorts from an index, not a sort of every row', async (ctx) => {
    if (t.app.database.kind !== 'postgres') {
      ctx.skip();
      return;
    }
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const s = await shop(t, admin.token);
    const { order } = await paidOrder(t, s);
    const now = t.clock.now().toISOString();
    const plans: [string, string][] = [];
    const explain = async (tx: Executor, name: string, run: () => Promise<unknown>) => {
      for (const plan of await explainEach(tx, run)) plans.push([name, plan]);
    };
    await t.app.ctx.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into users (id, phone_number, email, role, status, first_name, last_name, verified_at, last_login_at, created_at, updated_at)
          select gen_random_uuid(), '+2217' || lpad(i::text, 8, '0') || floor(random() * 10)::int, 'plan-' || gen_random_uuid() || '@example.test',
            (array['CLIENT', 'CLIENT', 'CLIENT', 'SUPPLIER_FOOD', 'ASSOCIATION'])[1 + i % 5], 'ACTIVE', 'Prénom' || i % 300, 'Nom' || i % 700,
            ${now}::timestamptz, case when i % 3 = 0 then null else ${now}::timestamptz - i * interval '1 minute' end,
            ${now}::timestamptz - i * interval '1 minute', ${now}::timestamptz
          from generate_series(1, ${ROWS}) i`);
        await tx.execute(sql`insert into products (id, supplier_id, store_id, name, description, category, original_price, discounted_price,
            quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, status, location, created_at, updated_at)
          select gen_random_uuid(), ${s.profile.id}, ${s.store.id}, 'Panier ' || i, 'Invendus', 'BAKERY', 1000 + i % 50 * 100, 500 + i % 40 * 10,
            1 + i % 5, 500, ${now}::timestamptz + (1 + i % 72) * interval '1 hour', '18:00', '20:00',
            (array['ACTIVE', 'ACTIVE', 'ACTIVE', 'EXPIRED', 'PENDING_REVIEW', 'DELETED'])[1 + i % 6], ll_to_earth(14.7, -17.4),
            ${now}::timestamptz - i * interval '1 minute', ${now}::timestamptz
          from generate_series(1, ${ROWS}) i`);
        // Copies of the paid order (ids of their own, no idempotency key), each held in escrow.
        const copied = Object.values(getTableColumns(orders))
          .filter((c) => !c.generated && !['id', 'idempotency_key', 'created_at'].includes(c.name))
          .map((c) => `"${c.name}"`)
          .join(', ');
        await tx.execute(
          sql`create temporary table plan_orders on commit drop as select gen_random_uuid() as id, i from generate_series(1, ${ROWS}) i`,
        );
        await tx.execute(sql`insert into orders (id, created_at, ${sql.raw(copied)})
          select p.id, ${now}::timestamptz - p.i * interval '1 minute', ${sql.raw(copied)} from orders, plan_orders p where orders.id = ${order.id}`);
        await tx.execute(sql`insert into escrows (order_id, payment_id, state, amount, currency, held_at, released_at, updated_at)
          select p.id, e.payment_id, (array['HELD', 'RELEASED', 'RELEASED', 'REFUNDED'])[1 + p.i % 4], 600 + p.i % 20 * 100, e.currency,
            ${now}::timestamptz - p.i * interval '1 minute', case when p.i % 4 in (1, 2) then ${now}::timestamptz - p.i * interval '30 second' end, ${now}::timestamptz
          from plan_orders p, escrows e where e.order_id = ${order.id}`);
        await tx.execute(sql`analyze users`);
        await tx.execute(sql`analyze products`);
        await tx.execute(sql`analyze orders`);
        await tx.execute(sql`analyze escrows`);
        const page = { page: 1, limit: 20 };
        for (const sort of ['-createdAt', 'createdAt', 'lastName', '-lastName'] as const) {
          await explain(tx, `users ${sort}`, () => usersRepo.listUsers(tx, {}, 20, 0, sort));
        }
        await explain(tx, 'clients -createdAt', () => usersRepo.listUsers(tx, { role: 'CLIENT' }, 20, 0, '-createdAt'));
        for (const sort of ['-createdAt', 'createdAt', 'name', '-name'] as const) {
          await explain(tx, `products ${sort}`, () => productsRepo.listProducts(tx, {}, page, sort));
        }
        await explain(tx, 'active products expiresAt', () =>
          productsRepo.listProducts(tx, { status: 'ACTIVE' }, page, 'expiresAt'),
        );
        await explain(tx, 'moderation queue', () =>
          productsRepo.listProducts(tx, { status: 'PENDING_REVIEW' }, page, 'createdAt'),
        );
        for (const sort of ['-heldAt', 'heldAt', 'amount', '-amount'] as const) {
          await explain(tx, `escrows ${sort}`, () => escrowRepo.listEscrows(tx, {}, { limit: 20, offset: 0, sort }));
        }
        tx.rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error && err.message.includes('Rollback'))) throw err;
      });
    // Each list runs its page and its count (a count of the filtered rows, as before sorting). The products' page
    // picks its ids under a Limit first and reads those rows after (sorting only them): what matters is below the Limit.
    const pages = plans.filter(([, plan]) => /^\s*(->\s+)?Limit\b/m.test(plan));
    expect(pages.map(([name]) => name)).toHaveLength(15);
    for (const [name, plan] of pages) {
      const table = name.startsWith('escrows')
        ? 'escrows'
        : name.includes('products') || name === 'moderation queue'
          ? 'products'
          : 'users';
      const page = plan.slice(plan.search(/^\s*(->\s+)?Limit\b/m));
      expect(page, name).not.toContain(`Seq Scan on ${table}`);
      expect(page, name).toMatch(new RegExp(`Index (Only )?Scan (Backward )?using ${table}_\\w+ on ${table}`));
      // An incremental sort orders the few rows of equal keys the index gives; a full sort would read them all.
      expect(page, name).not.toMatch(/^\s*(->\s+)?Sort\s+\(/m);
    }
  }, 120_000);
});
