import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { rows } from '../../db/client.js';
import { admin, shop } from '../escrow/escrow.test-support.js';
import { newClient } from '../orders/orders.test-support.js';
import { buyer, recomputed, review, reviewOk, type Client, type Shop } from './reviews.test-support.js';

let t: TestApp;
let s: Shop;
let clients: Client[];

beforeAll(async () => {
  t = await buildTestApp();
  const adminToken = (await admin(t)).token;
  s = await shop(t, adminToken, { products: 2 });
  clients = [];
  for (let i = 0; i < 4; i++) clients.push(await buyer(t, s));
}, 300_000);
afterAll(() => t.close());

/** The summaries as the pages show them, and the stored columns of the product and supplier. */
async function shown() {
  const [p0, p1, supplier] = await Promise.all([
    call(t.app, 'GET', `/reviews/product/${s.products[0]!.id}`, { query: { limit: 1 } }),
    call(t.app, 'GET', `/reviews/product/${s.products[1]!.id}`, { query: { limit: 1 } }),
    call(t.app, 'GET', `/reviews/supplier/${s.profile.id}`, { query: { limit: 1 } }),
  ]);
  return [p0.body.meta.rating, p1.body.meta.rating, supplier.body.meta.rating];
}

async function storedColumns() {
  const [product] = await rows<{ average: number; count: number }>(
    t.app.ctx.db,
    sql`select rating_average as average, rating_count as count from products where id = ${s.products[0]!.id}`,
  );
  const [supplier] = await rows<{ average: number; count: number }>(
    t.app.ctx.db,
    sql`select rating_average as average, rating_count as count from supplier_profiles where id = ${s.profile.id}`,
  );
  return [product, supplier];
}

describe('rating summaries under concurrent writes', () => {
  it('equal a recomputation from the rows after any sequence of concurrent creates, edits and deletes', async () => {
    const targets = () => [
      { productId: s.products[0]!.id },
      { productId: s.products[1]!.id },
      { supplierId: s.profile.id },
    ];
    const op = fc.record({
      client: fc.nat({ max: 3 }),
      target: fc.nat({ max: 2 }),
      kind: fc.constantFrom('create', 'edit', 'delete'),
      rating: fc.integer({ min: 1, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (ops) => {
        const mine = await Promise.all(
          clients.map((c) => call(t.app, 'GET', '/reviews/my', { token: c.token, query: { limit: 100 } })),
        );
        const idOf = (client: number, target: number) => {
          const tg = targets()[target]!;
          const found = mine[client]!.body.data.find(
            (r: { productId: string | null; supplierId: string; targetType: string }) =>
              'productId' in tg ? r.productId === tg.productId : r.targetType === 'SUPPLIER',
          );
          return found?.id as string | undefined;
        };
        // Every operation at once: creates racing creates, edits and deletes of the same rows.
        const answers = await Promise.all(
          ops.map((o) => {
            const c = clients[o.client]!;
            const id = idOf(o.client, o.target);
            if (o.kind === 'create' || !id) return review(t, c.token, { ...targets()[o.target], rating: o.rating });
            if (o.kind === 'edit')
              return call(t.app, 'PUT', `/reviews/${id}`, { token: c.token, body: { rating: o.rating } });
            return call(t.app, 'DELETE', `/reviews/${id}`, { token: c.token });
          }),
        );
        for (const a of answers) expect([200, 201, 404, 409], JSON.stringify(a.body)).toContain(a.status);
        const expected = await Promise.all([
          recomputed(t, s.products[0]!.id),
          recomputed(t, s.products[1]!.id),
          recomputed(t, s.profile.id),
        ]);
        expect(await shown()).toEqual(expected);
        expect(await storedColumns()).toEqual([
          { average: expected[0]!.average, count: expected[0]!.count },
          { average: expected[2]!.average, count: expected[2]!.count },
        ]);
        expect((await call(t.app, 'GET', `/products/${s.products[0]!.id}`)).body.data.rating).toEqual(expected[0]);
        expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).body.data.rating).toEqual({
          average: expected[2]!.average,
          count: expected[2]!.count,
        });
      }),
      { numRuns: 8 },
    );
  }, 600_000);

  it('accepts one of two concurrent reviews of one target by one client', async () => {
    const c = await buyer(t, s);
    const [x, y] = await Promise.all([
      review(t, c.token, { productId: s.products[0]!.id, rating: 5 }),
      review(t, c.token, { productId: s.products[0]!.id, rating: 1 }),
    ]);
    expect([x.status, y.status].sort()).toEqual([201, 409]);
    expect((await call(t.app, 'GET', '/reviews/my', { token: c.token })).body.meta.total).toBe(1);
    expect((await shown())[0]).toEqual(await recomputed(t, s.products[0]!.id));
  }, 120_000);
});

describe('reports and helpful marks under concurrency', () => {
  it('hides a review once when reporters report it at the same time, and counts each reporter once', async () => {
    const author = await buyer(t, s);
    const r = await reviewOk(t, author.token, { supplierId: s.profile.id, rating: 1 });
    const before = (await shown())[2];
    const reporters = await Promise.all(Array.from({ length: 5 }, () => newClient(t)));
    const answers = await Promise.all(
      [...reporters, reporters[0]!, reporters[1]!].map((u) =>
        call(t.app, 'POST', `/reviews/${r.id}/report`, { token: u.token, body: { reason: 'false' } }),
      ),
    );
    // The first three (in the order the row lock gives) are accepted; after them the review is hidden.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 404 || a.status === 409)).toBe(true);
    const [row] = await rows<{ hidden: boolean; open_reports: number; n: number }>(
      t.app.ctx.db,
      sql`select hidden, open_reports, (select count(*)::int from review_reports where review_id = ${r.id}) as n from reviews where id = ${r.id}`,
    );
    expect(row).toEqual({ hidden: true, open_reports: 3, n: 3 });
    const after = (await shown())[2];
    expect(after.count).toBe(before.count - 1);
    expect(after).toEqual(await recomputed(t, s.profile.id));
  }, 120_000);

  it('counts concurrent helpful marks of one user once, and a mark racing a deletion is a 404', async () => {
    const author = await buyer(t, s);
    const r = await reviewOk(t, author.token, { productId: s.products[1]!.id, rating: 4 });
    const voter = await newClient(t);
    const marks = await Promise.all(
      Array.from({ length: 4 }, () => call(t.app, 'POST', `/reviews/${r.id}/helpful`, { token: voter.token })),
    );
    expect(marks.map((m) => m.status)).toEqual([200, 200, 200, 200]);
    expect(marks.filter((m) => m.body.data.counted)).toHaveLength(1);
    expect(marks.map((m) => m.body.data.helpfulCount)).toEqual([1, 1, 1, 1]);
    const others = await Promise.all(Array.from({ length: 3 }, () => newClient(t)));
    const [gone, ...late] = await Promise.all([
      call(t.app, 'DELETE', `/reviews/${r.id}`, { token: author.token }),
      ...others.map((o) => call(t.app, 'POST', `/reviews/${r.id}/helpful`, { token: o.token })),
    ]);
    expect(gone!.status).toBe(200);
    for (const m of late) expect([200, 404]).toContain(m.status);
  }, 120_000);
});
