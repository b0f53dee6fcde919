import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { associations } from '../../db/schema/associations.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { postWebhook, type WebhookDelivery } from './payments.test-support.js';

// The provider's way in, whatever a payment pays for: the subject here is a financial donation.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

const db = () => t.app.ctx.db;
const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);
const providerEvents = async () =>
  (await rows<{ n: number }>(db(), sql`select count(*)::int as n from provider_events`))[0]!.n;

const deliver = (event: unknown, opts?: WebhookDelivery) => postWebhook(t, event, opts);

/** A donor's financial donation whose payment session is open at the fake provider. */
async function openDonation() {
  const donor = await createSignedIn(t.app);
  const association = await createAssociation(t.app);
  await db()
    .update(associations)
    .set({ payoutPhone: '+221770001234' })
    .where(eq(associations.id, association.association.id));
  const res = await call(t.app, 'POST', '/donations/financial', {
    token: donor.token,
    body: { associationId: association.association.id, amount: 1500, paymentMethod: 'wave' },
    headers: { 'idempotency-key': `d-${donor.user.id}` },
  });
  expect(res.status).toBe(201);
  const { payment } = res.body.data;
  const session = [...t.mobilemoney.sessions.values()].find((s) => s.client_reference === payment.transactionId)!;
  expect(session).toBeDefined();
  return { paymentId: payment.transactionId as string, session };
}

describe('webhook signature', () => {
  it('refuses a missing, wrong, stale or tampered signature with 401 and stores nothing', async () => {
    const { paymentId, session } = await openDonation();
    const event = t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session.id));
    const raw = JSON.stringify(event);
    const before = await providerEvents();
    const attempts = [
      await deliver(event, { signature: null }),
      await deliver(event, { signature: t.mobilemoney.sign(raw, nowSeconds(), ['another-secret']) }),
      await deliver(event, { unixSeconds: nowSeconds() - 301 }),
      await deliver(event, {
        signature: t.mobilemoney.sign(raw, nowSeconds()),
        raw: raw.replace(session.amount as string, '1'),
      }),
      await deliver(event, { signature: 't=abc,v1=zz' }),
    ];
    for (const a of attempts)
      expect(a).toMatchObject({ status: 401, body: { success: false, error: { code: 'UNAUTHENTICATED' } } });
    expect(await providerEvents()).toBe(before);
    expect((await t.app.services.payments.find(db(), paymentId))!.status).toBe('PENDING');
    // Signed by a secret of a rotation (any v1 matching is enough): accepted, and applied once.
    const ok = await deliver(event, {
      signature: t.mobilemoney.sign(raw, nowSeconds(), ['old-secret', t.mobilemoney.webhookSecret]),
    });
    expect(ok).toMatchObject({ status: 200, body: { data: { outcome: 'applied' } } });
    expect(await deliver(event)).toMatchObject({ status: 200, body: { data: { outcome: 'duplicate' } } });
    expect((await t.app.services.payments.find(db(), paymentId))!.status).toBe('SUCCEEDED');
    await t.app.jobs.drain();
  });

  it('acknowledges an event type it does not handle, and answers 400 for a signed malformed event', async () => {
    expect(await deliver({ id: 'EV_other', type: 'merchant.updated', data: {} })).toMatchObject({
      status: 200,
      body: { data: { outcome: 'ignored' } },
    });
    const bad = await deliver({ id: 'EV_bad', type: 'checkout.session.completed', data: { id: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('events nobody waits for', () => {
  it('records an event for a payment it does not know, and a payout event for a payout it never sent', async () => {
    const paid = {
      ...t.mobilemoney.complete((await openDonation()).session.id),
      client_reference: '0190aaaa-0000-7000-8000-000000000000',
    };
    expect((await deliver(t.mobilemoney.event('checkout.session.completed', paid))).body.data.outcome).toBe(
      'unknown_payment',
    );
    const payout = {
      id: 'pt-1',
      currency: 'XOF',
      receive_amount: '1000',
      mobile: '+221770000001',
      name: 'X',
      client_reference: 'r',
      status: 'succeeded',
    };
    expect((await deliver(t.mobilemoney.event('payout.completed', payout))).body.data.outcome).toBe('unknown_payment');
  });
});
