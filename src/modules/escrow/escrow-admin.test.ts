import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { commissionOf } from '../../shared/money.js';
import { escrow as escrowAccount, platformCommission, supplierPayable } from '../ledger/accounts.js';
import { newClient, orderOk } from '../orders/orders.test-support.js';
import { SEND_RETRIES } from '../payouts/payouts.service.js';
import { admin, deliverWebhook, paidOrder, shop } from './escrow.test-support.js';

let t: TestApp;
let adminToken: string;
let adminUser: Awaited<ReturnType<typeof admin>>['user'];
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await admin(t)).user;
});
// Tests move the clock by hours: sign in again so access tokens stay valid.
const fresh = async (user: typeof adminUser) => (await t.app.services.auth.signIn(user, {})).accessToken;
beforeEach(async () => {
  adminToken = await fresh(adminUser);
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

const HOUR = 3_600_000;
const reason = 'Client says the basket was complete';
const act = async (orderId: string, path: string, body: unknown = { reason }, headers?: Record<string, string>) =>
  call(t.app, 'POST', `/admin/payments/escrow/${orderId}/${path}`, {
    token: (adminToken = await fresh(adminUser)),
    body,
    ...(headers && { headers }),
  });
const detail = async (orderId: string) =>
  call(t.app, 'GET', `/admin/payments/escrow/${orderId}`, { token: (adminToken = await fresh(adminUser)) });
const balance = (account: string) => t.app.services.ledger.balance(t.app.ctx.db, account);
const bps = () => t.app.ctx.config.DEFAULT_COMMISSION_BPS;
/** Settles at the fake provider every payout still processing there, then lets the check job (and its retries) see it. */
async function providerPays(status: 'succeeded' | 'failed' = 'succeeded') {
  for (const p of t.mobilemoney.payouts.values())
    if (p.status === 'processing') t.mobilemoney.settlePayout(p.id, status);
  t.clock.advance(5 * 60_000);
  await t.app.jobs.drain();
}

describe('automatic release', () => {
  it('releases a completed order after the delay (not before), posts the commission and pays the supplier out', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    await t.app.jobs.drain();
    const commission = commissionOf(order.itemsTotal, bps());
    const net = order.itemsTotal - commission;

    t.clock.advance(47 * HOUR);
    await t.app.jobs.drain();
    expect((await detail(order.id)).body.data.escrow).toMatchObject({
      state: 'HELD',
      amount: order.itemsTotal,
      payout: null,
    });
    expect(await balance(escrowAccount(order.id))).toBe(-order.itemsTotal);
    // The order is collected, but its money is still held: the store cannot go yet.
    const del = await call(t.app, 'DELETE', `/supplier/stores/${s.store.id}`, { token: await fresh(s.user) });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toContain('1 payment held in escrow');

    const commissionBefore = await balance(platformCommission);
    t.clock.advance(2 * HOUR);
    await t.app.jobs.drain();
    let d = (await detail(order.id)).body.data;
    expect(d.escrow).toMatchObject({
      state: 'RELEASED',
      commission,
      net,
      payout: { state: 'PROCESSING', amount: net, mobile: '+221771234567' },
    });
    expect(await balance(escrowAccount(order.id))).toBe(0);
    expect(await balance(supplierPayable(s.profile.id))).toBe(-net);
    expect(await balance(platformCommission)).toBe(commissionBefore - commission);
    const sent = t.mobilemoney.calls('/v1/payout');
    expect(
      sent.filter((r) => (r.body as { client_reference: string }).client_reference === d.escrow.payout.id),
    ).toHaveLength(1);

    await providerPays();
    d = (await detail(order.id)).body.data;
    expect(d.escrow.payout).toMatchObject({ state: 'SUCCEEDED', attempts: 1 });
    expect(d.ledger.map((x: { kind: string }) => x.kind)).toEqual([
      'payment_received',
      'escrow_released',
      'payout_sent',
    ]);
    expect(await balance(supplierPayable(s.profile.id))).toBe(0);
    const inbox = await call(t.app, 'GET', '/notifications', { token: await fresh(s.user) });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toEqual(
      expect.arrayContaining(['payout_sent', 'escrow_released']),
    );

    // The job again, and the hourly sweep, change nothing.
    t.clock.advance(HOUR);
    await t.app.jobs.drain();
    expect(await balance(supplierPayable(s.profile.id))).toBe(0);
  });

  it('does not release a disputed escrow; resolving for the supplier releases it', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    await t.app.jobs.drain();
    expect((await act(order.id, 'dispute/open')).body.data).toMatchObject({ state: 'DISPUTED', dispute: { reason } });
    t.clock.advance(72 * HOUR);
    await t.app.jobs.drain();
    expect((await detail(order.id)).body.data.escrow.state).toBe('DISPUTED');
    expect(await balance(escrowAccount(order.id))).toBe(-order.itemsTotal);

    const resolved = await act(order.id, 'dispute/resolve-supplier', { reason: 'Photos show a full basket' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ state: 'RESOLVED_SUPPLIER', payout: { state: 'PENDING' } });
    await t.app.jobs.drain();
    await providerPays();
    const d = (await detail(order.id)).body.data;
    expect(d.escrow.payout.state).toBe('SUCCEEDED');
    expect(d.audit.map((a: { action: string }) => a.action)).toEqual([
      'escrow.resolve_supplier',
      'escrow.dispute_open',
    ]);
    expect(await balance(escrowAccount(order.id))).toBe(0);
  });
});

