import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { associations } from '../../db/schema/associations.js';
import { uuidv7 } from '../../shared/ids.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { associationPayable } from '../ledger/accounts.js';
import { deliverWebhook } from '../payments/payments.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const HOUR = 3_600_000;
type Who = { token: string; user: { id: string } };

const give = (who: { token: string }, body: Record<string, unknown>, key = uuidv7()) =>
  call(t.app, 'POST', '/donations/financial', { token: who.token, body, headers: { 'idempotency-key': key } });
const inbox = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    data: Record<string, unknown>;
  }[];
const balance = (account: string) => t.app.services.ledger.balance(t.app.ctx.db, account);

async function pay(transactionId: string) {
  const p = (await t.app.services.payments.find(t.app.ctx.db, transactionId))!;
  expect(p.providerSessionId).toBeTruthy();
  return (
    await deliverWebhook(
      t,
      t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId!)),
    )
  ).outcome;
}

async function setup(payoutPhone: string | null = '+221770001234') {
  const donor = await createSignedIn(t.app);
  const association = await createAssociation(t.app);
  if (payoutPhone)
    await t.app.ctx.db.update(associations).set({ payoutPhone }).where(eq(associations.id, association.association.id));
  return { donor, association };
}

async function paidDonation(donor: Who, associationId: string, amount = 5000, extra: Record<string, unknown> = {}) {
  const res = await give(donor, { associationId, amount, paymentMethod: 'wave', ...extra });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  expect(await pay(res.body.data.payment.transactionId)).toBe('applied');
  return res.body.data.donation as { id: string };
}

