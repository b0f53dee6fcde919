import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { escrow as escrowAccount, refundsPending } from '../ledger/accounts.js';
import { payThroughWebhook, postWebhook, type WebhookDelivery } from '../payments/payments.test-support.js';
import { RECONCILE_JOB } from '../payments/settlement.service.js';
import { admin, newClient, orderOk, shopWithProducts } from './orders.test-support.js';

let t: TestApp;
let adminToken: string;
let shop: Awaited<ReturnType<typeof shopWithProducts>>;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
  shop = await shopWithProducts(t, adminToken, 1, { quantity: 500 });
});
afterAll(() => t.close());
// Every test here moves money: the ledger, escrow and stock invariants hold after each.
afterEach(() => assertMoneyInvariants(t.app));

const db = () => t.app.ctx.db;

const deliver = (event: unknown, opts?: WebhookDelivery) => postWebhook(t, event, opts);

/** A client with a fresh order whose payment session is open at the fake provider. */
async function openOrder() {
  const c = await newClient(t);
  const order = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
  const session = [...t.mobilemoney.sessions.values()].find((s) => s.client_reference === order.payment.transactionId)!;
  expect(session).toBeDefined();
  return { c, order, session };
}

const completed = (sessionId: string) =>
  t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(sessionId));
const payment = (id: string) => t.app.services.payments.find(db(), id);
const orderOf = async (token: string, id: string) => (await call(t.app, 'GET', `/orders/${id}`, { token })).body.data;
const balance = (account: string) => t.app.services.ledger.balance(db(), account);
const received = async (orderId: string) =>
  (await t.app.services.ledger.transactionsFor(db(), { type: 'order', id: orderId })).filter(
    (x) => x.kind === 'payment_received',
  );
const storedEvents = async (paymentId: string) =>
  rows<{ id: string; outcome: string }>(
    db(),
    sql`select id, outcome from provider_events where payment_id = ${paymentId} order by received_at, id`,
  );
const refundCalls = (sessionId: string) => t.mobilemoney.calls(`/v1/checkout/sessions/${sessionId}/refund`);

describe('payment received', () => {
  it('credits once: the same delivery again answers 200 and changes nothing', async () => {
    const { c, order, session } = await openOrder();
    const event = completed(session.id);
    const first = await deliver(event);
    expect(first, JSON.stringify(first.body)).toMatchObject({
      status: 200,
      body: { success: true, data: { received: true, outcome: 'applied' } },
    });
    expect(await deliver(event)).toMatchObject({ status: 200, body: { data: { outcome: 'duplicate' } } });
    const p = (await payment(order.payment.transactionId))!;
    expect(p).toMatchObject({ status: 'SUCCEEDED', providerTransactionId: session.transaction_id });
    expect(await orderOf(c.token, order.id)).toMatchObject({ status: 'PENDING', paymentStatus: 'PAID' });
    expect(await t.app.services.escrow.find(db(), order.id)).toMatchObject({
      state: 'HELD',
      amount: order.itemsTotal,
      paymentId: p.id,
    });
    expect(await received(order.id)).toHaveLength(1);
    expect(await balance(escrowAccount(order.id))).toBe(-order.itemsTotal);
    expect(await storedEvents(p.id)).toEqual([{ id: event.id, outcome: 'applied' }]);
  });

  it('survives a storm: one event 50 times at once and failures arriving after the success credit exactly once', async () => {
    const { order, session } = await openOrder();
    const event = completed(session.id);
    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver(event)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.data.outcome === 'applied')).toHaveLength(1);
    // Out of order: failures of earlier tries on the same session, delivered after the success.
    const late = await Promise.all(
      [1, 2, 3].map(() =>
        deliver(
          t.mobilemoney.event('checkout.session.payment_failed', {
            ...(event.data as object),
            payment_status: 'processing',
            last_payment_error: { code: 'insufficient-funds', message: 'no money' },
          }),
        ),
      ),
    );
    expect(late.map((a) => a.body.data.outcome)).toEqual(['ignored', 'ignored', 'ignored']);
    expect((await payment(order.payment.transactionId))!.status).toBe('SUCCEEDED');
    expect(await received(order.id)).toHaveLength(1);
    expect(await balance(escrowAccount(order.id))).toBe(-order.itemsTotal);
  });

  it('credits a payment whose session was opened at the provider but never stored (the server stopped in between)', async () => {
    const { c, order, session } = await openOrder();
    // What a process killed between the provider's answer and saving it leaves: no session on the attempt.
    await db().execute(
      sql`update payments set provider = null, provider_session_id = null, launch_url = null where id = ${order.payment.transactionId}`,
    );
    expect(await deliver(completed(session.id))).toMatchObject({ status: 200, body: { data: { outcome: 'applied' } } });
    expect(await payment(order.payment.transactionId)).toMatchObject({
      status: 'SUCCEEDED',
      providerSessionId: session.id,
    });
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'PAID' });
    expect(await received(order.id)).toHaveLength(1);
  });

  it('does not credit an event whose amount, currency or session does not match the payment', async () => {
    const { c, order, session } = await openOrder();
    const paid = t.mobilemoney.complete(session.id);
    for (const data of [
      { ...paid, amount: '1' },
      { ...paid, currency: 'EUR' },
      { ...paid, id: 'cos-someoneelse' },
    ]) {
      const res = await deliver(t.mobilemoney.event('checkout.session.completed', data));
      expect(res).toMatchObject({ status: 200, body: { data: { outcome: 'rejected_mismatch' } } });
    }
    expect((await payment(order.payment.transactionId))!.status).toBe('PENDING');
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'UNPAID' });
    expect(await received(order.id)).toHaveLength(0);
    expect((await storedEvents(order.payment.transactionId)).map((e) => e.outcome)).toEqual([
      'rejected_mismatch',
      'rejected_mismatch',
      'rejected_mismatch',
    ]);
  });

  it('marks a failure, keeps the order waiting, and a later success of the same session wins', async () => {
    const { c, order, session } = await openOrder();
    const failed = await deliver(
      t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session.id)),
    );
    expect(failed.body.data.outcome).toBe('applied');
    expect(await payment(order.payment.transactionId)).toMatchObject({
      status: 'FAILED',
      failureReason: 'The payer does not have enough money',
    });
    expect(await orderOf(c.token, order.id)).toMatchObject({ status: 'PENDING', paymentStatus: 'UNPAID' });
    expect((await deliver(completed(session.id))).body.data.outcome).toBe('applied');
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'PAID' });
  });
});

