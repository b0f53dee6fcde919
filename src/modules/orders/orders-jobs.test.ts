import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvents } from '../../jobs/event-types.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { deliverWebhook } from '../payments/payments.test-support.js';
import {
  admin,
  markOrderPaidForTest,
  newClient,
  orderOk,
  placeOrder,
  productState,
  shopWithProducts,
} from './orders.test-support.js';

let t: TestApp;
let adminToken: string;
const failedPayments: DomainEvents['payments.failed'][] = [];
beforeAll(async () => {
  t = await buildTestApp({}, undefined, {
    beforeStart: (app) =>
      app.ctx.events.subscribe(
        'payments.failed',
        'test-recorder',
        async (payload) => void failedPayments.push(payload),
      ),
  });
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());
// Every test here moves stock or money: the invariants (stock follows orders included) must hold after each.
afterEach(() => assertMoneyInvariants(t.app));

describe('concurrent buyers', () => {
  it('sells exactly the stock: 50 buyers of 10 units make 10 orders, stock 0, never below', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const clients = [];
    for (let i = 0; i < 50; i++) clients.push(await newClient(t));
    const results = await Promise.all(clients.map((c) => placeOrder(t, c.token, [{ productId: p }])));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(new Set(results.filter((r) => r.status === 409).map((r) => r.body.error.code))).toEqual(
      new Set(['INSUFFICIENT_STOCK']),
    );
    expect(await productState(t, p)).toEqual({ quantity: 0, reserved: 10, sold: 0 });
    expect((await call(t.app, 'GET', '/orders/supplier-orders', { token: shop.token })).body.meta.total).toBe(10);
  });
});

describe('payment deadline', () => {
  it('cancels an unpaid order at its deadline and gives the stock back; a paid one stays', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const unpaid = await orderOk(t, c.token, [{ productId: p, quantity: 2 }]);
    const paid = await orderOk(t, c.token, [{ productId: p, quantity: 1 }]);
    await markOrderPaidForTest(t, paid.id);
    await t.app.jobs.drain();
    expect((await call(t.app, 'GET', `/orders/${unpaid.id}`, { token: c.token })).body.data.status).toBe('PENDING');

    t.clock.advance(15 * 60_000 + 1000);
    await t.app.jobs.drain();
    // Access tokens have expired meanwhile: sign in again.
    const token = (await t.app.services.auth.signIn(c.user, {})).accessToken;
    const gone = await call(t.app, 'GET', `/orders/${unpaid.id}`, { token });
    expect(gone.body.data).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'PAYMENT_TIMEOUT',
      payment: { status: 'EXPIRED' },
    });
    expect(gone.body.data.history.at(-1)).toMatchObject({
      fromStatus: 'PENDING',
      toStatus: 'CANCELLED',
      byRole: 'SYSTEM',
      byUserId: null,
    });
    expect((await call(t.app, 'GET', `/orders/${paid.id}`, { token })).body.data.status).toBe('PENDING');
    expect(await productState(t, p)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
    const inbox = await call(t.app, 'GET', '/notifications', { token });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('order_payment_expired');
    // The provider's session is expired, once, so the client can no longer pay it.
    const session = [...t.mobilemoney.sessions.values()].find(
      (x) => x.client_reference === unpaid.payment.transactionId,
    )!;
    expect(t.mobilemoney.requests.filter((r) => r.path === `/v1/checkout/sessions/${session.id}/expire`)).toHaveLength(
      1,
    );
    expect(session.checkout_status).toBe('expired');
    // The expired attempt is a failed payment for those who follow payments (the paid one is not).
    expect(failedPayments.filter((e) => e.orderId === unpaid.id || e.orderId === paid.id)).toEqual([
      {
        paymentId: unpaid.payment.transactionId,
        subjectType: 'order',
        subjectId: unpaid.id,
        orderId: unpaid.id,
        status: 'EXPIRED',
        reason: 'the payment deadline passed',
      },
    ]);
    // Running the job again changes nothing.
    await t.app.jobs.drain();
    expect(await productState(t, p)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
  });
});

