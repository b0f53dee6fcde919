import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { deliverWebhook } from '../payments/payments.test-support.js';
import { productBody, supplierWithStore } from '../products/products.test-support.js';
import { SWEEP_JOB } from './billing.service.js';

let t: TestApp;
const DAY = 86_400_000;
// Tests move the clock by days: a session signed in now, whose access token is fresh.
const admin = async () => (await createSignedIn(t.app, { role: 'ADMIN' })).token;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const subscribe = (token: string, body: Record<string, unknown>, key?: string) =>
  call(t.app, 'POST', '/subscriptions/subscribe', { token, body, ...(key && { headers: { 'idempotency-key': key } }) });

/** Pays the payment at the fake provider and delivers its signed webhook; answers the outcome. */
async function pay(transactionId: string): Promise<string> {
  const p = (await t.app.services.payments.find(t.app.ctx.db, transactionId))!;
  expect(p.providerSessionId).toBeTruthy();
  return (
    await deliverWebhook(
      t,
      t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId!)),
    )
  ).outcome;
}

/** Moves the clock, then signs the suppliers in again (their access tokens last 15 minutes). */
async function advance(
  ms: number,
  ...who: { user: Parameters<TestApp['app']['services']['auth']['signIn']>[0]; token: string }[]
) {
  t.clock.advance(ms);
  for (const s of who) s.token = (await t.app.services.auth.signIn(s.user, {})).accessToken;
}

async function sweep() {
  await t.app.ctx.jobs.send(SWEEP_JOB, {});
  await t.app.jobs.drain();
}

const limits = async (token: string) => (await call(t.app, 'GET', '/subscriptions/limits', { token })).body.data;

describe('subscribing to a paid plan', () => {
  it('takes effect only when the payment succeeds through the provider; the ledger credits platform_subscriptions once', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { maxProducts: 40, priceAmount: 5000, periodDays: 30 });
    const res = await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave' }, 'sub-1');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'PAYMENT_PENDING',
      charge: { kind: 'SUBSCRIBE', status: 'PENDING', amount: 5000, listPrice: 5000, discountAmount: 0 },
      payment: { status: 'PENDING', amount: 5000 },
    });
    expect(res.body.data.payment.redirectUrl).toMatch(/^https?:/);
    // Not paid yet: still FREE, and the two views agree.
    const before = await limits(s.token);
    expect(before).toMatchObject({ maxProducts: 10, plan: { code: 'FREE' }, subscription: null });
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toEqual(before);

    // The same key and body replays; another body with it is refused.
    const again = await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave' }, 'sub-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.charge.id).toBe(res.body.data.charge.id);
    expect((await subscribe(s.token, { planId: plan.id, paymentMethod: 'card' }, 'sub-1')).status).toBe(422);

    expect(await pay(res.body.data.payment.transactionId)).toBe('applied');
    // The payer's return page reads the payment, whatever its subject.
    const page = await call(t.app, 'GET', '/payments/mobilemoney/success', {
      query: { ref: res.body.data.payment.transactionId },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-status="SUCCEEDED"');
    expect(page.body).toContain(`Abonnement : <code>${res.body.data.charge.id}</code>`);
    // Not an order's payment: the order routes do not show it.
    expect(
      (await call(t.app, 'GET', `/orders/payments/${res.body.data.payment.transactionId}/status`, { token: s.token }))
        .status,
    ).toBe(404);
    const after = await limits(s.token);
    expect(after).toMatchObject({
      maxProducts: 40,
      remaining: 40,
      plan: { id: plan.id },
      subscription: { status: 'ACTIVE', cancelAtPeriodEnd: false },
    });
    expect(new Date(after.subscription.endsAt).getTime() - t.clock.now().getTime()).toBeGreaterThan(29 * DAY);
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toEqual(after);

    const ledger = await t.app.services.ledger.balance(t.app.ctx.db, 'platform_subscriptions');
    expect(ledger).toBeLessThanOrEqual(-5000);
    const notes = await call(t.app, 'GET', '/notifications', { token: s.token });
    expect(notes.body.data.map((n: { type: string }) => n.type)).toContain('subscription_payment_received');
    await assertMoneyInvariants(t.app);
  });

  it('refunds a payment arriving after its charge expired, and the plan does not change', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { priceAmount: 3000 });
    const res = await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave' });
    expect(res.status).toBe(201);
    await advance(2 * 3_600_000, s);
    await t.app.jobs.drain();
    const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
    expect(p.status).toBe('EXPIRED');
    expect(await pay(p.id)).toBe('refunded');
    await t.app.jobs.drain();
    expect((await t.app.services.payments.find(t.app.ctx.db, p.id))!.status).toBe('REFUNDED');
    expect(await limits(s.token)).toMatchObject({ plan: { code: 'FREE' }, subscription: null });
    await assertMoneyInvariants(t.app);
  });

  it('switches to a free plan at once, refuses unknown plans and a missing payment method', async () => {
    const s = await createSupplier(t.app);
    const free = await createPlan(t.app, { maxProducts: 15 });
    const res = await subscribe(s.token, { planId: free.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'ACTIVE',
      charge: null,
      payment: null,
      limits: { maxProducts: 15, plan: { id: free.id } },
    });
    const paid = await createPlan(t.app, { priceAmount: 1000 });
    const noMethod = await subscribe(s.token, { planId: paid.id });
    expect(noMethod.status).toBe(400);
    expect(JSON.stringify(noMethod.body.error.details)).toContain('paymentMethod');
    expect(
      (await subscribe(s.token, { planId: '01900000-0000-7000-8000-000000000000', paymentMethod: 'wave' })).status,
    ).toBe(404);
    expect((await subscribe(s.token, { planId: 'nope', paymentMethod: 'wave' })).status).toBe(400);
    const inactive = await createPlan(t.app, { priceAmount: 1000, isActive: false });
    expect((await subscribe(s.token, { planId: inactive.id, paymentMethod: 'wave' })).status).toBe(404);
    const client = await createSignedIn(t.app);
    expect((await subscribe(client.token, { planId: paid.id, paymentMethod: 'wave' })).status).toBe(403);
  });
});

