import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { admin, newClient, orderOk, shopWithProducts } from './orders.test-support.js';

// With APP_RETURN_URL the return pages send the payer back to the app, with the state read here.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ APP_RETURN_URL: 'https://app.example/payment-return?from=api' });
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

describe('return pages with APP_RETURN_URL', () => {
  it('redirect (303) with the order and the real payment status, whatever the page or the URL claims', async () => {
    const shop = await shopWithProducts(t, (await admin(t)).token, 1);
    const c = await newClient(t);
    const order = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    const ref = order.payment.transactionId;
    const waiting = await call(t.app, 'GET', '/payments/mobilemoney/success', { query: { ref, status: 'SUCCEEDED' } });
    expect(waiting.status).toBe(303);
    const to = new URL(String(waiting.headers.location));
    expect(`${to.origin}${to.pathname}`).toBe('https://app.example/payment-return');
    expect(Object.fromEntries(to.searchParams)).toEqual({ from: 'api', orderId: order.id, status: 'PENDING' });

    const session = [...t.mobilemoney.sessions.values()].find((s) => s.client_reference === ref)!;
    t.mobilemoney.complete(session.id);
    const paid = await call(t.app, 'GET', '/payments/mobilemoney/error', { query: { ref } });
    expect(new URL(String(paid.headers.location)).searchParams.get('status')).toBe('SUCCEEDED');
    expect((await call(t.app, 'GET', `/orders/${order.id}`, { token: c.token })).body.data.paymentStatus).toBe('PAID');
  });
});