describe('a payment refused for good', () => {
  const GRACE_MS = 5 * 60_000; // business.paymentFailureGraceMinutes, default
  const sessionOf = async (transactionId: string) =>
    (await t.app.services.payments.find(t.app.ctx.db, transactionId))!.providerSessionId!;
  const refuse = async (sessionId: string) =>
    (await deliverWebhook(t, t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(sessionId))))
      .outcome;
  const payOn = async (sessionId: string) =>
    (await deliverWebhook(t, t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(sessionId))))
      .outcome;
  const orderOf = async (c: { user: Parameters<TestApp['app']['services']['auth']['signIn']>[0] }, id: string) =>
    (await call(t.app, 'GET', `/orders/${id}`, { token: (await t.app.services.auth.signIn(c.user, {})).accessToken }))
      .body.data;

  it('gives the stock back after the grace period; a payment made later on that page is refunded', async () => {
    // The clock moved in earlier tests: a fresh administrator.
    const shop = await shopWithProducts(t, (await admin(t)).token, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const order = await orderOk(t, c.token, [{ productId: p, quantity: 2 }]);
    const session = await sessionOf(order.payment.transactionId);
    expect(await refuse(session)).toBe('applied');
    await t.app.jobs.drain();
    // Within the grace the order waits for a retry, its stock held.
    t.clock.advance(GRACE_MS - 10_000);
    await t.app.jobs.drain();
    expect(await orderOf(c, order.id)).toMatchObject({ status: 'PENDING', payment: { status: 'FAILED' } });
    expect(await productState(t, p)).toEqual({ quantity: 8, reserved: 2, sold: 0 });

    t.clock.advance(20_000);
    await t.app.jobs.drain();
    const gone = await orderOf(c, order.id);
    expect(gone).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'PAYMENT_FAILED',
      paymentStatus: 'UNPAID',
      payment: { status: 'FAILED' },
    });
    expect(gone.history.at(-1)).toMatchObject({ fromStatus: 'PENDING', toStatus: 'CANCELLED', byRole: 'SYSTEM' });
    expect(await productState(t, p)).toEqual({ quantity: 10, reserved: 0, sold: 0 });
    // The refused page is closed at the provider, and the client is told.
    expect(t.mobilemoney.calls(`/v1/checkout/sessions/${session}/expire`)).toHaveLength(1);
    const token = (await t.app.services.auth.signIn(c.user, {})).accessToken;
    const told = (await call(t.app, 'GET', '/notifications', { token })).body.data.find(
      (n: { type: string }) => n.type === 'order_payment_expired',
    );
    expect(told).toMatchObject({ data: { orderId: order.id, reason: 'PAYMENT_FAILED' } });
    expect(told.body).toMatch(/échoué/);
    expect(
      (
        await call(t.app, 'POST', `/payments/retry/${order.id}`, {
          token,
          headers: { 'idempotency-key': `r-${order.id}` },
        })
      ).body.error.code,
    ).toBe('ORDER_NOT_PENDING');
    // Run again: nothing more moves.
    await t.app.jobs.drain();
    expect(await productState(t, p)).toEqual({ quantity: 10, reserved: 0, sold: 0 });

    // The payer still managed to pay on the old page: the money goes back.
    expect(await payOn(session)).toBe('refunded');
    await t.app.jobs.drain();
    expect((await t.app.services.payments.find(t.app.ctx.db, order.payment.transactionId))!.status).toBe('REFUNDED');
    expect((await orderOf(c, order.id)).status).toBe('CANCELLED');
  });

  it('keeps the order when the payer succeeds within the grace, on the same page or with a new attempt', async () => {
    // The clock moved in earlier tests: a fresh administrator.
    const shop = await shopWithProducts(t, (await admin(t)).token, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const samePage = await orderOk(t, c.token, [{ productId: p, quantity: 1 }]);
    const retried = await orderOk(t, c.token, [{ productId: p, quantity: 3 }]);
    const first = await sessionOf(samePage.payment.transactionId);
    await refuse(first);
    await refuse(await sessionOf(retried.payment.transactionId));
    t.clock.advance(60_000);
    expect(await payOn(first)).toBe('applied');
    const again = await call(t.app, 'POST', `/payments/retry/${retried.id}`, {
      token: c.token,
      headers: { 'idempotency-key': `r-${retried.id}` },
    });
    expect(again.status).toBe(201);

    // The grace passes: the paid order stays paid, the retried one waits for its new attempt.
    t.clock.advance(GRACE_MS);
    await t.app.jobs.drain();
    expect(await orderOf(c, samePage.id)).toMatchObject({
      status: 'PENDING',
      paymentStatus: 'PAID',
      payment: { status: 'SUCCEEDED' },
    });
    expect(await orderOf(c, retried.id)).toMatchObject({
      status: 'PENDING',
      paymentStatus: 'UNPAID',
      payment: { status: 'PENDING', attempt: 2 },
    });
    expect(await productState(t, p)).toEqual({ quantity: 6, reserved: 4, sold: 0 });
    expect(await payOn(await sessionOf(again.body.data.payment.transactionId))).toBe('applied');
    await t.app.jobs.drain();
    expect((await orderOf(c, retried.id)).paymentStatus).toBe('PAID');
  });
});
