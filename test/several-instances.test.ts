import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../src/db/client.js';
import { systemClock } from '../src/shared/clock.js';
import { admin, newClient } from '../src/modules/orders/orders.test-support.js';
import {
  image,
  productBody,
  publishProduct,
  supplierWithStore,
} from '../src/modules/products/products.test-support.js';
import { FakeMobileMoney } from './fakes/mobilemoney.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { bareEnv, type ChildServer, freePort, killLeftovers, spawnServer } from './helpers/child-server.js';
import { privateDatabase } from './helpers/database.js';
import { S3Server } from './helpers/s3.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';
import { openSse } from './helpers/sse.js';

// Two API instances (WORKERS=off) and one worker process on one PostgreSQL, one Redis and one bucket,
// driven alternately as a load balancer would. Several processes cannot share the embedded database:
// this runs in the PostgreSQL and Redis pass of the suite.
const onServers = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const AUTH_LIMIT = 6;
const BURST = 24;

const provider = new FakeMobileMoney();
const bucket = new S3Server();
const cleanup: (() => Promise<unknown>)[] = [];
let shared: Record<string, string>;
let a: ChildServer;
let b: ChildServer;
let worker: ChildServer;
let adminToken: string;
let supplier: { token: string; store: { id: string } };
let client: { token: string };
let productId: string;
let pictured: string;

/** What the data is like now, read by an app of this process (no workers) on the same database. */
async function inspect<T>(read: (t: TestApp) => Promise<T>): Promise<T> {
  const t = await buildTestApp({ ...shared, WORKERS: 'off' });
  try {
    return await read(t);
  } finally {
    await t.close();
  }
}

const send = (s: ChildServer, method: string, path: string, opts: { token?: string; body?: unknown; key?: string }) =>
  fetch(`${s.api}${path}`, {
    method,
    headers: {
      ...(opts.body !== undefined && !(opts.body instanceof FormData) && { 'content-type': 'application/json' }),
      ...(opts.token && { authorization: `Bearer ${opts.token}` }),
      ...(opts.key && { 'idempotency-key': opts.key }),
    },
    body: opts.body instanceof FormData ? opts.body : opts.body === undefined ? undefined : JSON.stringify(opts.body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data?: any; error?: any } }));

