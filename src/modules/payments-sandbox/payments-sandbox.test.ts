import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { type SandboxDelivered, SandboxPayments } from '../../providers/payments/sandbox.js';
import { parseProviderEvent, verifyWebhookSignature } from '../../providers/payments/signature.js';
import { admin, newClient, productState, shopWithProducts } from '../orders/orders.test-support.js';

let t: TestApp;
let sandbox: SandboxPayments;
const delivered: SandboxDelivered[] = [];
beforeAll(async () => {
  t = await buildTestApp({ MOBILEMONEY_PROVIDER: 'sandbox', PUBLIC_BASE_URL: 'https://api.foodsave.test' });
  sandbox = t.app.ctx.payments as SandboxPayments;
  sandbox.deliveryListeners.add((d) => delivered.push(d));
});
afterAll(() => t.close());

const create = (over: { amount?: number; clientReference?: string; idempotencyKey?: string } = {}) =>
  sandbox.createSession({
    amount: 1500,
    currency: 'XOF',
    clientReference: randomUUID(),
    method: 'wave',
    successUrl: 'https://api.foodsave.test/api/v1/payments/callback/success?ref=1',
    errorUrl: 'https://api.foodsave.test/api/v1/payments/callback/error?ref=1',
    idempotencyKey: randomUUID(),
    ...over,
  });
const page = (path: string, method = 'GET') =>
  t.app.inject({
    method: method as 'GET',
    url: path,
    ...(method === 'POST' && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }),
  });
const path = (launchUrl: string) => new URL(launchUrl).pathname;
const secrets = () => sandbox.webhookSecrets;
const now = () => Math.floor(t.clock.now().getTime() / 1000);

