import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { listAdminActions } from '../audit/index.js';
import { deliverWebhook } from '../payments/payments.test-support.js';

let t: TestApp;
let adminUser: Awaited<ReturnType<typeof createSignedIn>>['user'];
const DAY = 86_400_000;

beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await createSignedIn(t.app, { role: 'ADMIN' })).user;
});
afterAll(() => t.close());

// Tests move the clock by days: the administrator's access token is signed for each request.
const refund = async (paymentId: string, body: object = { reason: 'Double paiement' }, key?: string) =>
  call(t.app, 'POST', `/admin/subscriptions/payments/${paymentId}/refund`, {
    token: (await t.app.services.auth.signIn(adminUser, {})).accessToken,
    body,
    ...(key && { headers: { 'idempotency-key': key } }),
  });
const limits = async (token: string) => (await call(t.app, 'GET', '/subscriptions/limits', { token })).body.data;
const inbox = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    data: Record<string, unknown>;
  }[];

/** Subscribes (or renews) and pays through the provider's webhook; answers the charge and payment ids. */
async function paid(token: string, path: '/subscriptions/subscribe' | '/subscriptions/renew', body: object) {
  const res = await call(t.app, 'POST', path, { token, body: { paymentMethod: 'wave', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
  const { outcome } = await deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId!)),
  );
  expect(outcome).toBe('applied');
  return { chargeId: res.body.data.charge.id as string, paymentId: p.id };
}

describe('POST /admin/subscriptions/payments/:paymentId/refund', () => {
  it('refunds in full through the provider, once, audited: the plan it paid ends and the supplier is on FREE', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { maxProducts: 40, priceAmount: 5000, periodDays: 30 });
    const { chargeId, paymentId } = await paid(s.token, '/subscriptions/subscribe', { planId: plan.id });
    expect(await limits(s.token)).toMatchObject({ plan: { id: plan.id }, subscription: { status: 'ACTIVE' } });

    const res = await refund(paymentId, { reason: 'Double paiement' }, 'refund-1');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      charge: { id: chargeId, status: 'REFUNDED', amount: 5000 },
      payment: { transactionId: paymentId, status: 'REFUND_PENDING' },
      limits: { plan: { code: 'FREE' }, subscription: null, maxProducts: 10 },
    });
    expect(Date.parse(res.body.data.charge.refundedAt)).toBeGreaterThan(Date.parse(res.body.data.charge.paidAt));
    // The same key replays; another request changes nothing more.
    const replay = await refund(paymentId, { reason: 'Double paiement' }, 'refund-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await refund(paymentId, { reason: 'Encore' }, 'refund-2');
    expect(again.body.data.charge).toEqual(res.body.data.charge);
    const actions = await listAdminActions(t.app.ctx.db, 'payment', paymentId);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      action: 'subscriptions.payment.refund',
      reason: 'Double paiement',
      data: { chargeId, amount: 5000, effect: 'ENDED' },
    });
    // On the ledger: received into platform_subscriptions, then sent back towards the provider.
    const postings = await t.app.services.ledger.transactionsFor(t.app.ctx.db, { type: 'subscription', id: chargeId });
    expect(postings.map((p) => p.kind)).toEqual(['payment_received', 'refund_started']);
    expect(postings[1]!.lines).toEqual(
      expect.arrayContaining([
        { account: 'platform_subscriptions', amount: 5000 },
        { account: `refunds_pending:${paymentId}`, amount: -5000 },
      ]),
    );

    // The refund job asks the provider once, then the payment is REFUNDED and the supplier told.
    await t.app.jobs.drain();
    const session = (await t.app.services.payments.find(t.app.ctx.db, paymentId))!;
    expect(session.status).toBe('REFUNDED');
    expect(t.mobilemoney.calls(`/v1/checkout/sessions/${session.providerSessionId}/refund`)).toHaveLength(1);
    const notes = await inbox(s.token);
    expect(notes.find((n) => n.type === 'subscription_payment_refunded')?.data).toMatchObject({
      chargeId,
      amount: 5000,
      reason: 'ADMIN',
    });
    expect(notes.find((n) => n.type === 'subscription_downgraded')?.data).toMatchObject({ reason: 'REFUNDED' });
    expect((await refund(paymentId, { reason: 'Encore' })).body.data.payment.status).toBe('REFUNDED');
    await assertMoneyInvariants(t.app);
  });

  it("takes a renewal's period back and keeps the plan running until the period paid before", async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { maxProducts: 30, priceAmount: 4000, periodDays: 30 });
    await paid(s.token, '/subscriptions/subscribe', { planId: plan.id });
    const firstEnd = (await limits(s.token)).subscription.endsAt as string;
    t.clock.advance(DAY);
    s.token = (await t.app.services.auth.signIn(s.user, {})).accessToken;
    const renewal = await paid(s.token, '/subscriptions/renew', {});
    expect(new Date((await limits(s.token)).subscription.endsAt).getTime()).toBe(Date.parse(firstEnd) + 30 * DAY);

    const res = await refund(renewal.paymentId);
    expect(res.status).toBe(200);
    expect(res.body.data.limits).toMatchObject({
      plan: { id: plan.id },
      subscription: { status: 'ACTIVE', endsAt: firstEnd },
    });
    const [action] = await listAdminActions(t.app.ctx.db, 'payment', renewal.paymentId);
    expect(action?.data).toMatchObject({ effect: 'SHORTENED' });
    await t.app.jobs.drain();
    await assertMoneyInvariants(t.app);
  });

  it('two administrators refunding at once make one refund', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { priceAmount: 2500 });
    const { paymentId } = await paid(s.token, '/subscriptions/subscribe', { planId: plan.id });
    const [a, b] = await Promise.all([
      refund(paymentId, { reason: 'Erreur' }, 'race-a'),
      refund(paymentId, { reason: 'Erreur' }, 'race-b'),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await listAdminActions(t.app.ctx.db, 'payment', paymentId)).toHaveLength(1);
    await t.app.jobs.drain();
    const session = (await t.app.services.payments.find(t.app.ctx.db, paymentId))!;
    expect(t.mobilemoney.calls(`/v1/checkout/sessions/${session.providerSessionId}/refund`)).toHaveLength(1);
    await assertMoneyInvariants(t.app);
  });

  it('refuses what is not a paid subscription payment, a missing reason and other roles', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { priceAmount: 3000 });
    const open = await call(t.app, 'POST', '/subscriptions/subscribe', {
      token: s.token,
      body: { planId: plan.id, paymentMethod: 'wave' },
    });
    const waiting = open.body.data.payment.transactionId as string;
    const unpaid = await refund(waiting);
    expect([unpaid.status, unpaid.body.error.code]).toEqual([409, 'INVALID_TRANSITION']);
    expect((await refund('01900000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await refund('nope')).status).toBe(400);
    const noReason = await refund(waiting, {});
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details[0].field).toBe('body.reason');
    const supplier = await call(t.app, 'POST', `/admin/subscriptions/payments/${waiting}/refund`, {
      token: s.token,
      body: { reason: 'Moi-même' },
    });
    expect(supplier.status).toBe(403);
    expect((await t.app.services.payments.find(t.app.ctx.db, waiting))!.status).toBe('PENDING');
    await assertMoneyInvariants(t.app);
  });
});
