import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { rows } from '../src/db/client.js';
import { createAssociation } from '../src/modules/associations/associations.test-support.js';
import { admin, newClient, shopWithProducts } from '../src/modules/orders/orders.test-support.js';
import { FakeMobileMoney } from './fakes/mobilemoney.js';
import { buildTestApp } from './helpers/app.js';
import { privateDatabase } from './helpers/database.js';
import { call } from './helpers/http.js';
import { bareEnv, killLeftovers, spawnServer, type ChildServer } from './helpers/child-server.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';

// A server killed (SIGKILL) while orders are being placed and paid, restarted on the same data:
// nothing half-written, no payment credited twice or lost, the jobs it owed run after the restart.

const STOCK = 100;
const ORDERS = 30;
const CLIENTS = 5;

const provider = new FakeMobileMoney();
const lost = new FakeMobileMoney();
const dirs: string[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  killLeftovers();
  await Promise.all([provider.close(), lost.close()]);
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  for (const drop of drops) await drop();
});

/**
 * Where both servers and the in-process apps find the same data. On PostgreSQL a database of its own:
 * the steps change the payment deadline, which every file beside this one would otherwise see.
 */
async function sharedData(): Promise<Record<string, string>> {
  if (process.env.DATABASE_URL) {
    const db = await privateDatabase();
    drops.push(db.drop);
    return { ...db.env, JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}` };
  }
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-orders-crash-'));
  dirs.push(dir);
  return { DATA_DIR: dir };
}

type PaidEvent = ReturnType<FakeMobileMoney['event']>;

describe('orders and payments across a crash', () => {
  it('keeps every reservation, credits each payment once and resumes the jobs after SIGKILL', async () => {
    const providerUrl = await provider.start();
    const shared = await sharedData();
    const providerEnv = {
      MOBILEMONEY_PROVIDER: 'checkout',
      MOBILEMONEY_BASE_URL: providerUrl,
      MOBILEMONEY_API_KEY: provider.apiKey,
      MOBILEMONEY_WEBHOOK_SECRET: provider.webhookSecret,
      // Fixed, as in production: the return URLs are part of the session request, and a retried
      // request (same Idempotency-Key) must be the same request whatever port the server got.
      PUBLIC_BASE_URL: 'http://api.test',
      // The session-opening job of the orders committed before the kill runs this long after each
      // order (30 s by default): the restarted server owes it almost at once.
      MOBILEMONEY_SESSION_RETRY_SECONDS: '2',
    };

    // The marketplace, made in this process on the data the servers will use, without workers.
    const prep = await buildTestApp({ ...shared, ...providerEnv, WORKERS: 'off' });
    const adminToken = (await admin(prep)).token;
    const shop = await shopWithProducts(prep, adminToken, 1, {
      quantity: STOCK,
      pickupStart: '00:00',
      pickupEnd: '23:59',
    });
    const productId = shop.products[0]!.id;
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => newClient(prep)));
    await prep.close();

    const env = bareEnv({
      ...shared,
      ...providerEnv,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      AUTH_RATE_LIMIT_MAX: '1000000',
    });
    const start = async () => {
      const s = await spawnServer({ env });
      await s.waitReady();
      return s;
    };
    const placeOrder = (s: ChildServer, i: number) =>
      fetch(`${s.api}/orders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${clients[i % CLIENTS]!.token}`,
          'idempotency-key': `crash-${i}`,
        },
        body: JSON.stringify({ items: [{ productId, quantity: 1 }], paymentMethod: 'wave' }),
      }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { data?: { id: string } } }),
        () => ({ status: 0, body: {} as { data?: { id: string } } }),
      );

    // Paid at the provider, with the event the provider sent (or tried to send) for it.
    const paid = new Map<string, PaidEvent>();
    const pay = (s: ChildServer, sessionId: string) => {
      const event = provider.event('checkout.session.completed', provider.complete(sessionId));
      paid.set(sessionId, event);
      return provider
        .sendWebhook(`${s.api}/payments/mobilemoney/webhook`, event)
        .catch(() => ({ status: 0, body: '' }));
    };

    const first = await start();
    // The burst: orders in parallel, and each session paid as soon as the provider opened it.
    const placed = Array.from({ length: ORDERS }, (_, i) => placeOrder(first, i));
    const deliveries: Promise<unknown>[] = [];
    const deadline = Date.now() + 30_000;
    while (paid.size < 8 && Date.now() < deadline) {
      for (const id of provider.sessions.keys()) if (!paid.has(id)) deliveries.push(pay(first, id));
      await new Promise((r) => setTimeout(r, 10));
    }
    // In the middle: orders and deliveries still in flight.
    first.child.kill('SIGKILL');
    await first.exited;
    const answers = await Promise.all(placed);
    await Promise.all(deliveries);
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.body.data!.id);
    expect(paid.size).toBeGreaterThanOrEqual(8);

    const second = await start();
    try {
      // The provider delivers again what it may not have delivered: the same events, and the same
      // payments under new event ids. Each payment is credited once whatever arrives.
      for (const [sessionId, event] of paid) {
        expect((await provider.sendWebhook(`${second.api}/payments/mobilemoney/webhook`, event)).status).toBe(200);
        const again = provider.event('checkout.session.completed', provider.sessions.get(sessionId));
        expect((await provider.sendWebhook(`${second.api}/payments/mobilemoney/webhook`, again)).status).toBe(200);
      }
      // The session-opening job of orders committed before the kill runs in the new server (its
      // safety delay is MOBILEMONEY_SESSION_RETRY_SECONDS after the order); then their payers pay too.
      const sessionsOpened = async () =>
        (await fetchPaymentsWithoutSession(
          second,
          clients.map((c) => c.token),
        )) === 0;
      const until = Date.now() + 60_000;
      while (!(await sessionsOpened()) && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
      expect(await sessionsOpened()).toBe(true);
      for (const id of provider.sessions.keys()) {
        if (!paid.has(id)) expect((await pay(second, id)).status).toBe(200);
      }
    } finally {
      await second.stop('SIGTERM');
    }

    // The data as the restarted server left it, read in this process.
    const check = await buildTestApp({ ...shared, ...providerEnv, WORKERS: 'off' });
    try {
      const db = check.app.ctx.db;
      const [product] = await rows<{ quantity: number; reserved: number; sold: number }>(
        db,
        sql`select quantity, reserved_quantity as reserved, sold_quantity as sold from products where id = ${productId}`,
      );
      const orders = await rows<{ id: string; units: number; payments: number; payment_status: string }>(
        db,
        sql`select o.id, (select sum(quantity) from order_items i where i.order_id = o.id)::int as units,
              (select count(*) from payments p where p.order_id = o.id)::int as payments, o.payment_status
            from orders o join order_items i on i.order_id = o.id where i.product_id = ${productId}`,
      );
      // Every order the server answered 201 exists; every order holds its unit and has its payment.
      expect(orders.map((o) => o.id)).toEqual(expect.arrayContaining(acknowledged));
      expect(orders.every((o) => o.units === 1 && o.payments === 1)).toBe(true);
      expect(product!.quantity + product!.reserved + product!.sold).toBe(STOCK);
      expect(product!.reserved).toBe(orders.length);

      // Each payment succeeded at the provider is SUCCEEDED here with exactly one credit.
      const credits = await rows<{ session: string; status: string; received: number; order_status: string }>(
        db,
        sql`select p.provider_session_id as session, p.status, o.payment_status as order_status,
              (select count(*) from ledger_transactions t where t.kind = 'payment_received' and t.idempotency_key = 'payment:' || p.id || ':received')::int as received
            from payments p join orders o on o.id = p.order_id join order_items i on i.order_id = o.id
            where i.product_id = ${productId}`,
      );
      expect(credits).toHaveLength(orders.length);
      for (const c of credits) {
        expect(provider.sessions.get(c.session)?.payment_status, JSON.stringify(c)).toBe('succeeded');
        expect(c).toMatchObject({ status: 'SUCCEEDED', received: 1, order_status: 'PAID' });
      }
      await assertMoneyInvariants(check.app);
    } finally {
      await check.close();
    }
  }, 240_000);
});

/** How many of the clients' orders still wait for their payment page (read through the API). */
async function fetchPaymentsWithoutSession(s: ChildServer, tokens: string[]): Promise<number> {
  let waiting = 0;
  for (const token of tokens) {
    const res = await fetch(`${s.api}/orders/my-orders?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data: { payment: { status: string; redirectUrl: string | null } | null }[] };
    waiting += body.data.filter((o) => !o.payment || (o.payment.status === 'PENDING' && !o.payment.redirectUrl)).length;
  }
  return waiting;
}

