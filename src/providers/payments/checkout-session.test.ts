import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdjustableClock } from '../../shared/clock.js';
import { parseProviderEvent, verifyWebhookSignature } from './signature.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMobileMoney, MOBILEMONEY_API_KEY } from '../../../test/fakes/mobilemoney.js';
import { CheckoutSessionPayments } from './checkout-session.js';
import { PaymentProviderError } from './types.js';

const fake = new FakeMobileMoney();
let payments: CheckoutSessionPayments;
beforeAll(async () => {
  await fake.start();
  payments = new CheckoutSessionPayments(
    { baseUrl: fake.url, apiKey: MOBILEMONEY_API_KEY, webhookSecrets: ['s'], timeoutMs: 300 },
    new AdjustableClock(),
  );
});
afterAll(() => fake.close());

const input = (over: Partial<Parameters<CheckoutSessionPayments['createSession']>[0]> = {}) => ({
  amount: 1500,
  currency: 'XOF',
  clientReference: randomUUID(),
  method: 'wave' as const,
  successUrl: 'https://api.example/api/v1/payments/callback/success',
  errorUrl: 'https://api.example/api/v1/payments/callback/error',
  idempotencyKey: randomUUID(),
  ...over,
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as PaymentProviderError,
  );

describe('checkout-session adapter', () => {
  it('creates a session with the wire format (amount as a string, Bearer key, Idempotency-Key) and reads it back', async () => {
    const req = input({ payerPhone: '+221771234567' });
    const session = await payments.createSession(req);
    expect(session).toMatchObject({
      amount: 1500,
      currency: 'XOF',
      clientReference: req.clientReference,
      checkoutStatus: 'open',
      paymentStatus: 'processing',
      transactionId: null,
      completedAt: null,
    });
    expect(session.id).toMatch(/^cos-/);
    expect(session.launchUrl).toBe(`${fake.url}/c/${session.id}`);
    expect(session.expiresAt.getTime() - session.createdAt.getTime()).toBe(30 * 60_000);
    const sent = fake.calls('/v1/checkout/sessions').at(-1)!;
    expect(sent).toMatchObject({
      method: 'POST',
      authorization: `Bearer ${MOBILEMONEY_API_KEY}`,
      idempotencyKey: req.idempotencyKey,
    });
    expect(sent.body).toEqual({
      amount: '1500',
      currency: 'XOF',
      client_reference: req.clientReference,
      success_url: req.successUrl,
      error_url: req.errorUrl,
      restrict_payer_mobile: '+221771234567',
    });

    fake.complete(session.id);
    const paid = await payments.getSession(session.id);
    expect(paid).toMatchObject({ id: session.id, checkoutStatus: 'complete', paymentStatus: 'succeeded' });
    expect(paid.transactionId).toMatch(/^TCN/);
    expect(paid.completedAt).toBeInstanceOf(Date);
  });

  it('gives the same session for the same idempotency key', async () => {
    const req = input();
    const [a, b] = [await payments.createSession(req), await payments.createSession(req)];
    expect(b.id).toBe(a.id);
    expect(fake.calls('/v1/checkout/sessions').filter((r) => r.idempotencyKey === req.idempotencyKey)).toHaveLength(2);
  });

  it('expires an open session, and expiring a closed one answers its state', async () => {
    const open = await payments.createSession(input());
    expect(await payments.expireSession(open.id)).toMatchObject({
      checkoutStatus: 'expired',
      paymentStatus: 'cancelled',
    });
    expect(await payments.expireSession(open.id)).toMatchObject({ checkoutStatus: 'expired' });
    const paid = await payments.createSession(input());
    fake.complete(paid.id);
    expect(await payments.expireSession(paid.id)).toMatchObject({
      checkoutStatus: 'complete',
      paymentStatus: 'succeeded',
    });
  });

  it('refunds a paid session with an Idempotency-Key; the same key again is not an error', async () => {
    const s = await payments.createSession(input());
    fake.complete(s.id);
    const key = randomUUID();
    await payments.refundSession(s.id, key);
    await payments.refundSession(s.id, key);
    expect(fake.sessions.get(s.id)!.refunded).toBe(true);
    expect(fake.calls(`/v1/checkout/sessions/${s.id}/refund`).map((r) => r.idempotencyKey)).toEqual([key, key]);
    const err = await failure(payments.refundSession(s.id, randomUUID()));
    expect(err).toMatchObject({ retryable: false, status: 409, code: 'checkout-refund-failed' });
  });

  it('creates payouts idempotently and reads their outcome', async () => {
    const key = randomUUID();
    const req = {
      amount: 9000,
      currency: 'XOF',
      mobile: '+221770000001',
      name: 'Boulangerie Ndiaye',
      clientReference: randomUUID(),
      idempotencyKey: key,
    };
    const payout = await payments.createPayout(req);
    expect(payout).toMatchObject({
      status: 'processing',
      amount: 9000,
      currency: 'XOF',
      mobile: req.mobile,
      clientReference: req.clientReference,
      error: null,
    });
    expect(payout.id).toMatch(/^pt-/);
    expect((await payments.createPayout(req)).id).toBe(payout.id);
    expect(fake.calls('/v1/payout').at(-1)).toMatchObject({
      idempotencyKey: key,
      body: {
        currency: 'XOF',
        receive_amount: '9000',
        mobile: req.mobile,
        name: req.name,
        client_reference: req.clientReference,
      },
    });
    fake.settlePayout(payout.id, 'failed');
    expect(await payments.getPayout(payout.id)).toMatchObject({
      status: 'failed',
      error: { code: 'recipient-not-found' },
    });
  });

  it('reports outages as retryable and refusals as final, keeping the provider code', async () => {
    fake.failNext(1, { status: 503, body: { code: 'service-unavailable', message: 'down' } });
    expect(await failure(payments.createSession(input()))).toMatchObject({
      retryable: true,
      status: 503,
      code: 'service-unavailable',
    });
    fake.failNext(1, {
      status: 429,
      body: { code: 'rate-limit-exceeded', message: 'slow down' },
      headers: { 'retry-after': '12' },
    });
    expect(await failure(payments.getPayout('pt-x'))).toMatchObject({
      retryable: true,
      status: 429,
      retryAfterSeconds: 12,
    });
    fake.failNext(1, { status: 400, body: { code: 'request-validation-error', message: 'amount: invalid' } });
    const refused = await failure(payments.createSession(input()));
    expect(refused).toBeInstanceOf(PaymentProviderError);
    expect(refused).toMatchObject({ retryable: false, status: 400, code: 'request-validation-error' });
    expect(refused.message).toContain('amount: invalid');
    expect(await failure(payments.getSession('cos-missing'))).toMatchObject({
      retryable: false,
      status: 404,
      code: 'checkout-session-not-found',
    });
    const wrongKey = new CheckoutSessionPayments(
      { baseUrl: fake.url, apiKey: 'wrong', webhookSecrets: [] },
      new AdjustableClock(),
    );
    expect(await failure(wrongKey.getSession('cos-x'))).toMatchObject({
      retryable: false,
      status: 401,
      code: 'missing-auth-header',
    });
  });

  it('treats a timeout and an unreachable provider as retryable', async () => {
    fake.hangNext(1);
    const timedOut = await failure(payments.createSession(input()));
    expect(timedOut).toMatchObject({ retryable: true, status: undefined });
    expect(timedOut.message).toMatch(/timed out/);
    const nowhere = new CheckoutSessionPayments(
      { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', webhookSecrets: [] },
      new AdjustableClock(),
    );
    expect(await failure(nowhere.getSession('cos-x'))).toMatchObject({ retryable: true });
  });

  it('posts signed webhooks our verifier accepts, with the session the adapter reads', async () => {
    const received: { signature: string; raw: Buffer }[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ signature: String(req.headers['wave-signature']), raw: Buffer.concat(chunks) });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const s = await payments.createSession(input());
      expect((await fake.completeAndNotify(s.id, url)).status).toBe(200);
      const [hook] = received;
      expect(
        verifyWebhookSignature(hook!.signature, hook!.raw, [fake.webhookSecret], Math.floor(Date.now() / 1000)),
      ).toBe(true);
      const event = parseProviderEvent(hook!.raw);
      expect(event).toMatchObject({
        type: 'checkout.session.completed',
        session: { id: s.id, checkoutStatus: 'complete', paymentStatus: 'succeeded' },
      });
      expect(event.type === 'checkout.session.completed' && event.session).toEqual(await payments.getSession(s.id));
      const payout = await payments.createPayout({
        amount: 500,
        currency: 'XOF',
        mobile: '+221770000002',
        name: 'N',
        clientReference: randomUUID(),
        idempotencyKey: randomUUID(),
      });
      await fake.settlePayoutAndNotify(payout.id, 'succeeded', url);
      expect(parseProviderEvent(received[1]!.raw)).toMatchObject({
        type: 'payout.completed',
        payout: { id: payout.id, status: 'succeeded', amount: 500 },
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