describe('period end', () => {
  it('warns 3 days before the end, downgrades an unpaid period to FREE keeping the products, and refuses creation until under the limit', async () => {
    const s = await supplierWithStore(t);
    const plan = await createPlan(t.app, { maxProducts: 12, priceAmount: 2000, periodDays: 4 });
    const res = await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave' });
    await pay(res.body.data.payment.transactionId);
    // 11 products (over FREE's 10), still on sale when the period ends.
    const lasting = { expiresAt: new Date(t.clock.now().getTime() + 6 * DAY).toISOString() };
    for (let i = 0; i < 11; i++)
      expect(
        (await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id, lasting) })).status,
      ).toBe(201);
    const expiring = async () =>
      (await call(t.app, 'GET', '/notifications', { token: s.token })).body.data.filter(
        (n: { type: string }) => n.type === 'subscription_expiring',
      );

    await advance(DAY / 2, s);
    await sweep();
    expect(await expiring()).toHaveLength(0);
    await advance(DAY, s);
    await sweep();
    await sweep();
    expect(await expiring()).toHaveLength(1);
    expect(await limits(s.token)).toMatchObject({ maxProducts: 12, currentProducts: 11, allowed: true });

    await advance(3 * DAY, s);
    await sweep();
    const after = await limits(s.token);
    expect(after).toMatchObject({
      allowed: false,
      maxProducts: 10,
      currentProducts: 11,
      remaining: 0,
      plan: { code: 'FREE' },
      subscription: null,
    });
    expect((await call(t.app, 'GET', '/suppliers/can-create-products', { token: s.token })).body.data).toEqual(after);
    const types = (await call(t.app, 'GET', '/notifications', { token: s.token })).body.data.map(
      (n: { type: string }) => n.type,
    );
    expect(types).toContain('subscription_downgraded');
    const refused = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PLAN_LIMIT_REACHED');
    // Nothing was deleted: deleting two gets under the limit again.
    const mine = (await call(t.app, 'GET', '/products/my-products', { token: s.token, query: { limit: 100 } })).body
      .data;
    expect(mine).toHaveLength(11);
    for (const p of mine.slice(0, 2))
      expect((await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token })).status).toBe(200);
    expect((await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) })).status).toBe(
      201,
    );
    await assertMoneyInvariants(t.app);
  });

  it('renews ahead (the next period added to the current one) and cancels until the period end', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { maxProducts: 30, priceAmount: 4000, periodDays: 30 });
    await pay((await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave' })).body.data.payment.transactionId);
    const firstEnd = new Date((await limits(s.token)).subscription.endsAt).getTime();
    // A new price applies from the next period.
    expect(
      (
        await call(t.app, 'PUT', `/admin/subscriptions/plans/${plan.id}`, {
          token: await admin(),
          body: { priceAmount: 4500 },
        })
      ).status,
    ).toBe(200);
    const renew = await call(t.app, 'POST', '/subscriptions/renew', {
      token: s.token,
      body: { paymentMethod: 'wave' },
    });
    expect(renew.status).toBe(201);
    expect(renew.body.data.charge).toMatchObject({ kind: 'RENEW', amount: 4500 });
    expect(new Date((await limits(s.token)).subscription.endsAt).getTime()).toBe(firstEnd);
    await pay(renew.body.data.payment.transactionId);
    expect(new Date((await limits(s.token)).subscription.endsAt).getTime()).toBe(firstEnd + 30 * DAY);
    // Two periods paid ahead: no third for now.
    const third = await call(t.app, 'POST', '/subscriptions/renew', {
      token: s.token,
      body: { paymentMethod: 'wave' },
    });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('ALREADY_RENEWED');

    const cancelled = await call(t.app, 'POST', '/subscriptions/cancel', { token: s.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      maxProducts: 30,
      subscription: { cancelAtPeriodEnd: true, status: 'ACTIVE' },
    });
    await advance(59 * DAY, s);
    await sweep();
    expect(await limits(s.token)).toMatchObject({ maxProducts: 30 });
    await advance(2 * DAY, s);
    await sweep();
    expect(await limits(s.token)).toMatchObject({ maxProducts: 10, plan: { code: 'FREE' }, subscription: null });
    const again = await call(t.app, 'POST', '/subscriptions/cancel', { token: s.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('NO_PAID_SUBSCRIPTION');
    await assertMoneyInvariants(t.app);
  });
});