describe('an order whose answer was lost in a crash', () => {
  it('is answered again to its Idempotency-Key whatever step the crash hit, its stock held once', async () => {
    const shared = await sharedData();
    const providerEnv = {
      MOBILEMONEY_PROVIDER: 'checkout',
      MOBILEMONEY_BASE_URL: await lost.start(),
      MOBILEMONEY_API_KEY: lost.apiKey,
      MOBILEMONEY_WEBHOOK_SECRET: lost.webhookSecret,
      PUBLIC_BASE_URL: 'http://api.test',
      // The session-opening job stays out of the way until the test runs it (after the restart).
      MOBILEMONEY_SESSION_RETRY_SECONDS: '600',
      // The test moves the clock past the job's delay: the clients' tokens outlive it.
      ACCESS_TOKEN_TTL_SECONDS: '86400',
    };
    const prep = await buildTestApp({ ...shared, ...providerEnv, WORKERS: 'off' });
    const adminToken = (await admin(prep)).token;
    // Nor does the payment deadline come while the test runs that job.
    const longer = await call(prep.app, 'PATCH', '/admin/settings', {
      token: adminToken,
      body: { business: { paymentTimeoutMinutes: 120 }, reason: 'slow payers' },
    });
    expect(longer.status).toBe(200);
    const shop = await shopWithProducts(prep, adminToken, 1, {
      quantity: 10,
      pickupStart: '00:00',
      pickupEnd: '23:59',
    });
    const productId = shop.products[0]!.id;
    // One client per step where the crash hits, each with its own key.
    const steps = ['answered', 'notCommitted', 'providerNotReached', 'providerOpened', 'sessionStored'] as const;
    const clients = Object.fromEntries(await Promise.all(steps.map(async (s) => [s, await newClient(prep)] as const)));
    await prep.close();

    const body = JSON.stringify({ items: [{ productId, quantity: 1 }], paymentMethod: 'wave' });
    const headers = (step: (typeof steps)[number]) => ({
      'content-type': 'application/json',
      authorization: `Bearer ${clients[step]!.token}`,
      'idempotency-key': `lost-${step}`,
    });
    const env = bareEnv({
      ...shared,
      ...providerEnv,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      AUTH_RATE_LIMIT_MAX: '1000000',
    });
    const start = async () => {
      const s = await spawnServer({ env });
      await s.waitReady();
      return s;
    };
    const post = (s: ChildServer, step: (typeof steps)[number]) =>
      fetch(`${s.api}/orders`, { method: 'POST', headers: headers(step), body }).then(
        async (r) => ({ status: r.status, text: await r.text() }),
        () => ({ status: 0, text: '' }),
      );
    /** Places the order with the provider holding its session call, and kills the server the moment the call arrives. */
    const killedAtProvider = async (step: (typeof steps)[number], carriedOut: boolean) => {
      const s = await start();
      lost.holdNext('/v1/checkout/sessions', { carriedOut, onHeld: () => s.child.kill('SIGKILL') });
      expect((await post(s, step)).status).toBe(0);
      await s.exited;
    };

    const first = await start();
    // Answered (so stored as the key's answer), and the answer lost on its way to the client.
    const answered = await post(first, 'answered');
    expect(answered.status).toBe(201);
    // Killed before its transaction committed (the body not even read whole): nothing of it remains.
    const partial = request(`${first.api}/orders`, {
      method: 'POST',
      headers: { ...headers('notCommitted'), 'content-length': String(Buffer.byteLength(body)) },
    });
    partial.on('error', () => {});
    partial.write(body.slice(0, 10));
    // Committed, killed while it waits for a provider that has not opened the session.
    lost.holdNext('/v1/checkout/sessions', { onHeld: () => first.child.kill('SIGKILL') });
    expect((await post(first, 'providerNotReached')).status).toBe(0);
    await first.exited;
    // The provider opened the session, its answer never came back: killed then.
    await killedAtProvider('providerOpened', true);
    // The same; the restarted server's job stores the session before the retry comes, so the retry
    // finds the state of a crash after the provider answered and before the answer was stored.
    await killedAtProvider('sessionStored', true);

    const t = await buildTestApp({ ...shared, ...providerEnv });
    try {
      const retry = (step: (typeof steps)[number]) =>
        call(t.app, 'POST', '/orders', {
          token: clients[step]!.token,
          headers: { 'idempotency-key': `lost-${step}` },
          body: JSON.parse(body),
        });
      const ordersOf = async (step: (typeof steps)[number]) =>
        (await call(t.app, 'GET', '/orders/my-orders', { token: clients[step]!.token })).body.data as { id: string }[];
      const sessionsOf = (transactionId: string) =>
        [...lost.sessions.values()].filter((x) => x.client_reference === transactionId);
      const expectResumed = async (step: (typeof steps)[number]) => {
        const res = await retry(step);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.headers['idempotent-replayed']).toBe('true');
        expect((await ordersOf(step)).map((o) => o.id)).toEqual([res.body.data.id]);
        expect(res.body.data.payment.status).toBe('PENDING');
        // The page, unless the provider took longer than the answer waits for it (then the order says so).
        const page = res.body.data.payment.redirectUrl as string | null;
        if (page) expect(sessionsOf(res.body.data.payment.transactionId).map((x) => x.wave_launch_url)).toEqual([page]);
        // The answer given is now the key's: the next retry replays it.
        const again = await retry(step);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body).toEqual(res.body);
        return res.body.data.payment.transactionId as string;
      };

      // A minute after the crash, a key still running belongs to a request whose process died.
      t.clock.advance(61_000);

      const replayed = await retry('answered');
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(JSON.stringify(replayed.body)).toBe(answered.text);
      const fresh = await retry('notCommitted');
      expect(fresh.status).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      const resumed = [await expectResumed('providerNotReached'), await expectResumed('providerOpened')];
      t.clock.advance(600_000);
      await t.app.jobs.drain();
      resumed.push(await expectResumed('sessionStored'));
      // One session per payment, whoever opened it: the payment id is the provider's idempotency key.
      for (const id of resumed) expect(sessionsOf(id)).toHaveLength(1);

      // One order per request, and the product holds one unit per order.
      for (const step of steps) expect(await ordersOf(step)).toHaveLength(1);
      const [product] = await rows<{ reserved: number }>(
        t.app.ctx.db,
        sql`select reserved_quantity as reserved from products where id = ${productId}`,
      );
      expect(product!.reserved).toBe(steps.length);
      await assertMoneyInvariants(t.app);
    } finally {
      await t.close();
    }
  }, 600_000);
});

