import type { TestApp } from '../../../test/helpers/app.js';

/**
 * Pays the order's waiting attempt at the fake provider and delivers the signed
 * `checkout.session.completed` through the real webhook route (signed at the application clock's
 * time): the payment SUCCEEDED, the escrow HELD, the order PAID, as in production.
 */
export async function payThroughWebhook(t: TestApp, orderId: string): Promise<{ paymentId: string; outcome: string }> {
  const latest = (await t.app.services.payments.latestOfOrders(t.app.ctx.db, [orderId])).get(orderId)?.payment;
  if (!latest?.providerSessionId) throw new Error(`order ${orderId} has no payment with an open session`);
  const event = t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(latest.providerSessionId));
  const raw = JSON.stringify(event);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/mobilemoney/webhook',
    headers: { 'content-type': 'application/json', 'wave-signature': t.mobilemoney.sign(raw, Math.floor(t.clock.now().getTime() / 1000)) },
    payload: raw,
  });
  if (res.statusCode !== 200) throw new Error(`webhook refused: ${res.statusCode} ${res.body}`);
  return { paymentId: latest.id, outcome: (res.json() as { data: { outcome: string } }).data.outcome };
}