describe('administrators', () => {
  it('refunds a held escrow and resolves a dispute for the client; both parties are told', async () => {
    const s = await shop(t, adminToken);
    const { order, client } = await paidOrder(t, s);
    const refunded = await act(order.id, 'refund');
    expect(refunded.status).toBe(200);
    expect(refunded.body.data).toMatchObject({ state: 'REFUNDED', refundReason: reason });
    expect(await balance(escrowAccount(order.id))).toBe(0);

    const other = await paidOrder(t, s, { client });
    expect((await act(other.order.id, 'dispute/open')).status).toBe(200);
    const res = await act(other.order.id, 'dispute/resolve-client', { reason: 'Store was closed at pickup time' });
    expect(res.body.data).toMatchObject({ state: 'RESOLVED_CLIENT', dispute: { resolvedAt: expect.any(String) } });
    await t.app.jobs.drain();
    const inbox = await call(t.app, 'GET', '/notifications', { token: await fresh(client.user) });
    const types = inbox.body.data.map((n: { type: string }) => n.type);
    expect(types.filter((x: string) => x === 'escrow_refunded')).toHaveLength(2);
    expect(types).toContain('escrow_disputed');
    const supplierInbox = await call(t.app, 'GET', '/notifications', { token: await fresh(s.user) });
    expect(supplierInbox.body.data.map((n: { type: string }) => n.type)).toContain('escrow_refunded');
  });

  it('refuses: no token, wrong role, unknown order, unpaid order, wrong state, open order, missing reason', async () => {
    const s = await shop(t, adminToken);
    const { order, client } = await paidOrder(t, s);
    expect((await call(t.app, 'POST', `/admin/payments/escrow/${order.id}/release`, { body: { reason } })).status).toBe(
      401,
    );
    const asClient = await call(t.app, 'POST', `/admin/payments/escrow/${order.id}/release`, {
      token: client.token,
      body: { reason },
    });
    expect(asClient.status).toBe(403);
    expect((await call(t.app, 'GET', '/admin/payments/escrow', { token: await fresh(s.user) })).status).toBe(403);
    expect((await act('0190a000-0000-7000-8000-000000000000', 'release')).status).toBe(404);
    expect((await detail('0190a000-0000-7000-8000-000000000000')).status).toBe(404);
    const unpaid = await orderOk(t, (await newClient(t)).token, [{ productId: s.products[0]!.id }]);
    expect((await act(unpaid.id, 'refund')).status).toBe(404);
    const missing = await act(order.id, 'release', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].field).toBe('body.reason');
    // Not collected yet: the order may still be cancelled, so nothing is released.
    const open = await act(order.id, 'release');
    expect(open.status).toBe(409);
    expect(open.body.error.code).toBe('ORDER_NOT_COMPLETED');
    const notDisputed = await act(order.id, 'dispute/resolve-client');
    expect(notDisputed.status).toBe(409);
    expect(notDisputed.body.error.code).toBe('INVALID_TRANSITION');
    expect((await act(order.id, 'refund')).status).toBe(200);
    for (const path of ['refund', 'release', 'dispute/open', 'dispute/resolve-supplier']) {
      const again = await act(order.id, path);
      expect([path, again.status, again.body.error.code]).toEqual([path, 409, 'INVALID_TRANSITION']);
    }
    expect((await detail(order.id)).body.data.audit).toHaveLength(1);
  });

  it('makes one change of two concurrent decisions', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    const [release, refund] = await Promise.all([act(order.id, 'release'), act(order.id, 'refund')]);
    expect([release.status, refund.status].sort()).toEqual([200, 409]);
    const d = (await detail(order.id)).body.data;
    expect(d.audit).toHaveLength(1);
    expect(d.escrow.state).toBe(release.status === 200 ? 'RELEASED' : 'REFUNDED');
    expect(await balance(escrowAccount(order.id))).toBe(0);
    await t.app.jobs.drain();
    await providerPays();
  });

  it('replays a repeated decision with the same Idempotency-Key', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    const key = { 'idempotency-key': `release-${order.id}` };
    const first = await act(order.id, 'release', { reason }, key);
    expect(first.status).toBe(200);
    const second = await act(order.id, 'release', { reason }, key);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await act(order.id, 'release', { reason: 'another reason' }, key)).status).toBe(422);
    expect((await detail(order.id)).body.data.audit).toHaveLength(1);
    await t.app.jobs.drain();
    await providerPays();
  });

  it('lists escrows with filters and shows one with its payments, ledger and payouts', async () => {
    const s = await shop(t, adminToken);
    const a = await paidOrder(t, s);
    const b = await paidOrder(t, s, { complete: true });
    await act(a.order.id, 'dispute/open');
    const list = await call(t.app, 'GET', '/admin/payments/escrow', {
      token: adminToken,
      query: { supplierId: s.profile.id },
    });
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((e: { orderId: string }) => e.orderId)).toEqual([b.order.id, a.order.id]);
    const disputed = await call(t.app, 'GET', '/admin/payments/escrow', {
      token: adminToken,
      query: { storeId: s.store.id, state: 'DISPUTED' },
    });
    expect(disputed.body.data.map((e: { orderId: string }) => e.orderId)).toEqual([a.order.id]);
    expect(
      (await call(t.app, 'GET', '/admin/payments/escrow', { token: adminToken, query: { state: 'NOPE' } })).status,
    ).toBe(400);
    const d = await detail(b.order.id);
    expect(d.body.data).toMatchObject({
      escrow: {
        orderId: b.order.id,
        state: 'HELD',
        order: { status: 'COMPLETED', supplier: { id: s.profile.id }, store: { id: s.store.id } },
      },
      payments: [{ transactionId: b.order.payment.transactionId, status: 'SUCCEEDED' }],
      ledger: [{ kind: 'payment_received' }],
      payouts: [],
      audit: [],
    });
    // Money held for the supplier keeps it from deleting its profile.
    const del = await call(t.app, 'DELETE', '/suppliers/profile', { token: await fresh(s.user) });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toContain('held in escrow');
    await act(a.order.id, 'dispute/resolve-client');
    await act(b.order.id, 'refund');
  });
});