describe('refunds', () => {
  it('refunds a payment arriving for a cancelled order: the provider is asked once, the order ledger back to zero', async () => {
    const { c, order, session } = await openOrder();
    expect(
      (await call(t.app, 'POST', `/orders/${order.id}/cancel`, { token: c.token, body: { reason: 'changed my mind' } }))
        .status,
    ).toBe(200);
    await t.app.jobs.drain();
    const res = await deliver(completed(session.id));
    expect(res.body.data.outcome).toBe('refunded');
    await t.app.jobs.drain();
    await t.app.jobs.drain();
    expect(refundCalls(session.id)).toHaveLength(1);
    const p = (await payment(order.payment.transactionId))!;
    expect(p).toMatchObject({ status: 'REFUNDED', refundFailedAt: null });
    expect(await t.app.services.escrow.find(db(), order.id)).toMatchObject({
      state: 'REFUNDED',
      refundReason: 'ORDER_CLOSED',
    });
    expect(await balance(escrowAccount(order.id))).toBe(0);
    expect(await balance(refundsPending(p.id))).toBe(0);
    expect(await orderOf(c.token, order.id)).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    const inbox = await call(t.app, 'GET', '/notifications', { token: c.token });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('payment_refunded');
  });

  it('retries a refund through a provider outage (503 twice) and then completes it with the same key', async () => {
    const { c, order, session } = await openOrder();
    await deliver(completed(session.id));
    t.mobilemoney.failNext(
      2,
      { status: 503, body: { code: 'service-unavailable', message: 'down' } },
      `/v1/checkout/sessions/${session.id}/refund`,
    );
    expect((await call(t.app, 'POST', `/orders/${order.id}/cancel`, { token: c.token, body: {} })).status).toBe(200);
    await t.app.jobs.drain();
    expect(refundCalls(session.id)).toHaveLength(1);
    expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'REFUND_PENDING' });
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'REFUND_PENDING' });
    for (let i = 0; i < 3 && refundCalls(session.id).length < 3; i++) {
      t.clock.advance(5 * 60_000);
      await t.app.jobs.drain();
    }
    const calls = refundCalls(session.id);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'REFUNDED' });
    expect(await t.app.services.escrow.find(db(), order.id)).toMatchObject({ state: 'REFUNDED' });
    expect(t.mobilemoney.sessions.get(session.id)!.refunded).toBe(true);
  });

  it('marks a refund the provider refuses for good, for administrators to settle', async () => {
    const { c, order, session } = await openOrder();
    expect((await payThroughWebhook(t, order.id)).outcome).toBe('applied');
    t.mobilemoney.failNext(
      1,
      { status: 400, body: { code: 'checkout-refund-failed', message: 'too late to refund' } },
      `/v1/checkout/sessions/${session.id}/refund`,
    );
    await call(t.app, 'POST', `/orders/${order.id}/cancel`, { token: c.token, body: {} });
    await t.app.jobs.drain();
    const p = (await payment(order.payment.transactionId))!;
    expect(p.status).toBe('REFUND_PENDING');
    expect(p.refundFailureReason).toContain('too late to refund');
    expect((await t.app.services.payments.settlement.refundFailures()).map((x) => x.id)).toContain(p.id);
    // The money waits in refunds_pending for the administrators.
    expect(await balance(refundsPending(p.id))).toBe(-order.itemsTotal);
  });
});

