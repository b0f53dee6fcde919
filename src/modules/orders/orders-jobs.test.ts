import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvents } from '../../jobs/event-types.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { admin, markOrderPaidForTest, newClient, orderOk, placeOrder, productState, shopWithProducts } from './orders.test-support.js';

let t: TestApp;
let adminToken: string;
const failedPayments: DomainEvents['payments.failed'][] = [];
beforeAll(async () => {
  t = await buildTestApp({}, undefined, {
    beforeStart: (app) => app.ctx.events.subscribe('payments.failed', 'test-recorder', async (payload) => void failedPayments.push(payload)),
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
    expect(new Set(results.filter((r) => r.status === 409).map((r) => r.body.error.code))).toEqual(new Set(['INSUFFICIENT_STOCK']));
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
    expect(gone.body.data).toMatchObject({ status: 'CANCELLED', cancelReason: 'PAYMENT_TIMEOUT', payment: { status: 'EXPIRED' } });
    expect(gone.body.data.history.at(-1)).toMatchObject({ fromStatus: 'PENDING', toStatus: 'CANCELLED', byRole: 'SYSTEM', byUserId: null });
    expect((await call(t.app, 'GET', `/orders/${paid.id}`, { token })).body.data.status).toBe('PENDING');
    expect(await productState(t, p)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
    const inbox = await call(t.app, 'GET', '/notifications', { token });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('order_payment_expired');
    // The provider's session is expired, once, so the client can no longer pay it.
    const session = [...t.mobilemoney.sessions.values()].find((x) => x.client_reference === unpaid.payment.transactionId)!;
    expect(t.mobilemoney.requests.filter((r) => r.path === `/v1/checkout/sessions/${session.id}/expire`)).toHaveLength(1);
    expect(session.checkout_status).toBe('expired');
    // The expired attempt is a failed payment for those who follow payments (the paid one is not).
    expect(failedPayments.filter((e) => e.orderId === unpaid.id || e.orderId === paid.id)).toEqual([
      { paymentId: unpaid.payment.transactionId, subjectType: 'order', subjectId: unpaid.id, orderId: unpaid.id, status: 'EXPIRED', reason: 'the payment deadline passed' },
    ]);
    // Running the job again changes nothing.
    await t.app.jobs.drain();
    expect(await productState(t, p)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
  });
});
