import type { TestApp } from '../../../test/helpers/app.js';
import { addressOf } from '../../../test/helpers/http.js';
import { SIGNATURE_HEADER } from '../../providers/payments/signature.js';
import { WEBHOOK_PATH } from '../payments-sandbox/sandbox-webhook.js';

export interface WebhookDelivery {
  /** `null`: no signature header; a string: that header instead of a valid signature. */
  signature?: string | null;
  /** The signature's time (default: the application clock's). */
  unixSeconds?: number;
  /** The body as sent, instead of `event` serialized. */
  raw?: string;
}

/** Posts `event` to the webhook route as the provider does, signed at the application clock's time unless told otherwise. */
export async function postWebhook(t: TestApp, event: unknown, opts: WebhookDelivery = {}) {
  const raw = opts.raw ?? JSON.stringify(event);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.signature !== null)
    headers[SIGNATURE_HEADER] =
      opts.signature ?? t.mobilemoney.sign(raw, opts.unixSeconds ?? Math.floor(t.clock.now().getTime() / 1000));
  // From the app's own address (as `call`): on Redis the webhook's per-address limit is shared by every file of the run.
  const res = await t.app.inject({
    method: 'POST',
    url: WEBHOOK_PATH,
    headers,
    payload: raw,
    remoteAddress: addressOf(t.app),
  });
  return { status: res.statusCode, body: res.json() };
}

/** Delivers a signed `event` that must be taken; answers its outcome. */
export async function deliverWebhook(t: TestApp, event: unknown): Promise<{ outcome: string }> {
  const res = await postWebhook(t, event);
  if (res.status !== 200) throw new Error(`webhook refused: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: { outcome: string } }).data;
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

/**
 * The fake provider's session of a payment attempt of any subject, once the attempt has recorded it:
 * on a loaded machine the provider may answer after the request that opened the attempt (the call
 * goes on after its answer).
 */
export async function sessionOfPayment(t: TestApp, paymentId: string) {
  for (let tries = 0; tries < 100; tries++) {
    const sessionId = (await t.app.services.payments.find(t.app.ctx.db, paymentId))?.providerSessionId;
    const session = sessionId && t.mobilemoney.sessions.get(sessionId);
    if (session) return session;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no provider session for payment ${paymentId}`);
}

/** The signed `checkout.session.completed` of a payment attempt, its session paid at the fake provider. */
export async function paidEvent(t: TestApp, paymentId: string) {
  const session = await sessionOfPayment(t, paymentId);
  return t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session.id));
}