describe('cancellation racing the payment', () => {
  it('refunds the money once whichever commits first, with no deadlock', async () => {
    for (let i = 0; i < 3; i++) {
      const { c, order, session } = await openOrder();
      const [cancelled, paid] = await Promise.all([
        call(t.app, 'POST', `/orders/${order.id}/cancel`, { token: c.token, body: {} }),
        deliver(completed(session.id)),
      ]);
      expect(cancelled.status).toBe(200);
      expect(paid.status).toBe(200);
      await t.app.jobs.drain();
      expect(refundCalls(session.id)).toHaveLength(1);
      expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'REFUNDED' });
      expect(await balance(escrowAccount(order.id))).toBe(0);
      expect(await orderOf(c.token, order.id)).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    }
  });
});

describe('escrow refunds', () => {
  it('refunds a disputed escrow as resolved for the client, and refuses one already released', async () => {
    const { order } = await openOrder();
    await payThroughWebhook(t, order.id);
    const { escrow } = t.app.services;
    const system = { userId: null, role: 'SYSTEM' as const };
    await db().execute(
      sql`update escrows set state = 'DISPUTED', dispute_reason = 'missing item', dispute_opened_at = now() where order_id = ${order.id}`,
    );
    const resolved = await db().transaction((tx) =>
      t.app.services.orders.settlement.refund(tx, {
        orderId: order.id,
        reason: 'dispute lost by the supplier',
        actor: system,
      }),
    );
    expect(resolved).toMatchObject({ state: 'RESOLVED_CLIENT', refundReason: 'dispute lost by the supplier' });
    expect(resolved.disputeResolvedAt).not.toBeNull();
    // Again: already refunded, nothing moves.
    await db().transaction((tx) => escrow.refund(tx, order.id, 'again', system));
    await t.app.jobs.drain();
    expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'REFUNDED' });
    expect(await balance(escrowAccount(order.id))).toBe(0);

    const other = await openOrder();
    await payThroughWebhook(t, other.order.id);
    await db().execute(sql`update escrows set state = 'RELEASED' where order_id = ${other.order.id}`);
    await expect(db().transaction((tx) => escrow.refund(tx, other.order.id, 'too late', system))).rejects.toMatchObject(
      { statusCode: 409, code: 'INVALID_TRANSITION' },
    );
    // Put back as it was, so the money checks (which hold RELEASED to an empty account) pass.
    await db().execute(sql`update escrows set state = 'HELD' where order_id = ${other.order.id}`);
  });
});

describe('reconciliation', () => {
  it('settles a payment whose webhook was lost, and the late webhook then changes nothing', async () => {
    const { c, order, session } = await openOrder();
    const event = completed(session.id);
    // Too recent: left to the webhook.
    await t.app.ctx.jobs.send(RECONCILE_JOB, {});
    await t.app.jobs.drain();
    expect((await payment(order.payment.transactionId))!.status).toBe('PENDING');
    t.clock.advance(3 * 60_000);
    await t.app.ctx.jobs.send(RECONCILE_JOB, {});
    await t.app.jobs.drain();
    expect((await payment(order.payment.transactionId))!.status).toBe('SUCCEEDED');
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'PAID' });
    expect((await deliver(event)).body.data.outcome).toBe('ignored');
    expect(await received(order.id)).toHaveLength(1);
    expect((await storedEvents(order.payment.transactionId)).map((e) => e.id)).toEqual([
      `recon:${session.id}:succeeded`,
      event.id,
    ]);
  });

  it('expires a payment whose session expired', async () => {
    const { c, order, session } = await openOrder();
    t.mobilemoney.expire(session.id);
    t.clock.advance(3 * 60_000);
    expect(await t.app.services.payments.settlement.reconcile()).toBeGreaterThanOrEqual(1);
    expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'EXPIRED' });
    expect(await orderOf(c.token, order.id)).toMatchObject({ status: 'PENDING', paymentStatus: 'UNPAID' });
  });
});

