import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedis } from './fakes/redis.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { privateDatabase, type PrivateDatabase } from './helpers/database.js';
import { call } from './helpers/http.js';

const metrics = async (t: TestApp) => (await t.app.inject({ method: 'GET', url: '/api/v1/metrics' })).body;
/** The value of a sample line (`name{labels} value`) of a Prometheus text page. */
const sample = (page: string, series: string) => {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const up = { status: 'up', latencyMs: expect.any(Number) };

describe('readiness and metrics on the test database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('reports each dependency with its status and latency', async () => {
    const res = await call(t.app, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      status: 'ready',
      database: t.app.database.kind,
      dependencies: { database: up, ...(process.env.REDIS_URL && { redis: up }) },
    });
    expect(res.body.data.dependencies.database.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('adds the listing cache, the cache registry and the PostgreSQL pool to /metrics', async () => {
    // Three asks of one new query: one miss, two hits. On Redis another file's write drops the listing caches of
    // every app of the run (they share the channel, as instances do), and may fall between them: measured again then.
    let page = '';
    let counted = { misses: 0, hits: 0 };
    for (let attempt = 0; attempt < 3 && !(counted.misses === 1 && counted.hits === 2); attempt++) {
      const nearby = `/stores/nearby?latitude=14.7${Math.floor(Math.random() * 1e6)}&longitude=-17.45&radiusKm=2`;
      const before = await metrics(t);
      for (let i = 0; i < 3; i++) expect((await call(t.app, 'GET', nearby)).status).toBe(200);
      page = await metrics(t);
      const grew = (name: string) => sample(page, name)! - sample(before, name)!;
      counted = {
        misses: grew('foodsave_listing_cache_misses_total'),
        hits: grew('foodsave_listing_cache_hits_total'),
      };
    }
    expect(counted).toEqual({ misses: 1, hits: 2 });
    expect(sample(page, 'foodsave_listing_cache_entries')).toBeGreaterThanOrEqual(1);
    expect(sample(page, 'foodsave_listing_cache_bytes')).toBeGreaterThan(0);
    expect(sample(page, 'foodsave_caches_registered')).toBe(t.app.ctx.caches.names().length);
    if (t.app.database.kind === 'postgres') {
      const total = sample(page, 'foodsave_db_pool_connections{state="total"}')!;
      expect(total).toBeGreaterThanOrEqual(1);
      expect(
        sample(page, 'foodsave_db_pool_connections{state="idle"}')! +
          sample(page, 'foodsave_db_pool_connections{state="in_use"}')!,
      ).toBe(total);
      expect(sample(page, 'foodsave_db_pool_waiting_requests')).toBe(0);
    } else {
      expect(page).not.toContain('foodsave_db_pool_connections');
    }
  });
});

describe('readiness with Redis', () => {
  const redis = new FakeRedis();
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ REDIS_URL: await redis.start() });
  });
  afterAll(async () => {
    await t.close();
    await redis.stop();
  });

  it('reports Redis up, then answers 503 naming it once its port is closed', async () => {
    const ready = await call(t.app, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data.dependencies).toEqual({ database: up, redis: up });
    let page = await metrics(t);
    expect(sample(page, 'foodsave_redis_connected')).toBe(1);
    expect(sample(page, 'foodsave_redis_ping_seconds')).toBeGreaterThanOrEqual(0);

    const client = t.app.ctx.redis!;
    const lost = new Promise((resolve) => client.once('close', resolve));
    await redis.stop();
    await lost;
    const down = await call(t.app, 'GET', '/health/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      success: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Not ready: redis down',
        details: [
          {
            field: 'redis',
            message: expect.stringMatching(/^down after \d+ ms: connection (close|reconnecting|connecting)$/),
          },
        ],
      },
      requestId: expect.any(String),
    });
    page = await metrics(t);
    expect(sample(page, 'foodsave_redis_connected')).toBe(0);
    expect(sample(page, 'foodsave_redis_ping_seconds')).toBeNaN();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('readiness when PostgreSQL loses the database', () => {
  let db: PrivateDatabase;
  let t: TestApp;
  beforeAll(async () => {
    db = await privateDatabase();
    t = await buildTestApp(db.env);
  });
  afterAll(() => t.close());

  it('answers 503 naming the database', async () => {
    expect((await call(t.app, 'GET', '/health/ready')).status).toBe(200);
    await db.drop(); // WITH (FORCE): the pool's connections are cut, new ones are refused
    const res = await call(t.app, 'GET', '/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'Not ready: database down' });
    expect(res.body.error.details).toEqual([
      { field: 'database', message: expect.stringMatching(/^down after \d+ ms: /) },
    ]);
  });
});
