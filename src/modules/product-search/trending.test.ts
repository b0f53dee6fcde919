import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productActivityDaily, products } from '../../db/schema/products.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createStore } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { HOUR, admin, publishProduct, supplierWithStore } from '../products/products.test-support.js';
import { popularityAt } from '../products/products.repository.js';
import { TRENDING_JOB } from './product-search.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /products/trending and the popularity job', () => {
  // A region of its own, so other files' products are not near it.
  const point = { latitude: -30 - Math.random() * 10, longitude: 100 + Math.random() * 10, radiusKm: 5 };
  const ids: Record<string, string> = {};
  let client: Awaited<ReturnType<typeof createSignedIn>>;

  const trending = async () => {
    const res = await call(t.app, 'GET', '/products/trending', { query: point as never });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
    return res.body.data.map((p: { id: string }) => byId[p.id]);
  };
  const scores = async () => {
    const rows = await t.app.ctx.db
      .select({ id: products.id, s: products.popularityScore })
      .from(products)
      .where(inArray(products.id, Object.values(ids)));
    // The score at the test's time, from the stored value (which does not change with time).
    return Object.fromEntries(
      rows.map((r) => [Object.entries(ids).find(([, v]) => v === r.id)![0], popularityAt(r.s, t.clock.now())]),
    );
  };
  const runJob = async () => {
    await t.app.ctx.jobs.send(TRENDING_JOB, {});
    await t.app.jobs.drain();
  };
  const view = async (name: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await call(t.app, 'GET', `/products/${ids[name]}`)).status).toBe(200);
    await t.app.services.products.flushViews();
  };

  beforeAll(async () => {
    const adm = await admin(t);
    const s = await supplierWithStore(t);
    const store = await createStore(t.app, s, { latitude: point.latitude, longitude: point.longitude });
    client = await createSignedIn(t.app);
    for (const name of ['a', 'b', 'c']) {
      t.clock.advance(1000);
      ids[name] = (
        await publishProduct(t, { token: s.token, store }, adm.token, {
          name: `Trend ${name}`,
          storeId: store.id,
          expiresAt: new Date(t.clock.now().getTime() + 20 * 24 * HOUR).toISOString(),
        })
      ).id;
    }
  }, 60_000);

  it('lists lean cards by the stored score, which views and favourites move only when the job runs', async () => {
    const sorted = Object.keys(ids).sort((x, y) => (ids[x]! < ids[y]! ? -1 : 1));
    expect(await trending()).toEqual(sorted);
    const res = await call(t.app, 'GET', '/products/trending', { query: point as never });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'currency',
        'discountPercent',
        'discountedPrice',
        'distanceKm',
        'expiresAt',
        'id',
        'name',
        'originalPrice',
        'storeId',
        'storeName',
        'thumbnailUrl',
      ].sort(),
    );
    expect(res.body.meta).toMatchObject({ page: 1, total: 3, hasMore: false });

    await view('b', 5);
    expect((await call(t.app, 'POST', `/products/${ids.c}/favorite`, { token: client.token })).status).toBeLessThan(
      300,
    );
    // Not computed per request: nothing moves before the job.
    expect(await scores()).toEqual({ a: 0, b: 0, c: 0 });
    await runJob();
    expect(await trending()).toEqual(['b', 'c', 'a']);
    const s = await scores();
    expect(s.b! / s.c!).toBeCloseTo(5 / 3, 5);
    expect(s.a).toBe(0);

    // Without new activity the job writes no row: the stored value does not change with time.
    const version = async () =>
      (
        (await t.app.ctx.db.execute(sql`select xmin::text as v from products where id = ${ids.b}`)) as unknown as {
          rows: { v: string }[];
        }
      ).rows[0]!.v;
    const before = await version();
    t.clock.advance(HOUR);
    await runJob();
    expect(await version()).toBe(before);
    expect((await scores()).b!).toBeCloseTo(s.b! / 2 ** (1 / 24), 4);
  });

  it('decays with time, counts a removed favourite out, and zeroes products idle for a week', async () => {
    const before = await scores();
    t.clock.advance(3 * 24 * HOUR);
    await view('a', 2);
    await runJob();
    const after = await scores();
    expect(after.b!).toBeLessThan(before.b! / 4);
    expect(after.b!).toBeGreaterThan(0);
    expect(await trending()).toEqual(['a', 'b', 'c']);

    // Days later, so the client signs in again.
    const { accessToken } = await t.app.services.auth.signIn(client.user, {});
    expect((await call(t.app, 'DELETE', `/products/${ids.c}/favorite`, { token: accessToken })).status).toBe(200);
    await runJob();
    expect((await scores()).c).toBe(0);

    t.clock.advance(8 * 24 * HOUR);
    await runJob();
    expect(await scores()).toEqual({ a: 0, b: 0, c: 0 });
    // The activity is kept per product and day.
    expect(
      await t.app.ctx.db.select().from(productActivityDaily).where(eq(productActivityDaily.productId, ids.b!)),
    ).toHaveLength(1);
  });

  it('shows the decayed score on the product page', async () => {
    const adm = await admin(t);
    const other = await supplierWithStore(t);
    const { id } = await publishProduct(t, other, adm.token, {
      expiresAt: new Date(t.clock.now().getTime() + 20 * 24 * HOUR).toISOString(),
    });
    for (let i = 0; i < 3; i++) await call(t.app, 'GET', `/products/${id}`);
    await t.app.services.products.flushViews();
    await runJob();
    t.clock.advance(5 * HOUR);
    const [row] = await t.app.ctx.db.select({ s: products.popularityScore }).from(products).where(eq(products.id, id));
    expect(row!.s).toBeGreaterThan(0);
    expect((await call(t.app, 'GET', `/products/${id}`)).body.data.popularityScore).toBeCloseTo(
      popularityAt(row!.s, t.clock.now()),
      4,
    );
  });

  it('refuses bad points with 400 naming the field', async () => {
    const res = await call(t.app, 'GET', '/products/trending', { query: { longitude: 10 } as never });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('query.latitude');
  });
});
