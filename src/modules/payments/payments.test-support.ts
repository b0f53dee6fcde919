import type { TestApp } from '../../../test/helpers/app.js';
import { SIGNATURE_HEADER } from '../../providers/payments/signature.js';
import { WEBHOOK_PATH } from '../payments-sandbox/sandbox-webhook.js';

/** Posts `event` to the webhook route signed as the provider does, at the application clock's time; answers its outcome. */
export async function deliverWebhook(t: TestApp, event: unknown): Promise<{ outcome: string }> {
  const raw = JSON.stringify(event);
  const res = await t.app.inject({
    method: 'POST',
    url: WEBHOOK_PATH,
    headers: {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: t.mobilemoney.sign(raw, Math.floor(t.clock.now().getTime() / 1000)),
    },
    payload: raw,
  });
  if (res.statusCode !== 200) throw new Error(`webhook refused: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { outcome: string } }).data;
}

/**
 * Pays the order's waiting attempt at the fake provider and delivers the signed
 * `checkout.session.completed` through the real webhook route: the payment SUCCEEDED, the escrow
 * HELD, the order PAID, as in production.
 */
export async function payThroughWebhook(t: TestApp, orderId: string): Promise<{ paymentId: string; outcome: string }> {
  const latest = (await t.app.services.payments.latestOfOrders(t.app.ctx.db, [orderId])).get(orderId)?.payment;
  if (!latest?.providerSessionId) throw new Error(`order ${orderId} has no payment with an open session`);
  const { outcome } = await deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(latest.providerSessionId)),
  );
  return { paymentId: latest.id, outcome };
}
