import { like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productSearches } from '../../db/schema/products.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { HOUR, admin, publishProduct, supplierWithStore } from '../products/products.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('search recording and GET /admin/analytics/top-searches', () => {
  // Words of their own, so other files' searches do not mix in.
  const word = `zq${Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 8)}`;
  let adminUser: Awaited<ReturnType<typeof admin>>['user'];
  // Signed in afresh on each call: the clock moves by days.
  const adminToken = async () => (await t.app.services.auth.signIn(adminUser, {})).accessToken;
  const top = async (query: Record<string, unknown>, token?: string) =>
    call(t.app, 'GET', '/admin/analytics/top-searches', {
      token: token ?? (await adminToken()),
      query: query as never,
    });
  const search = (q: string) => call(t.app, 'GET', '/products/search', { query: { q } as never });
  const mine = (rows: { query: string }[]) => rows.filter((r) => r.query.includes(word));

  beforeAll(async () => {
    const adm = await admin(t);
    adminUser = adm.user;
    const s = await supplierWithStore(t);
    await publishProduct(t, s, adm.token, {
      name: `Pain ${word}`,
      expiresAt: new Date(t.clock.now().getTime() + 40 * 24 * HOUR).toISOString(),
    });
  }, 60_000);

  it('records folded words with their result count, batched, and ranks them (ties by words)', async () => {
    for (const q of [`PAIN ${word}`, `pain  ${word}`, `Pâin ${word}!`]) expect((await search(q)).status).toBe(200);
    for (const q of [`${word} introuvable`, `${word} INTROUVABLE`]) expect((await search(q)).body.data).toEqual([]);
    await search(`${word} introuvable`);
    await search(`${word}`);
    // Punctuation only: no words, nothing recorded.
    await search('!!!');
    // Still in memory: a search adds no write of its own.
    const stored = () =>
      t.app.ctx.db
        .select()
        .from(productSearches)
        .where(like(productSearches.query, `%${word}%`));
    expect(await stored()).toEqual([]);
    const res = await top({ period: 'day', limit: 100 });
    expect(res.status).toBe(200);
    expect(mine(res.body.data.top)).toEqual([
      { query: `pain ${word}`, searches: 3, zeroResultSearches: 0 },
      { query: `${word} introuvable`, searches: 3, zeroResultSearches: 3 },
      { query: word, searches: 1, zeroResultSearches: 0 },
    ]);
    expect(mine(res.body.data.zeroResults)).toEqual([{ query: `${word} introuvable`, searches: 3 }]);
    expect(res.body.data.top.some((r: { query: string }) => r.query === '')).toBe(false);
    expect(await stored()).toHaveLength(3);
  });

  it('counts by period and by from/to, and keeps days apart', async () => {
    t.clock.advance(2 * 24 * HOUR);
    await search(`pain ${word}`);
    const day = await top({ period: 'day', limit: 100 });
    expect(mine(day.body.data.top)).toEqual([{ query: `pain ${word}`, searches: 1, zeroResultSearches: 0 }]);
    const week = await top({ period: 'week', limit: 100 });
    expect(mine(week.body.data.top)[0]).toEqual({ query: `pain ${word}`, searches: 4, zeroResultSearches: 0 });
    const today = t.clock.now().toISOString().slice(0, 10);
    const range = await top({ from: today, to: today, limit: 100 });
    expect(range.body.data).toMatchObject({ from: today, to: today });
    expect(mine(range.body.data.top)).toEqual(mine(day.body.data.top));
    expect((await top({ period: 'month', limit: 1 })).body.data.top).toHaveLength(1);
  });

  it('is for admins only and refuses bad periods with 400 naming the field', async () => {
    expect((await call(t.app, 'GET', '/admin/analytics/top-searches')).status).toBe(401);
    const client = await createSignedIn(t.app);
    expect((await top({}, client.token)).status).toBe(403);
    for (const [query, field] of [
      [{ period: 'year' }, 'query.period'],
      [{ limit: 0 }, 'query.limit'],
      [{ limit: 101 }, 'query.limit'],
      [{ from: '2026-01-01' }, 'query.to'],
      [{ to: '2026-01-01' }, 'query.from'],
      [{ from: '2026-02-01', to: '2026-01-01' }, 'query.to'],
      [{ from: 'yesterday', to: '2026-01-01' }, 'query.from'],
      [{ period: 'day', from: '2026-01-01', to: '2026-01-02' }, 'query.period'],
    ] as const) {
      const res = await top(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(query)).toContain(field);
    }
  });
});