describe('giving money to an association', () => {
  it('is paid through the provider, credited to the association once, and paid out to its number', async () => {
    const { donor, association } = await setup();
    const a = association.association;
    const body = { associationId: a.id, amount: 5000, paymentMethod: 'wave', message: 'Pour les repas du soir' };
    const res = await give(donor, body, 'don-1');
    expect(res.status).toBe(201);
    expect(res.body.data.donation).toMatchObject({
      kind: 'FINANCIAL',
      status: 'PENDING_PAYMENT',
      amount: 5000,
      currency: 'XOF',
      donorUserId: donor.user.id,
      associationId: a.id,
      anonymous: false,
      pickupWindowStart: null,
      items: [],
    });
    expect(res.body.data.payment).toMatchObject({ status: 'PENDING', amount: 5000 });
    expect(res.body.data.payment.redirectUrl).toMatch(/^https?:/);

    // The same key and body replays; another body with it is refused; nothing more is created.
    const again = await give(donor, body, 'don-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.donation.id).toBe(res.body.data.donation.id);
    expect((await give(donor, { ...body, amount: 6000 }, 'don-1')).status).toBe(422);
    expect((await call(t.app, 'GET', '/donations/my-donations', { token: donor.token })).body.meta.total).toBe(1);
    // Not paid: nothing received by the association yet.
    expect((await call(t.app, 'GET', '/associations/donations', { token: association.token })).body.data).toEqual([]);

    const id = res.body.data.donation.id;
    expect(await pay(res.body.data.payment.transactionId)).toBe('applied');
    const paid = (await call(t.app, 'GET', `/donations/${id}`, { token: donor.token })).body.data;
    expect(paid).toMatchObject({ status: 'PAID', payment: { status: 'SUCCEEDED' } });
    expect(paid.history.map((h: { to: string }) => h.to)).toEqual(['PENDING_PAYMENT', 'PAID']);
    expect(await balance(associationPayable(a.id))).toBe(-5000);
    expect((await inbox(donor.token)).find((n) => n.type === 'donation_paid')?.data).toMatchObject({
      donationId: id,
      amount: 5000,
    });
    expect((await inbox(association.token)).find((n) => n.type === 'donation_payment_received')?.data).toMatchObject({
      donationId: id,
      amount: 5000,
    });
    // The association sees it received, without the payment.
    const seen = (await call(t.app, 'GET', `/donations/${id}`, { token: association.token })).body.data;
    expect(seen).toMatchObject({ status: 'PAID', payment: null, donorUserId: donor.user.id });
    expect((await call(t.app, 'POST', `/donations/${id}/cancel`, { token: donor.token })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
    expect(
      (await call(t.app, 'PATCH', `/donations/${id}/status`, { token: donor.token, body: { status: 'CANCELLED' } }))
        .body.error.code,
    ).toBe('INVALID_TRANSITION');
    expect(
      (await call(t.app, 'POST', `/donations/${id}/confirm-pickup`, { token: association.token })).body.error.code,
    ).toBe('INVALID_TRANSITION');
    expect(
      (
        await call(t.app, 'PATCH', `/donations/${id}/status`, {
          token: association.token,
          body: { status: 'ACCEPTED' },
        })
      ).body.error.code,
    ).toBe('INVALID_TRANSITION');

    // The payout job sends the money to the association's number; the provider confirms.
    await t.app.jobs.drain();
    const [payout] = await t.app.services.payouts.ofDonations(t.app.ctx.db, [id]);
    expect(payout).toMatchObject({
      associationId: a.id,
      donationId: id,
      amount: 5000,
      state: 'PROCESSING',
      mobile: '+221770001234',
    });
    expect(await balance(associationPayable(a.id))).toBe(-5000);
    await deliverWebhook(
      t,
      t.mobilemoney.event('payout.completed', t.mobilemoney.settlePayout(payout!.providerPayoutId!, 'succeeded')),
    );
    const [settled] = await t.app.services.payouts.ofDonations(t.app.ctx.db, [id]);
    expect(settled!.state).toBe('SUCCEEDED');
    expect(await balance(associationPayable(a.id))).toBe(0);
    expect((await inbox(association.token)).some((n) => n.type === 'payout_sent' && n.data.donationId === id)).toBe(
      true,
    );
    // A second delivery of the same success changes nothing.
    expect(await pay(res.body.data.payment.transactionId)).toBe('ignored');
    await assertMoneyInvariants(t.app);
  });

  it('waits for a payout number before paying an association out, and leaves once one is set', async () => {
    const { donor, association } = await setup(null);
    const d = await paidDonation(donor, association.association.id, 2500);
    await t.app.jobs.drain();
    const [payout] = await t.app.services.payouts.ofDonations(t.app.ctx.db, [d.id]);
    expect(payout).toMatchObject({ state: 'PENDING', waitingReason: 'NO_PAYOUT_PHONE' });
    expect(
      (await inbox(association.token)).some(
        (n) => n.type === 'payout_waiting_for_number' && n.data.donationId === d.id,
      ),
    ).toBe(true);
    expect(await balance(associationPayable(association.association.id))).toBe(-2500);

    // A payout number set: the waiting payout leaves to it.
    expect(
      (
        await call(t.app, 'PUT', '/associations/me', {
          token: association.token,
          body: { payoutPhone: '+221770009876' },
        })
      ).status,
    ).toBe(200);
    await t.app.jobs.drain();
    const [sent] = await t.app.services.payouts.ofDonations(t.app.ctx.db, [d.id]);
    expect(sent).toMatchObject({ state: 'PROCESSING', mobile: '+221770009876', waitingReason: null });
    await deliverWebhook(
      t,
      t.mobilemoney.event('payout.completed', t.mobilemoney.settlePayout(sent!.providerPayoutId!, 'succeeded')),
    );
    expect(await balance(associationPayable(association.association.id))).toBe(0);
    await assertMoneyInvariants(t.app);
  });

  it('refuses bad amounts, methods and associations by field, writing nothing', async () => {
    const { donor, association } = await setup();
    const unverified = await createAssociation(t.app, { verification: 'PENDING' });
    const base = { associationId: association.association.id, amount: 1000, paymentMethod: 'wave' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, amount: 50 }, 400, 'body.amount'],
      [{ ...base, amount: 50_000_000 }, 400, 'body.amount'],
      [{ ...base, amount: 10.5 }, 400, 'body.amount'],
      [{ ...base, paymentMethod: 'cash' }, 400, 'body.paymentMethod'],
      [{ ...base, payerPhone: '77 000' }, 400, 'body.payerPhone'],
      [{ ...base, extra: 1 }, 400, 'body'],
      [{ ...base, associationId: uuidv7() }, 404, 'body.associationId'],
      [{ ...base, associationId: unverified.association.id }, 404, 'body.associationId'],
    ];
    for (const [body, status, field] of cases) {
      const res = await give(donor, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.details?.[0]?.field ?? 'body', JSON.stringify(body)).toContain(field);
    }
    expect((await give(association, base)).body.error.code).toBe('OWN_ASSOCIATION');
    expect(
      (await call(t.app, 'POST', '/donations/financial', { body: base, headers: { 'idempotency-key': uuidv7() } }))
        .status,
    ).toBe(401);
    expect((await call(t.app, 'GET', '/donations/my-donations', { token: donor.token })).body.meta.total).toBe(0);
    await assertMoneyInvariants(t.app);
  });

  it('cancelled before payment: its payment is closed, and a payment arriving later is refunded', async () => {
    const { donor, association } = await setup();
    const res = await give(donor, { associationId: association.association.id, amount: 3000, paymentMethod: 'wave' });
    const id = res.body.data.donation.id;
    const stranger = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/donations/${id}/cancel`, { token: stranger.token })).status).toBe(404);
    expect((await call(t.app, 'GET', `/donations/${id}`, { token: stranger.token })).status).toBe(404);
    expect((await call(t.app, 'POST', `/donations/${id}/cancel`, { token: association.token })).status).toBe(403);
    expect(
      (await call(t.app, 'PATCH', `/donations/${id}/status`, { token: stranger.token, body: { status: 'CANCELLED' } }))
        .status,
    ).toBe(404);
    const cancelled = await call(t.app, 'PATCH', `/donations/${id}/status`, {
      token: donor.token,
      body: { status: 'CANCELLED', reason: 'Erreur de montant' },
    });
    expect(cancelled.body.data).toMatchObject({
      status: 'CANCELLED',
      closingReason: 'Erreur de montant',
      payment: { status: 'CANCELLED' },
    });
    await t.app.jobs.drain();

    // The payer had the page open and paid anyway: the money goes back.
    expect(await pay(res.body.data.payment.transactionId)).toBe('refunded');
    await t.app.jobs.drain();
    expect(await balance(associationPayable(association.association.id))).toBe(0);
    expect((await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!.status).toMatch(
      /REFUND/,
    );
    expect((await call(t.app, 'GET', `/donations/${id}`, { token: donor.token })).body.data.status).toBe('CANCELLED');
    expect(await t.app.services.payouts.ofDonations(t.app.ctx.db, [id])).toEqual([]);
    await assertMoneyInvariants(t.app);
  });

  it('stays payable after a refused attempt: a later success on the same page credits it once', async () => {
    const { donor, association } = await setup();
    const a = association.association.id;
    const res = await give(donor, { associationId: a, amount: 4000, paymentMethod: 'wave' });
    const { id } = res.body.data.donation;
    const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
    expect(
      (
        await deliverWebhook(
          t,
          t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(p.providerSessionId!)),
        )
      ).outcome,
    ).toBe('applied');
    const waiting = (await call(t.app, 'GET', `/donations/${id}`, { token: donor.token })).body.data;
    expect(waiting).toMatchObject({ status: 'PENDING_PAYMENT', payment: { status: 'FAILED' } });
    expect(await balance(associationPayable(a))).toBe(0);

    // The payer tries again on the same page and it goes through: paid, credited once, no refund.
    expect(await pay(p.id)).toBe('applied');
    expect(await pay(p.id)).toBe('ignored');
    await t.app.jobs.drain();
    const paid = (await call(t.app, 'GET', `/donations/${id}`, { token: donor.token })).body.data;
    expect(paid).toMatchObject({ status: 'PAID', payment: { status: 'SUCCEEDED' } });
    expect(paid.history.map((h: { to: string }) => h.to)).toEqual(['PENDING_PAYMENT', 'PAID']);
    expect(await balance(associationPayable(a))).toBe(-4000);
    await assertMoneyInvariants(t.app);
  });

  it('refused, then not paid before the deadline: expired, its page closed, and a late payment refunded', async () => {
    const { donor, association } = await setup();
    const res = await give(donor, { associationId: association.association.id, amount: 2000, paymentMethod: 'wave' });
    const { id } = res.body.data.donation;
    const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
    await deliverWebhook(
      t,
      t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(p.providerSessionId!)),
    );
    t.clock.advance(2 * HOUR);
    await t.app.jobs.drain();
    const { token } = await createSignedInAgain(donor);
    expect((await call(t.app, 'GET', `/donations/${id}`, { token })).body.data.status).toBe('EXPIRED');
    // The refused attempt's page was closed at the provider with the donation.
    expect(t.mobilemoney.calls(`/v1/checkout/sessions/${p.providerSessionId}/expire`).length).toBeGreaterThan(0);

    expect(await pay(p.id)).toBe('refunded');
    await t.app.jobs.drain();
    expect((await t.app.services.payments.find(t.app.ctx.db, p.id))!.status).toBe('REFUNDED');
    expect(await balance(associationPayable(association.association.id))).toBe(0);
    expect((await inbox(token)).some((n) => n.type === 'donation_payment_refunded' && n.data.donationId === id)).toBe(
      true,
    );
    expect(await t.app.services.payouts.ofDonations(t.app.ctx.db, [id])).toEqual([]);
    await assertMoneyInvariants(t.app);
  });

  it('expires when not paid in time', async () => {
    const { donor, association } = await setup();
    const res = await give(donor, { associationId: association.association.id, amount: 3000, paymentMethod: 'wave' });
    t.clock.advance(2 * HOUR);
    await t.app.jobs.drain();
    const { token } = await createSignedInAgain(donor);
    const d = (await call(t.app, 'GET', `/donations/${res.body.data.donation.id}`, { token })).body.data;
    expect(d).toMatchObject({ status: 'EXPIRED', payment: { status: 'EXPIRED' } });
    expect((await call(t.app, 'POST', `/donations/${d.id}/cancel`, { token })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
    await assertMoneyInvariants(t.app);
  });
});

async function createSignedInAgain(who: { user: Parameters<TestApp['app']['services']['auth']['signIn']>[0] }) {
  return { token: (await t.app.services.auth.signIn(who.user, {})).accessToken };
}

describe('impact figures', () => {
  it('count paid donations as money donated, on the day they were paid', async () => {
    // A day of its own, far ahead, that no other test pays a donation on (the database may be shared).
    t.clock.advance((4000 + Math.floor(Math.random() * 40_000)) * 24 * HOUR);
    const { donor, association } = await setup();
    await paidDonation(donor, association.association.id, 7000);
    await paidDonation(donor, association.association.id, 2500, { anonymous: true });
    // Given but never paid: not money donated.
    expect(
      (await give(donor, { associationId: association.association.id, amount: 900, paymentMethod: 'wave' })).status,
    ).toBe(201);
    const day = new Date(
      Date.UTC(t.clock.now().getUTCFullYear(), t.clock.now().getUTCMonth(), t.clock.now().getUTCDate()),
    );
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const query = { from: day.toISOString(), to: new Date(day.getTime() + 24 * HOUR).toISOString(), groupBy: 'day' };
    const res = await call(t.app, 'GET', '/admin/dashboard/impact', { token: admin.token, query });
    expect(res.status).toBe(200);
    expect(res.body.data.totals.bySource.financialDonations).toEqual({ count: 2, foodKg: 0, moneyDonated: 9500 });
    expect(res.body.data.totals.moneyDonated).toBe(9500);
    expect(res.body.data.periods).toEqual([
      expect.objectContaining({ period: day.toISOString().slice(0, 10), moneyDonated: 9500 }),
    ]);
    await assertMoneyInvariants(t.app);
  });
});

describe('lists and statistics', () => {
  it("shows paid financial donations to the association and in the donor's statistics", async () => {
    const { donor, association } = await setup();
    const a = association.association.id;
    const d1 = await paidDonation(donor, a, 4000);
    const d2 = await paidDonation(donor, a, 1500, { anonymous: true });
    await give(donor, { associationId: a, amount: 9000, paymentMethod: 'wave' }); // never paid

    const mine = await call(t.app, 'GET', '/donations/my-donations', {
      token: donor.token,
      query: { kind: 'FINANCIAL', status: 'PAID' },
    });
    expect(mine.body.data.map((x: { id: string }) => x.id)).toEqual([d2.id, d1.id]);
    const received = (await call(t.app, 'GET', '/associations/donations', { token: association.token })).body.data;
    expect(received.map((x: { id: string }) => x.id)).toEqual([d2.id, d1.id]);
    expect(received[0]).toMatchObject({ anonymous: true, donorUserId: null });
    expect(received[1].donorUserId).toBe(donor.user.id);

    const stats = (
      await call(t.app, 'GET', '/associations/donations/stats', { token: association.token, query: { months: 2 } })
    ).body.data;
    expect(stats.financial).toEqual({ count: 2, amount: 5500, currency: 'XOF' });
    expect(stats.byMonth[1].amountReceived).toBe(5500);
    expect(stats.received).toBe(0);

    const my = (await call(t.app, 'GET', '/donations/my-stats', { token: donor.token })).body.data;
    expect(my).toMatchObject({
      donations: 3,
      food: { collected: 0, kg: 0 },
      financial: [{ currency: 'XOF', count: 2, amount: 5500 }],
      impact: { kgSaved: 0, mealsEquivalent: 0, co2eAvoidedKg: 0 },
    });
    expect((await call(t.app, 'GET', '/donations/my-stats')).status).toBe(401);
    await assertMoneyInvariants(t.app);
  });
});
