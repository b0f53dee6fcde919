import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { associations } from '../../db/schema/associations.js';
import { uuidv7 } from '../../shared/ids.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { admin, deliverWebhook, paidOrder, shop } from '../escrow/escrow.test-support.js';

let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

const list = (query: Record<string, string | number | boolean>, token = adminToken) =>
  call(t.app, 'GET', '/admin/payments/payouts', { token, query });
const release = (orderId: string) =>
  call(t.app, 'POST', `/admin/payments/escrow/${orderId}/release`, {
    token: adminToken,
    body: { reason: 'Collected, released early' },
    headers: { 'idempotency-key': uuidv7() },
  });

/** A supplier's released order; its payout is sent by the job (or waits without a payout number). */
async function releasedOrder(payoutPhone?: string | null) {
  const s = await shop(t, adminToken, { payoutPhone });
  const { order } = await paidOrder(t, s, { complete: true });
  expect((await release(order.id)).status).toBe(200);
  await t.app.jobs.drain();
  return { s, order };
}

/** A financial donation paid to a new association; its payout is sent by the job. */
async function paidDonation(amount: number) {
  const donor = await createSignedIn(t.app);
  const { association } = await createAssociation(t.app);
  await t.app.ctx.db
    .update(associations)
    .set({ payoutPhone: '+221770004321' })
    .where(eq(associations.id, association.id));
  const res = await call(t.app, 'POST', '/donations/financial', {
    token: donor.token,
    body: { associationId: association.id, amount, paymentMethod: 'wave' },
    headers: { 'idempotency-key': uuidv7() },
  });
  expect(res.status).toBe(201);
  const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
  await deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId!)),
  );
  await t.app.jobs.drain();
  return { association, donationId: res.body.data.donation.id as string };
}

describe('GET /admin/payments/payouts', () => {
  it("lists suppliers' and associations' payouts with their payee, newest first, by state and payee", async () => {
    const { s, order } = await releasedOrder();
    const { association, donationId } = await paidDonation(4000);

    const ofSupplier = await list({ supplierId: s.profile.id });
    expect(ofSupplier.status).toBe(200);
    expect(ofSupplier.body.meta).toMatchObject({ total: 1, page: 1 });
    const [sent] = ofSupplier.body.data;
    expect(sent).toMatchObject({
      state: 'PROCESSING',
      orderId: order.id,
      donationId: null,
      mobile: '+221771234567',
      attempts: 1,
      payee: { type: 'supplier', id: s.profile.id, name: s.profile.businessName },
    });
    expect(sent.amount).toBeGreaterThan(0);

    const ofAssociation = (await list({ associationId: association.id })).body.data;
    expect(ofAssociation).toEqual([
      expect.objectContaining({
        state: 'PROCESSING',
        amount: 4000,
        currency: 'XOF',
        orderId: null,
        donationId,
        payee: { type: 'association', id: association.id, name: association.name },
      }),
    ]);

    // Newest first, across payees (other files' payouts may be among them on PostgreSQL); the payee filter keeps one kind.
    const all: string[] = (await list({ limit: 100 })).body.data.map((p: { id: string }) => p.id);
    expect(all).toEqual([...all].sort().reverse());
    expect(all).toContain(ofAssociation[0].id);
    expect((await list({ payee: 'association', supplierId: s.profile.id })).body.data).toEqual([]);
    expect((await list({ payee: 'supplier', supplierId: s.profile.id })).body.data).toHaveLength(1);

    // The provider confirms: the state filter follows.
    for (const p of t.mobilemoney.payouts.values())
      if (p.status === 'processing') t.mobilemoney.settlePayout(p.id, 'succeeded');
    t.clock.advance(5 * 60_000);
    await t.app.jobs.drain();
    expect((await list({ supplierId: s.profile.id, state: 'SUCCEEDED' })).body.data).toEqual([
      expect.objectContaining({ id: sent.id, succeededAt: expect.any(String) }),
    ]);
    expect((await list({ supplierId: s.profile.id, state: 'PROCESSING' })).body.data).toEqual([]);
  });

  it('finds payouts waiting for a payout number', async () => {
    const { s } = await releasedOrder(null);
    const waiting = (await list({ supplierId: s.profile.id, waiting: true })).body.data;
    expect(waiting).toEqual([
      expect.objectContaining({ state: 'PENDING', waitingReason: 'NO_PAYOUT_PHONE', mobile: null, attempts: 0 }),
    ]);
    expect((await list({ supplierId: s.profile.id, waiting: false })).body.data).toEqual([]);
  });

  it('filters by the time created and refuses bad filters by name', async () => {
    const { s } = await releasedOrder();
    const now = t.app.ctx.clock.now().getTime();
    const at = (ms: number) => new Date(now + ms).toISOString();
    expect((await list({ supplierId: s.profile.id, from: at(-60_000), to: at(60_000) })).body.data).toHaveLength(1);
    expect((await list({ supplierId: s.profile.id, from: at(60_000) })).body.data).toEqual([]);
    const bad = await list({ state: 'LOST' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(['query.state']);
    expect((await list({ payee: 'client' })).body.error.details[0].field).toBe('query.payee');
  });

  it('is for administrators', async () => {
    const c = await createSignedIn(t.app);
    expect((await list({}, c.token)).status).toBe(403);
    expect((await call(t.app, 'GET', '/admin/payments/payouts')).status).toBe(401);
  });
});