describe('payouts', () => {
  it('retries through a provider outage, then pays', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    t.mobilemoney.failNext(
      2,
      { status: 503, body: { code: 'service-unavailable', message: 'Try later' } },
      '/v1/payout',
    );
    await act(order.id, 'release');
    await t.app.jobs.drain();
    let payout = (await detail(order.id)).body.data.escrow.payout;
    expect(payout).toMatchObject({
      state: 'PROCESSING',
      providerPayoutId: null,
      lastError: expect.stringContaining('Try later'),
    });
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      await t.app.jobs.drain();
    }
    payout = (await detail(order.id)).body.data.escrow.payout;
    expect(payout).toMatchObject({ state: 'PROCESSING', attempts: 3, providerPayoutId: expect.stringMatching(/^pt-/) });
    await providerPays();
    expect((await detail(order.id)).body.data.escrow.payout.state).toBe('SUCCEEDED');
    // One payout at the provider: the retries carried the same idempotency key.
    const keys = new Set(
      t.mobilemoney
        .calls('/v1/payout')
        .filter((r) => (r.body as { client_reference: string }).client_reference === payout.id)
        .map((r) => r.idempotencyKey),
    );
    expect(keys.size).toBe(1);
  });

  it('gives up after the last retry of an outage: FAILED, the supplier told, sent again with a new number', async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    t.mobilemoney.failNext(
      SEND_RETRIES.retryLimit + 1,
      { status: 503, body: { code: 'service-unavailable', message: 'Down for maintenance' } },
      '/v1/payout',
    );
    await act(order.id, 'release');
    for (let i = 0; i <= SEND_RETRIES.retryLimit; i++) {
      await t.app.jobs.drain();
      t.clock.advance(HOUR);
    }
    await t.app.jobs.drain();
    const failed = (await detail(order.id)).body.data.escrow.payout;
    expect(failed).toMatchObject({
      state: 'FAILED',
      attempts: SEND_RETRIES.retryLimit + 1,
      lastError: expect.stringContaining('provider unreachable'),
    });
    const inbox = await call(t.app, 'GET', '/notifications', { token: await fresh(s.user) });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('payout_failed');
    await call(t.app, 'PUT', '/suppliers/profile', {
      token: await fresh(s.user),
      body: { payoutPhone: '+221771110001' },
    });
    await t.app.jobs.drain();
    await providerPays();
    expect((await detail(order.id)).body.data.escrow.payout).toMatchObject({
      state: 'SUCCEEDED',
      mobile: '+221771110001',
    });
  });

  it('fails for good, shows in the failed filter, and leaves again when the supplier changes its number', async () => {
    const s = await shop(t, adminToken, { payoutPhone: '+221770000000' });
    const { order } = await paidOrder(t, s, { complete: true });
    await act(order.id, 'release');
    await t.app.jobs.drain();
    await providerPays('failed');
    const failed = (await detail(order.id)).body.data.escrow.payout;
    expect(failed).toMatchObject({ state: 'FAILED', lastError: expect.stringContaining('recipient-not-found') });
    const list = await call(t.app, 'GET', '/admin/payments/escrow', {
      token: adminToken,
      query: { payout: 'failed', supplierId: s.profile.id },
    });
    expect(list.body.data.map((e: { orderId: string }) => e.orderId)).toEqual([order.id]);
    expect(await balance(supplierPayable(s.profile.id))).toBe(-failed.amount);
    const inbox = await call(t.app, 'GET', '/notifications', { token: await fresh(s.user) });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('payout_failed');

    expect(
      (
        await call(t.app, 'PUT', '/suppliers/profile', {
          token: await fresh(s.user),
          body: { payoutPhone: '+221771112233' },
        })
      ).status,
    ).toBe(200);
    await t.app.jobs.drain();
    await providerPays();
    const paid = (await detail(order.id)).body.data;
    expect(paid.escrow.payout).toMatchObject({
      id: failed.id,
      state: 'SUCCEEDED',
      mobile: '+221771112233',
      attempts: 2,
    });
    expect(await balance(supplierPayable(s.profile.id))).toBe(0);
    const keys = t.mobilemoney
      .calls('/v1/payout')
      .filter((r) => (r.body as { client_reference: string }).client_reference === failed.id)
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(2);
  });

  it("settles by the provider's payout webhook, once, and a payout we never sent changes nothing", async () => {
    const s = await shop(t, adminToken);
    const { order } = await paidOrder(t, s, { complete: true });
    await act(order.id, 'release');
    await t.app.jobs.drain();
    const payout = (await detail(order.id)).body.data.escrow.payout;
    const event = t.mobilemoney.event(
      'payout.completed',
      t.mobilemoney.settlePayout(payout.providerPayoutId, 'succeeded'),
    );
    expect(await deliverWebhook(t, event)).toMatchObject({ outcome: 'applied' });
    expect(await deliverWebhook(t, event)).toMatchObject({ outcome: expect.any(String) });
    expect((await detail(order.id)).body.data.escrow.payout).toMatchObject({ state: 'SUCCEEDED', attempts: 1 });
    expect(await balance(supplierPayable(s.profile.id))).toBe(0);
    const ledger = (await detail(order.id)).body.data.ledger.filter((x: { kind: string }) => x.kind === 'payout_sent');
    expect(ledger).toHaveLength(1);
    // A late failure of the same payout does not undo it.
    const late = t.mobilemoney.event('payout.failed', {
      ...t.mobilemoney.payouts.get(payout.providerPayoutId)!,
      status: 'failed',
    });
    expect(await deliverWebhook(t, late)).toMatchObject({ outcome: 'ignored' });
    const stranger = t.mobilemoney.event('payout.completed', {
      ...t.mobilemoney.payouts.get(payout.providerPayoutId)!,
      id: 'pt-unknown',
      client_reference: 'elsewhere',
    });
    expect(await deliverWebhook(t, stranger)).toMatchObject({ outcome: 'unknown_payment' });
    await t.app.jobs.drain();
    expect((await detail(order.id)).body.data.escrow.payout.state).toBe('SUCCEEDED');
  });

  it('waits without a payout number and leaves once one is set', async () => {
    const s = await shop(t, adminToken, { payoutPhone: null });
    const { order } = await paidOrder(t, s, { complete: true });
    await act(order.id, 'release');
    await t.app.jobs.drain();
    expect((await detail(order.id)).body.data.escrow.payout).toMatchObject({
      state: 'PENDING',
      waitingReason: 'NO_PAYOUT_PHONE',
      attempts: 0,
    });
    const inbox = await call(t.app, 'GET', '/notifications', { token: await fresh(s.user) });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toContain('payout_waiting_for_number');
    expect(
      (await call(t.app, 'DELETE', '/suppliers/profile', { token: await fresh(s.user) })).body.error.message,
    ).toContain('payout');

    await call(t.app, 'PUT', '/suppliers/profile', {
      token: await fresh(s.user),
      body: { payoutPhone: '+221771234500' },
    });
    await t.app.jobs.drain();
    await providerPays();
    expect((await detail(order.id)).body.data.escrow.payout).toMatchObject({
      state: 'SUCCEEDED',
      waitingReason: null,
      mobile: '+221771234500',
    });
  });
});

it('needs an administrator for the escrow list', async () => {
  const c = await createSignedIn(t.app);
  expect((await call(t.app, 'GET', '/admin/payments/escrow', { token: c.token })).status).toBe(403);
});