describe('POST /payments/retry/:orderId', () => {
  it('opens a new attempt after a failure, only for the client, only once at a time', async () => {
    const { c, order, session } = await openOrder();
    expect((await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: c.token })).body.error.code).toBe(
      'PAYMENT_NOT_RETRYABLE',
    );
    await deliver(t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session.id)));
    const other = await newClient(t);
    expect((await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: other.token })).status).toBe(404);
    const res = await call(t.app, 'POST', `/payments/retry/${order.id}`, {
      token: c.token,
      headers: { 'idempotency-key': `retry-${order.id}` },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      orderId: order.id,
      payment: { status: 'PENDING', attempt: 2, amount: order.itemsTotal },
    });
    expect(res.body.data.payment.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/c\/cos-/);
    // The same key replays the answer; a new key finds a payment already waiting.
    const replay = await call(t.app, 'POST', `/payments/retry/${order.id}`, {
      token: c.token,
      headers: { 'idempotency-key': `retry-${order.id}` },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.payment.transactionId).toBe(res.body.data.payment.transactionId);
    expect((await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: c.token })).status).toBe(409);
    await t.app.jobs.drain();
    // The failed attempt's session is closed so it cannot be paid any more.
    expect(t.mobilemoney.sessions.get(session.id)!.checkout_status).toBe('expired');
    const second = [...t.mobilemoney.sessions.values()].find(
      (s) => s.client_reference === res.body.data.payment.transactionId,
    )!;
    expect((await deliver(completed(second.id))).body.data.outcome).toBe('applied');
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'PAID' });
    expect((await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: c.token })).body.error.code).toBe(
      'PAYMENT_NOT_RETRYABLE',
    );
  });

  it('refunds the first attempt when it is paid after the second one was', async () => {
    const { c, order, session } = await openOrder();
    await deliver(t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session.id)));
    const retry = await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: c.token });
    const second = [...t.mobilemoney.sessions.values()].find(
      (s) => s.client_reference === retry.body.data.payment.transactionId,
    )!;
    await deliver(completed(second.id));
    // The payer had the old page open and paid there too, before its session was closed.
    expect((await deliver(completed(session.id))).body.data.outcome).toBe('refunded');
    await t.app.jobs.drain();
    expect(await payment(order.payment.transactionId)).toMatchObject({ status: 'REFUNDED' });
    expect(refundCalls(session.id)).toHaveLength(1);
    expect(await t.app.services.escrow.find(db(), order.id)).toMatchObject({
      state: 'HELD',
      paymentId: retry.body.data.payment.transactionId,
    });
    expect(await balance(escrowAccount(order.id))).toBe(-order.itemsTotal);
    expect(await orderOf(c.token, order.id)).toMatchObject({ paymentStatus: 'PAID' });
  });

  it('refuses an order that is no longer pending', async () => {
    const { c, order } = await openOrder();
    await call(t.app, 'POST', `/orders/${order.id}/cancel`, { token: c.token, body: {} });
    const res = await call(t.app, 'POST', `/payments/retry/${order.id}`, { token: c.token });
    expect(res).toMatchObject({ status: 409, body: { error: { code: 'ORDER_NOT_PENDING' } } });
    expect((await call(t.app, 'POST', '/payments/retry/not-a-uuid', { token: c.token })).status).toBe(400);
  });
});

describe('return pages', () => {
  it('show the real state, asking the provider while the payment waits, whatever the URL claims', async () => {
    const { order, session } = await openOrder();
    const page = async (which: string, query: Record<string, string>) =>
      call(t.app, 'GET', `/payments/mobilemoney/${which}`, { query });
    const waiting = await page('success', { ref: order.payment.transactionId, status: 'SUCCEEDED' });
    expect(waiting.status).toBe(200);
    expect(waiting.headers['content-type']).toContain('text/html');
    expect(waiting.body).toContain('data-status="PENDING"');
    t.mobilemoney.complete(session.id);
    const paid = await page('error', { ref: order.payment.transactionId });
    expect(paid.body).toContain('data-status="SUCCEEDED"');
    expect((await payment(order.payment.transactionId))!.status).toBe('SUCCEEDED');
    expect((await page('success', { ref: '0190aaaa-0000-7000-8000-000000000000' })).status).toBe(404);
    const bad = await page('success', { ref: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('query.ref');
  });
});
