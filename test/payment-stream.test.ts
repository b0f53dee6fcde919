import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';
import { openSse, type SseEvent } from './helpers/sse.js';
import { associations } from '../src/db/schema/associations.js';
import { createAssociation } from '../src/modules/associations/associations.test-support.js';
import { admin, newClient, orderOk, shopWithProducts } from '../src/modules/orders/orders.test-support.js';
import { deliverWebhook } from '../src/modules/payments/payments.test-support.js';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1/notifications/stream`;
});
afterAll(() => t.close());

/** The attempt's provider session; on a slow machine the answer may have come before it: the job opens it then. */
async function sessionOf(transactionId: string): Promise<string> {
  const find = async () => (await t.app.services.payments.find(t.app.ctx.db, transactionId))!.providerSessionId;
  if (!(await find())) {
    t.clock.advance(31_000);
    await t.app.jobs.drain();
  }
  return (await find())!;
}
const refuse = async (transactionId: string) =>
  deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(await sessionOf(transactionId))),
  );
const pay = async (transactionId: string) =>
  deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(await sessionOf(transactionId))),
  );

/** The next `payment` event of the stream (notifications and unread counts pass by). */
async function nextPayment(sse: Awaited<ReturnType<typeof openSse>>): Promise<SseEvent['data']> {
  for (;;) {
    const e = await sse.next();
    if (e.event === 'payment') return e.data;
  }
}

describe('payment outcomes on the notification stream', () => {
  it("tells the order's client when its payment fails and when it succeeds, and nobody else", async () => {
    const shop = await shopWithProducts(t, (await admin(t)).token, 1);
    const c = await newClient(t);
    const order = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    const mine = await openSse(url, c.token);
    const seller = await openSse(url, shop.token);
    try {
      expect((await mine.next()).event).toBe('unread');
      expect((await seller.next()).event).toBe('unread');
      await refuse(order.payment.transactionId);
      expect(await nextPayment(mine)).toMatchObject({
        subjectType: 'order',
        subjectId: order.id,
        orderId: order.id,
        transactionId: order.payment.transactionId,
        status: 'FAILED',
        attempt: 1,
        failureReason: 'The payer does not have enough money',
        redirectUrl: null,
      });
      await pay(order.payment.transactionId);
      expect(await nextPayment(mine)).toMatchObject({
        orderId: order.id,
        status: 'SUCCEEDED',
        amount: order.itemsTotal,
        paidAt: expect.any(String),
      });
      // The seller hears of the paid order as a notification, never of the client's payment as such.
      const heard = [await seller.next(), await seller.next()].map((e) => e.event).sort();
      expect(heard).toEqual(['notification', 'unread']);
      // The state the event told is the one the status route answers.
      const polled = await call(t.app, 'GET', `/payments/status/${order.id}`, { token: c.token });
      expect(polled.body.data).toMatchObject({ paymentStatus: 'PAID', payment: { status: 'SUCCEEDED' } });
    } finally {
      mine.close();
      seller.close();
    }
    await assertMoneyInvariants(t.app);
  });

  it("tells a donor of its donation's payment, refused then paid", async () => {
    const donor = await createSignedIn(t.app);
    const association = await createAssociation(t.app);
    await t.app.ctx.db
      .update(associations)
      .set({ payoutPhone: '+221770001234' })
      .where(eq(associations.id, association.association.id));
    const res = await call(t.app, 'POST', '/donations/financial', {
      token: donor.token,
      body: { associationId: association.association.id, amount: 1500, paymentMethod: 'wave' },
      headers: { 'idempotency-key': `d-${donor.user.id}` },
    });
    const { donation, payment } = res.body.data;
    const sse = await openSse(url, donor.token);
    try {
      await refuse(payment.transactionId);
      expect(await nextPayment(sse)).toMatchObject({
        subjectType: 'donation',
        subjectId: donation.id,
        orderId: null,
        status: 'FAILED',
      });
      await pay(payment.transactionId);
      expect(await nextPayment(sse)).toMatchObject({
        subjectType: 'donation',
        subjectId: donation.id,
        status: 'SUCCEEDED',
      });
    } finally {
      sse.close();
    }
    await t.app.jobs.drain();
    await assertMoneyInvariants(t.app);
  });
});