describe.skipIf(!onServers)('two API instances and a worker, driven alternately', () => {
  beforeAll(async () => {
    const db = await privateDatabase();
    cleanup.push(db.drop);
    const providerUrl = await provider.start();
    cleanup.push(() => provider.close());
    await bucket.start();
    cleanup.push(() => bucket.close());
    shared = {
      ...db.env,
      REDIS_URL: process.env.REDIS_URL!,
      JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}`,
      MOBILEMONEY_PROVIDER: 'checkout',
      MOBILEMONEY_BASE_URL: providerUrl,
      MOBILEMONEY_API_KEY: provider.apiKey,
      MOBILEMONEY_WEBHOOK_SECRET: provider.webhookSecret,
      PUBLIC_BASE_URL: 'http://api.test',
      ...bucket.env(),
    };
    const prep = await buildTestApp({ ...shared, WORKERS: 'off' });
    try {
      adminToken = (await admin(prep)).token;
      supplier = await supplierWithStore(prep);
      client = await newClient(prep);
      const open = { quantity: 500, pickupStart: '00:00', pickupEnd: '23:59' };
      productId = (await publishProduct(prep, supplier, adminToken, open)).id;
      // Pictures send a product back to review: another one than the one ordered.
      pictured = (await publishProduct(prep, supplier, adminToken, { name: 'Baguettes' })).id;
    } finally {
      await prep.close();
    }
    const env = bareEnv({
      ...shared,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      AUTH_RATE_LIMIT_MAX: String(AUTH_LIMIT),
      WORKERS: 'off',
      JOBS_CRON_CHECK_SECONDS: '1',
    });
    const workerPort = await freePort();
    [a, b, worker] = await Promise.all([
      spawnServer({ env }),
      spawnServer({ env }),
      spawnServer({
        env: { ...env, WORKER_PORT: String(workerPort) },
        port: workerPort,
        command: [process.execPath, '--import', 'tsx', 'src/worker.ts'],
      }),
    ]);
    await Promise.all([a.waitReady(), b.waitReady(), worker.waitReady()]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([a, b, worker].filter(Boolean).map((s) => s.stop('SIGTERM')));
    killLeftovers();
    for (const step of cleanup.reverse()) await step();
  }, 60_000);

  it('serves through B a picture uploaded through A', async () => {
    const form = new FormData();
    form.append('images', new Blob([new Uint8Array(await image(640, 480, 'jpeg'))]), 'bread.jpg');
    const uploaded = await send(a, 'POST', `/products/${pictured}/images`, { token: supplier.token, body: form });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    const url = new URL(uploaded.body.data.images[0].largeUrl as string, 'http://api.test');
    const key = url.pathname.split('/files/public/')[1]!;
    const served = await fetch(`${b.api}/files/public/${key}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // The bytes are in the bucket, not on either instance's disk.
    expect(await bucket.keys('public/')).toContain(`public/${key}`);
  });

  it("drops A's cached list at once when B approves a product", async () => {
    const list = async () =>
      (
        (await send(a, 'GET', `/products/search?storeId=${supplier.store.id}&limit=50`, {})).body.data as {
          id: string;
        }[]
      ).map((p) => p.id);
    const created = await send(a, 'POST', '/products', {
      token: supplier.token,
      body: productBody({ clock: systemClock }, supplier.store.id, { name: 'Galettes' }),
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(await list()).not.toContain(id);
    expect(await list()).not.toContain(id); // now served from A's cache
    expect((await send(b, 'PATCH', `/admin/products/${id}/approve`, { token: adminToken })).status).toBe(200);
    expect(await list()).toContain(id);
  });

  it('delivers to an SSE client on B a notification caused on A', { timeout: 120_000 }, async () => {
    const stream = await openSse(`${b.api}/notifications/stream`, supplier.token);
    try {
      expect(stream.status).toBe(200);
      expect((await stream.next()).event).toBe('unread');
      const created = await send(b, 'POST', '/products', {
        token: supplier.token,
        body: productBody({ clock: systemClock }, supplier.store.id, { name: 'Brioches' }),
      });
      const rejected = await send(a, 'PATCH', `/admin/products/${created.body.data.id}/reject`, {
        token: adminToken,
        body: { reason: 'La photo ne montre pas le produit' },
      });
      expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
      // The notification is made by the worker from the rejection's event, then published through Redis.
      const deadline = Date.now() + 60_000;
      let event = await stream.next().catch(() => null);
      const about = (e: typeof event) => e?.event === 'notification' && JSON.stringify(e.data).includes('Brioches');
      while (!about(event) && Date.now() < deadline) event = await stream.next().catch(() => null);
      expect(event?.data).toMatchObject({ type: 'product_rejected', data: { productName: 'Brioches' } });
    } finally {
      stream.close();
    }
  });

  it('shares rate limits and idempotency keys', async () => {
    const phone = '+221770000001';
    const tries = await Promise.all(
      Array.from({ length: AUTH_LIMIT + 2 }, (_, i) =>
        send(i % 2 ? b : a, 'POST', '/auth/login', { body: { phoneNumber: phone, password: 'Not-the-password-1' } }),
      ),
    );
    expect(tries.filter((t) => t.status === 429)).toHaveLength(2);

    const body = { items: [{ productId, quantity: 1 }], paymentMethod: 'wave' };
    const key = `twice-${randomBytes(4).toString('hex')}`;
    const first = await send(a, 'POST', '/orders', { token: client.token, body, key });
    const again = await send(b, 'POST', '/orders', { token: client.token, body, key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(again).toEqual(first);
  });

  it('loses no request and no job when A stops (SIGTERM) in the middle of a burst', { timeout: 120_000 }, async () => {
    const body = { items: [{ productId, quantity: 1 }], paymentMethod: 'wave' };
    const run = randomBytes(4).toString('hex');
    let aStopped = false;
    // The balancer: a request A cannot take (refused, reset) goes to B with the same key.
    const place = async (i: number) => {
      const key = `burst-${run}-${i}`;
      const first = i % 2 === 0 && !aStopped ? a : b;
      const answer = await send(first, 'POST', '/orders', { token: client.token, body, key }).catch(() => null);
      if (answer && answer.status !== 503) return answer;
      return send(b, 'POST', '/orders', { token: client.token, body, key });
    };
    const answers: Promise<Awaited<ReturnType<typeof place>>>[] = [];
    for (let i = 0; i < BURST; i++) {
      answers.push(place(i));
      if (i === BURST / 2) {
        aStopped = true;
        void a.stop('SIGTERM');
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const done = await Promise.all(answers);
    expect(done.map((d) => d.status)).toEqual(Array(BURST).fill(201));
    expect(await a.exited).toBe(0);
    const ids = new Set(done.map((d) => d.body.data.id as string));
    expect(ids.size).toBe(BURST);

    await inspect(async (t) => {
      const orders = await rows<{ n: number }>(
        t.app.ctx.db,
        sql`select count(*)::int as n from orders where idempotency_key like ${`burst-${run}-%`}`,
      );
      expect(orders[0]!.n).toBe(BURST);
      // Every job the burst queued ran in the worker: nothing left waiting or failed.
      const schema = sql.identifier(shared.JOBS_SCHEMA!);
      const deadline = Date.now() + 60_000;
      let left: { state: string; n: number }[] = [];
      do {
        left = await rows(
          t.app.ctx.db,
          sql`select state, count(*)::int as n from ${schema}.job
              where state in ('created', 'retry', 'active', 'failed') and name not like '\\_\\_pgboss%'
                and start_after < now() group by state`,
        );
        if (left.length === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      } while (Date.now() < deadline);
      expect(left).toEqual([]);
      await assertMoneyInvariants(t.app);
    });
  });

  it('runs each cron job once per period, in the worker only', async () => {
    await inspect(async (t) => {
      const schema = sql.identifier(shared.JOBS_SCHEMA!);
      const twice = await rows(
        t.app.ctx.db,
        sql`select singleton_key, singleton_on, count(*)::int as n from ${schema}.job
            where name = '__pgboss__send-it' group by 1, 2 having count(*) > 1`,
      );
      expect(twice).toEqual([]);
    });
    expect(a.output() + b.output()).not.toMatch(/cron|"level":50/);
  });
});