describe('promo codes at subscription', () => {
  it('one use left and two suppliers subscribing at once: exactly one gets the discount; the use counts when paid', async () => {
    const plan = await createPlan(t.app, { priceAmount: 10_000 });
    const code = `LAST${Date.now().toString(36).toUpperCase()}`;
    const created = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: await admin(),
      body: { code, discountBps: 2500, maxUses: 1 },
    });
    expect(created.status).toBe(201);
    const [a, b] = await Promise.all([createSupplier(t.app), createSupplier(t.app)]);
    const race = await Promise.all(
      [a, b].map((s) => subscribe(s.token, { planId: plan.id, paymentMethod: 'wave', promoCode: code.toLowerCase() })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    const won = race.find((r) => r.status === 201)!;
    expect(won.body.data.charge).toMatchObject({
      listPrice: 10_000,
      discountAmount: 2500,
      amount: 7500,
      promoCode: code,
    });
    expect(race.find((r) => r.status === 409)!.body.error.code).toBe('PROMO_EXHAUSTED');
    const listed = async () =>
      (await call(t.app, 'GET', '/admin/subscriptions/promo-codes', { token: await admin(), query: { search: code } }))
        .body.data[0];
    expect((await listed()).usesCount).toBe(0);
    await pay(won.body.data.payment.transactionId);
    expect((await listed()).usesCount).toBe(1);
    await assertMoneyInvariants(t.app);
  });

  it('frees a reserved use when its charge expires unpaid', async () => {
    const plan = await createPlan(t.app, { priceAmount: 8000 });
    const code = `ONCE${Date.now().toString(36).toUpperCase()}`;
    await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: await admin(),
      body: { code, discountAmount: 1000, maxUses: 1 },
    });
    const [a, b] = await Promise.all([createSupplier(t.app), createSupplier(t.app)]);
    expect((await subscribe(a.token, { planId: plan.id, paymentMethod: 'wave', promoCode: code })).status).toBe(201);
    const quote = await call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
      token: b.token,
      body: { code, planId: plan.id },
    });
    expect(quote.body.data).toMatchObject({ valid: false, reason: 'PROMO_EXHAUSTED', price: 8000 });
    await advance(2 * 3_600_000, a, b);
    await t.app.jobs.drain();
    const freed = await call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
      token: b.token,
      body: { code, planId: plan.id },
    });
    expect(freed.body.data).toMatchObject({
      valid: true,
      reason: null,
      listPrice: 8000,
      discountAmount: 1000,
      price: 7000,
    });
    const used = await subscribe(b.token, { planId: plan.id, paymentMethod: 'wave', promoCode: code });
    expect(used.body.data.charge.amount).toBe(7000);
    await pay(used.body.data.payment.transactionId);
    expect((await limits(b.token)).plan.id).toBe(plan.id);
    await assertMoneyInvariants(t.app);
  });

  it('a 100 % code activates the plan at once without a payment', async () => {
    const plan = await createPlan(t.app, { priceAmount: 2000, maxProducts: 20 });
    const code = `FULL${Date.now().toString(36).toUpperCase()}`;
    await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: await admin(),
      body: { code, discountBps: 10_000 },
    });
    const s = await createSupplier(t.app);
    const res = await subscribe(s.token, { planId: plan.id, paymentMethod: 'wave', promoCode: code });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'ACTIVE',
      payment: null,
      charge: { status: 'PAID', amount: 0 },
      limits: { maxProducts: 20 },
    });
    await assertMoneyInvariants(t.app);
  });
});