describe('payment sandbox', () => {
  it('is the provider in use, with its launch URL under PUBLIC_BASE_URL, and keeps sessions by idempotency key', async () => {
    expect(sandbox.name).toBe('sandbox');
    const key = randomUUID();
    const ref = randomUUID();
    const s = await create({ idempotencyKey: key, clientReference: ref });
    expect(s.id).toMatch(/^cos-sbx-[0-9a-f-]{36}$/);
    expect(s.launchUrl).toBe(`https://api.foodsave.test/api/v1/payments/sandbox/checkout/${s.id}`);
    expect(s).toMatchObject({ amount: 1500, checkoutStatus: 'open', paymentStatus: 'processing', transactionId: null });
    expect(s.expiresAt.getTime() - s.createdAt.getTime()).toBe(30 * 60_000);
    expect((await create({ idempotencyKey: key, clientReference: ref })).id).toBe(s.id);
    await expect(create({ idempotencyKey: key, amount: 2000, clientReference: ref })).rejects.toMatchObject({
      status: 422,
      retryable: false,
    });
    expect(await sandbox.getSession(s.id)).toEqual(s);
    // Kept in the database: another instance (a restarted process) knows the session and the key.
    const restarted = new SandboxPayments(t.app.ctx.db, t.clock, 'https://api.foodsave.test', sandbox.webhookSecrets);
    expect(await restarted.getSession(s.id)).toEqual(s);
    expect(
      (
        await restarted.createSession({
          amount: 1500,
          currency: 'XOF',
          clientReference: ref,
          method: 'wave',
          successUrl: 'https://x.test/s',
          errorUrl: 'https://x.test/e',
          idempotencyKey: key,
        })
      ).id,
    ).toBe(s.id);
    // Pages for people, not API operations: the OpenAPI document leaves them out.
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.body).not.toContain('/payments/sandbox');
  });

  it('shows the amount, reference and both buttons; Pay completes, sends the signed webhook and redirects to success_url', async () => {
    const s = await create({ amount: 12500 });
    const res = await page(path(s.launchUrl));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toMatch(/12\s500 XOF/);
    expect(res.body).toContain(s.clientReference);
    expect(res.body).toContain(`action="/api/v1/payments/sandbox/checkout/${s.id}/pay"`);
    expect(res.body).toContain(`action="/api/v1/payments/sandbox/checkout/${s.id}/fail"`);
    expect(res.body).not.toContain('<script');

    const before = delivered.length;
    const paid = await page(`${path(s.launchUrl)}/pay`, 'POST');
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('https://api.foodsave.test/api/v1/payments/callback/success?ref=1');
    expect(delivered.length).toBe(before + 1);
    const d = delivered.at(-1)!;
    // No webhook route yet answers 404 in this build; the body and its signature are what the provider would send.
    expect(verifyWebhookSignature(d.signature, Buffer.from(d.rawBody), secrets(), now())).toBe(true);
    const event = parseProviderEvent(d.rawBody);
    expect(event.id).toMatch(/^EV_sbx_/);
    expect(event).toMatchObject({
      type: 'checkout.session.completed',
      session: {
        id: s.id,
        amount: 12500,
        clientReference: s.clientReference,
        checkoutStatus: 'complete',
        paymentStatus: 'succeeded',
      },
    });
    expect(JSON.parse(d.rawBody).data).toMatchObject({
      amount: '12500',
      success_url: 'https://api.foodsave.test/api/v1/payments/callback/success?ref=1',
      wave_launch_url: s.launchUrl,
    });
    const after = await sandbox.getSession(s.id);
    expect(after.transactionId).toMatch(/^TSBX/);
    expect(after.completedAt).toBeInstanceOf(Date);

    // A second Pay (double click, back button) sends nothing more and goes on to the same place.
    const again = await page(`${path(s.launchUrl)}/pay`, 'POST');
    expect(again.statusCode).toBe(303);
    expect(delivered.length).toBe(before + 1);
    const done = await page(path(s.launchUrl));
    expect(done.body).toContain('This payment is complete.');
    expect(done.body).not.toContain('<form');
  });

  it('Fail leaves the session open with the error, sends payment_failed and redirects to error_url', async () => {
    const s = await create();
    const before = delivered.length;
    const failed = await page(`${path(s.launchUrl)}/fail`, 'POST');
    expect(failed.statusCode).toBe(303);
    expect(failed.headers.location).toBe('https://api.foodsave.test/api/v1/payments/callback/error?ref=1');
    const d = delivered[before]!;
    expect(verifyWebhookSignature(d.signature, Buffer.from(d.rawBody), secrets(), now())).toBe(true);
    expect(parseProviderEvent(d.rawBody)).toMatchObject({
      type: 'checkout.session.payment_failed',
      session: {
        id: s.id,
        checkoutStatus: 'open',
        paymentStatus: 'processing',
        lastPaymentError: { code: 'payment-declined' },
      },
    });
    const retry = await page(path(s.launchUrl));
    expect(retry.body).toContain('Last attempt failed');
    expect(retry.body).toContain('/pay"');
  });

  it('shows an expired session without buttons, refuses to pay it, and reports it expired', async () => {
    const s = await create();
    t.clock.advance(31 * 60_000);
    const res = await page(path(s.launchUrl));
    expect(res.body).toContain('This payment session has expired.');
    expect(res.body).not.toContain('<form');
    const before = delivered.length;
    expect((await page(`${path(s.launchUrl)}/pay`, 'POST')).statusCode).toBe(409);
    expect(delivered.length).toBe(before);
    expect(await sandbox.getSession(s.id)).toMatchObject({ checkoutStatus: 'expired', paymentStatus: 'cancelled' });
    expect(
      (await page('/api/v1/payments/sandbox/checkout/cos-sbx-00000000-0000-0000-0000-000000000000')).statusCode,
    ).toBe(404);
  });

  it('escapes what it shows', async () => {
    const s = await create({ clientReference: '<img src=x onerror=alert(1)>"&' });
    const res = await page(path(s.launchUrl));
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&amp;');
    expect(res.body).not.toContain('<img');
  });

  it('expires and refunds sessions, idempotently', async () => {
    const open = await create();
    expect(await sandbox.expireSession(open.id)).toMatchObject({ checkoutStatus: 'expired' });
    expect(await sandbox.expireSession(open.id)).toMatchObject({ checkoutStatus: 'expired' });
    await expect(sandbox.refundSession(open.id, randomUUID())).rejects.toMatchObject({ status: 409, retryable: false });
    const paid = await create();
    await page(`${path(paid.launchUrl)}/pay`, 'POST');
    await sandbox.refundSession(paid.id, 'r1');
    const first = await sandbox.refundedAt(paid.id);
    expect(first).toBeInstanceOf(Date);
    await sandbox.refundSession(paid.id, 'r1');
    expect(await sandbox.refundedAt(paid.id)).toEqual(first);
    expect(await sandbox.expireSession(paid.id)).toMatchObject({ checkoutStatus: 'complete' });
  });

  it('pays out at once, fails payouts to numbers ending in 0000, and reports both by webhook', async () => {
    const input = {
      amount: 9000,
      currency: 'XOF',
      mobile: '+221771234567',
      name: 'Boulangerie',
      clientReference: randomUUID(),
      idempotencyKey: randomUUID(),
    };
    const before = delivered.length;
    const ok = await sandbox.createPayout(input);
    expect(ok).toMatchObject({ status: 'succeeded', amount: 9000, error: null });
    expect(ok.id).toMatch(/^pt-sbx-/);
    expect((await sandbox.createPayout(input)).id).toBe(ok.id);
    const ko = await sandbox.createPayout({ ...input, mobile: '+221770000000', idempotencyKey: randomUUID() });
    expect(ko).toMatchObject({ status: 'failed', error: { code: 'recipient-not-found' } });
    expect(await sandbox.getPayout(ko.id)).toEqual(ko);
    await sandbox.settled();
    // Each payout's event leaves on its own: they may arrive in either order.
    const events = delivered.slice(before).map((d) => parseProviderEvent(d.rawBody));
    expect(events.map((e) => e.type).sort()).toEqual(['payout.completed', 'payout.failed']);
    expect(events.find((e) => e.type === 'payout.completed')).toMatchObject({
      payout: { id: ok.id, amount: 9000, status: 'succeeded' },
    });
  });
});

