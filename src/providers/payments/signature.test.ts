import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseProviderEvent, signWebhook, UnknownEventTypeError, verifyWebhookSignature } from './signature.js';
import { WireFormatError } from './wire.js';

const secret = 'whsec-test-0001';
const body = Buffer.from(JSON.stringify({ id: 'EV_1', type: 'checkout.session.completed', data: {} }));
const now = 1_790_000_000;

describe('webhook signatures', () => {
  it('signs as HMAC-SHA256 over the timestamp followed by the raw body, and verifies it', () => {
    const header = signWebhook(secret, body, now);
    const expected = createHmac('sha256', secret).update(`${now}${body.toString()}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${expected}`);
    expect(verifyWebhookSignature(header, body, [secret], now)).toBe(true);
    expect(verifyWebhookSignature(header, body, [secret], now + 300)).toBe(true);
  });

  it('refuses a tampered body, a wrong secret and a timestamp more than 300 s away', () => {
    const header = signWebhook(secret, body, now);
    const tampered = Buffer.from(body.toString().replace('EV_1', 'EV_2'));
    expect(verifyWebhookSignature(header, tampered, [secret], now)).toBe(false);
    expect(verifyWebhookSignature(header, body, ['another-secret'], now)).toBe(false);
    expect(verifyWebhookSignature(header, body, [secret], now + 301)).toBe(false);
    expect(verifyWebhookSignature(header, body, [secret], now - 301)).toBe(false);
    // The timestamp is part of what is signed: changing it breaks the signature.
    expect(verifyWebhookSignature(header.replace(`t=${now}`, `t=${now + 1}`), body, [secret], now)).toBe(false);
  });

  it('accepts any matching v1 during a rotation, whichever of our secrets signed', () => {
    const oldSig = signWebhook('old-secret', body, now).split(',')[1]!;
    const newSig = signWebhook('new-secret', body, now).split(',')[1]!;
    const header = `t=${now},${oldSig},${newSig}`;
    expect(verifyWebhookSignature(header, body, ['new-secret'], now)).toBe(true);
    expect(verifyWebhookSignature(header, body, ['old-secret'], now)).toBe(true);
    expect(verifyWebhookSignature(`t=${now},${oldSig}`, body, ['new-secret', 'old-secret'], now)).toBe(true);
    expect(verifyWebhookSignature(header, body, ['third-secret'], now)).toBe(false);
  });

  it('refuses malformed headers', () => {
    const v1 = signWebhook(secret, body, now).split(',')[1]!;
    for (const header of [
      undefined,
      '',
      'garbage',
      v1,
      `t=${now}`,
      `t=abc,${v1}`,
      `t=${now},t=${now},${v1}`,
      `t=${now},v1=zz`,
      `t=${now},v1=${'a'.repeat(63)}`,
    ]) {
      expect(verifyWebhookSignature(header, body, [secret], now), String(header)).toBe(false);
    }
  });
});

const wireSession = {
  id: 'cos-1',
  amount: '1500',
  currency: 'XOF',
  client_reference: 'pay-1',
  checkout_status: 'complete',
  payment_status: 'succeeded',
  wave_launch_url: 'https://pay.example/c/cos-1',
  transaction_id: 'T_1',
  when_created: '2026-01-01T10:00:00Z',
  when_expires: '2026-01-01T10:30:00Z',
  when_completed: '2026-01-01T10:05:00Z',
  last_payment_error: null,
};

describe('provider events', () => {
  it('reads a session event into a CheckoutSession with an integer amount', () => {
    const event = parseProviderEvent(
      JSON.stringify({ id: 'EV_1', type: 'checkout.session.completed', data: wireSession }),
    );
    expect(event).toEqual({
      id: 'EV_1',
      type: 'checkout.session.completed',
      session: {
        id: 'cos-1',
        amount: 1500,
        currency: 'XOF',
        clientReference: 'pay-1',
        checkoutStatus: 'complete',
        paymentStatus: 'succeeded',
        launchUrl: 'https://pay.example/c/cos-1',
        transactionId: 'T_1',
        createdAt: new Date('2026-01-01T10:00:00Z'),
        expiresAt: new Date('2026-01-01T10:30:00Z'),
        completedAt: new Date('2026-01-01T10:05:00Z'),
        lastPaymentError: null,
      },
    });
  });

  it('reads a payout event', () => {
    const data = {
      id: 'pt-1',
      currency: 'XOF',
      receive_amount: '9000',
      mobile: '+221771234567',
      name: 'A',
      client_reference: 'po-1',
      status: 'failed',
      payout_error: { error_code: 'recipient-limit', error_message: 'limit' },
    };
    expect(parseProviderEvent({ id: 'EV_2', type: 'payout.failed', data })).toEqual({
      id: 'EV_2',
      type: 'payout.failed',
      payout: {
        id: 'pt-1',
        status: 'failed',
        amount: 9000,
        currency: 'XOF',
        mobile: '+221771234567',
        clientReference: 'po-1',
        error: { code: 'recipient-limit', message: 'limit' },
      },
    });
  });

  it('throws a clear error on an unknown type or malformed data', () => {
    expect(() => parseProviderEvent({ id: 'EV_3', type: 'merchant.updated', data: {} })).toThrow(UnknownEventTypeError);
    expect(() => parseProviderEvent('{not json')).toThrow(/body: not JSON/);
    expect(() => parseProviderEvent({ type: 'checkout.session.completed', data: wireSession })).toThrow(/^id:/);
    expect(() =>
      parseProviderEvent({ id: 'EV_4', type: 'checkout.session.completed', data: { ...wireSession, amount: 1500 } }),
    ).toThrow(/data.amount/);
    expect(() =>
      parseProviderEvent({ id: 'EV_4', type: 'checkout.session.completed', data: { ...wireSession, amount: '15.5' } }),
    ).toThrow(WireFormatError);
    expect(() =>
      parseProviderEvent({
        id: 'EV_4',
        type: 'checkout.session.completed',
        data: { ...wireSession, checkout_status: 'weird' },
      }),
    ).toThrow(/data.checkout_status/);
    expect(() => parseProviderEvent({ id: 'EV_4', type: 'checkout.session.completed' })).toThrow(/data: not an object/);
  });
});
