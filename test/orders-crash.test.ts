import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { rows } from '../src/db/client.js';
import { admin, newClient, shopWithProducts } from '../src/modules/orders/orders.test-support.js';
import { FakeMobileMoney } from './fakes/mobilemoney.js';
import { buildTestApp } from './helpers/app.js';
import { bareEnv, killLeftovers, spawnServer, type ChildServer } from './helpers/child-server.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';

// A server killed (SIGKILL) while orders are being placed and paid, restarted on the same data:
// nothing half-written, no payment credited twice or lost, the jobs it owed run after the restart.

const STOCK = 100;
const ORDERS = 30;
const CLIENTS = 5;

const provider = new FakeMobileMoney();
const dirs: string[] = [];
afterAll(async () => {
  killLeftovers();
  await provider.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** Where both servers and the in-process apps find the same data. */
function sharedData(): Record<string, string> {
  if (process.env.DATABASE_URL) return { DATABASE_URL: process.env.DATABASE_URL, JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}` };
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-orders-crash-'));
  dirs.push(dir);
  return { DATA_DIR: dir };
}

type PaidEvent = ReturnType<FakeMobileMoney['event']>;

describe('orders and payments across a crash', () => {
  it('keeps every reservation, credits each payment once and resumes the jobs after SIGKILL', async () => {
    const providerUrl = await provider.start();
    const shared = sharedData();
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
    const shop = await shopWithProducts(prep, adminToken, 1, { quantity: STOCK, pickupStart: '00:00', pickupEnd: '23:59' });
    const productId = shop.products[0]!.id;
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => newClient(prep)));
    await prep.close();

    const env = bareEnv({ ...shared, ...providerEnv, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000', AUTH_RATE_LIMIT_MAX: '1000000' });
    const start = async () => {
      const s = await spawnServer({ env });
      await s.waitReady();
      return s;
    };
    const placeOrder = (s: ChildServer, i: number) =>
      fetch(`${s.api}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${clients[i % CLIENTS]!.token}`, 'idempotency-key': `crash-${i}` },
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
      return provider.sendWebhook(`${s.api}/payments/mobilemoney/webhook`, event).catch(() => ({ status: 0, body: '' }));
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
        (await fetchPaymentsWithoutSession(second, clients.map((c) => c.token))) === 0;
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
      const [product] = await rows<{ quantity: number; reserved: number; sold: number }>(db, sql`select quantity, reserved_quantity as reserved, sold_quantity as sold from products where id = ${productId}`);
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