describe('an order paid through the sandbox', () => {
  it("opens its session with the order, and an Idempotency-Key's answer commits with it: the replay is what was sent", async () => {
    const { token: adminToken } = await admin(t);
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    const key = `order-${randomUUID()}`;
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 1 }], paymentMethod: 'wave' };
    const first = await call(t.app, 'POST', '/orders', { token: c.token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.body.data.payment.redirectUrl).toMatch(/\/payments\/sandbox\/checkout\/cos-sbx-/);
    const [row] = await rows<{ state: string; status_code: number; response_body: string }>(
      t.app.ctx.db,
      sql`select state, status_code, response_body from idempotency_keys where key = ${key}`,
    );
    expect(row).toMatchObject({ state: 'done', status_code: 201 });
    expect(JSON.parse(row!.response_body)).toEqual(first.body);
    const again = await call(t.app, 'POST', '/orders', { token: c.token, body, headers: { 'idempotency-key': key } });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    // Past its replay window the key is forgotten, but the order keeps it: no second order.
    await t.app.ctx.db.execute(
      sql`update idempotency_keys set expires_at = ${new Date(t.clock.now().getTime() - 1000)} where key = ${key}`,
    );
    const late = await call(t.app, 'POST', '/orders', { token: c.token, body, headers: { 'idempotency-key': key } });
    expect([late.status, late.body.error?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await productState(t, shop.products[0]!.id)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
    await assertMoneyInvariants(t.app);
  });

  it("creates one order for a key sent 20 times at once (the others wait at the order's insert, then replay or get 409)", async () => {
    const { token: adminToken } = await admin(t);
    const shop = await shopWithProducts(t, adminToken, 1, { quantity: 5 });
    const c = await newClient(t);
    const headers = { 'idempotency-key': `order-${randomUUID()}` };
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 1 }], paymentMethod: 'wave' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', '/orders', { token: c.token, body, headers })),
    );
    const fresh = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed']);
    expect(fresh).toHaveLength(1);
    for (const r of answers.filter((a) => a !== fresh[0])) {
      if (r.status === 409) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      else expect([r.status, r.headers['idempotent-replayed'], r.body]).toEqual([201, 'true', fresh[0]!.body]);
    }
    expect(await productState(t, shop.products[0]!.id)).toEqual({ quantity: 4, reserved: 1, sold: 0 });
    await assertMoneyInvariants(t.app);
  });
});