describe('a financial donation whose answer was lost in a crash', () => {
  it('is answered again to its Idempotency-Key: one donation, one session', async () => {
    const shared = await sharedData();
    const providerEnv = {
      MOBILEMONEY_PROVIDER: 'checkout',
      MOBILEMONEY_BASE_URL: lost.url || (await lost.start()),
      MOBILEMONEY_API_KEY: lost.apiKey,
      MOBILEMONEY_WEBHOOK_SECRET: lost.webhookSecret,
      PUBLIC_BASE_URL: 'http://api.test',
    };
    const prep = await buildTestApp({ ...shared, ...providerEnv, WORKERS: 'off' });
    const donor = await newClient(prep);
    const association = (await createAssociation(prep.app)).association;
    await prep.close();

    const body = { associationId: association.id, amount: 5000, paymentMethod: 'wave' };
    const s = await spawnServer({
      env: bareEnv({
        ...shared,
        ...providerEnv,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '1000000',
        AUTH_RATE_LIMIT_MAX: '1000000',
      }),
    });
    await s.waitReady();
    // Committed, killed while the provider (which opened the session) has not answered yet.
    lost.holdNext('/v1/checkout/sessions', { carriedOut: true, onHeld: () => s.child.kill('SIGKILL') });
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${donor.token}`,
      'idempotency-key': 'gift-1',
    };
    const first = await fetch(`${s.api}/donations/financial`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    }).then(
      (r) => r.status,
      () => 0,
    );
    expect(first).toBe(0);
    await s.exited;

    const t = await buildTestApp({ ...shared, ...providerEnv });
    try {
      t.clock.advance(61_000);
      const retry = () =>
        call(t.app, 'POST', '/donations/financial', {
          token: donor.token,
          headers: { 'idempotency-key': 'gift-1' },
          body,
        });
      const res = await retry();
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body.data.payment.status).toBe('PENDING');
      const made = await rows<{ id: string }>(
        t.app.ctx.db,
        sql`select id from donations where donor_user_id = ${donor.user.id}`,
      );
      expect(made.map((d) => d.id)).toEqual([res.body.data.donation.id]);
      expect(
        [...lost.sessions.values()].filter((x) => x.client_reference === res.body.data.payment.transactionId),
      ).toHaveLength(1);
      expect((await retry()).body).toEqual(res.body);
      await assertMoneyInvariants(t.app);
    } finally {
      await t.close();
    }
  }, 600_000);
});
