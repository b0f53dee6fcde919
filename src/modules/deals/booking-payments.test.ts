import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { dealBookings } from '../../db/schema/deals.js';
import { notifications } from '../../db/schema/notifications.js';
import { payouts } from '../../db/schema/payouts.js';
import { commissionOf } from '../../shared/money.js';
import { bookingEscrow, refundsPending, supplierPayable } from '../ledger/index.js';
import {
  deliverWebhook,
  paidEvent as paidEventOf,
  postWebhook,
  sessionOfPayment,
} from '../payments/payments.test-support.js';
import {
  admin,
  bookInApp,
  inAppShop,
  moveTo,
  payBooking,
  publishDeal,
  supplierWithStore,
} from './deals.test-support.js';

// Deals paid in the app: every test moves money through the webhook, the ledger and the escrow of
// bookings, and the money checks hold after each (the booking's escrow, payments, release, payout, places).
let t: TestApp;
let adminToken: string;
let adminUser: Awaited<ReturnType<typeof admin>>['user'];
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await admin(t)).user;
});
// Tests move the clock past access tokens' life: sign in again where a token is used after a move.
const fresh = async (user: Awaited<ReturnType<typeof createSignedIn>>['user']) =>
  (await t.app.services.auth.signIn(user, {})).accessToken;
beforeEach(async () => {
  adminToken = await fresh(adminUser);
});
afterAll(() => t.close());
afterEach(() => assertMoneyInvariants(t.app));

const MINUTE = 60_000;
const db = () => t.app.ctx.db;
const balance = (account: string) => t.app.services.ledger.balance(db(), account);
const placesLeft = async (dealId: string) =>
  (await call(t.app, 'GET', `/deals/${dealId}`)).body.data.placesLeft as number;
const row = async (id: string) => (await db().select().from(dealBookings).where(eq(dealBookings.id, id)))[0]!;
const typesOf = async (userId: string) =>
  (await db().select({ type: notifications.type }).from(notifications).where(eq(notifications.userId, userId))).map(
    (n) => n.type,
  );
const book = (token: string, dealId: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  bookInApp(t, token, dealId, body, headers);
const cancel = (token: string, id: string) => call(t.app, 'POST', `/deals/bookings/${id}/cancel`, { token });
const validate = (token: string, code: string) =>
  call(t.app, 'POST', '/supplier/deals/bookings/validate', { token, body: { code } });

const shop = (over: Record<string, unknown> = {}) => inAppShop(t, adminToken, over);
const sessionOf = (paymentId: string) => sessionOfPayment(t, paymentId);
const paidEvent = (paymentId: string) => paidEventOf(t, paymentId);

/** A client's booking, held for its payment. */
async function held(s: { deal: { id: string } }, body: Record<string, unknown> = {}) {
  const c = await createSignedIn(t.app);
  const r = await book(c.token, s.deal.id, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return {
    c,
    booking: r.body.data as { id: string; code: string; totalPrice: number; payment: { transactionId: string } },
  };
}

/** A client's booking, paid through the signed webhook. */
async function paid(s: { deal: { id: string } }, body: Record<string, unknown> = {}) {
  const h = await held(s, body);
  expect(await payBooking(t, h.booking.payment.transactionId)).toBe('applied');
  return h;
}

describe('a deal paid in the app', () => {
  it('is chosen per deal (AT_COUNTER by default), and kept by the bookings made before a change', async () => {
    const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
    const counter = await publishDeal(t, s, adminToken);
    expect((await call(t.app, 'GET', `/deals/${counter.id}`)).body.data.paymentMode).toBe('AT_COUNTER');
    const c = await createSignedIn(t.app);
    const atCounter = await book(c.token, counter.id, { paymentMethod: undefined });
    expect(atCounter.body.data).toMatchObject({ paymentMode: 'AT_COUNTER', status: 'CONFIRMED', paymentStatus: null });
    expect(atCounter.body.data.payment).toBeUndefined();
    // A method is refused at the counter and required in the app.
    expect((await book(c.token, counter.id)).body.error.details[0].field).toBe('body.paymentMethod');
    const edited = await call(t.app, 'PUT', `/supplier/deals/${counter.id}`, {
      token: s.token,
      body: { paymentMode: 'IN_APP' },
    });
    expect(edited.body.data.paymentMode).toBe('IN_APP');
    await call(t.app, 'POST', `/admin/deals/${counter.id}/approve`, { token: adminToken });
    const inApp = await createSignedIn(t.app);
    const missing = await book(inApp.token, counter.id, { paymentMethod: undefined });
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'body.paymentMethod' }] });
    const mine = await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: c.token });
    expect(mine.body.data[0]).toMatchObject({ paymentMode: 'AT_COUNTER', status: 'CONFIRMED' });
  });

  it('holds the places until paid, then confirms the booking and holds the money in its escrow', async () => {
    const s = await shop({ totalPlaces: 5, placesPerClient: 2 });
    const { c, booking } = await held(s, { quantity: 2 });
    expect(booking).toMatchObject({
      status: 'PENDING_PAYMENT',
      paymentMode: 'IN_APP',
      paymentStatus: 'UNPAID',
      totalPrice: 2000,
      payment: { status: 'PENDING', amount: 2000, method: 'wave', attempt: 1 },
    });
    expect((booking as unknown as { payment: { redirectUrl: string } }).payment.redirectUrl).toMatch(/^http/);
    // The payment timeout (15 minutes by default) from the booking's time.
    const deadline = Date.parse((booking as unknown as { paymentDeadline: string }).paymentDeadline);
    expect(deadline - Date.parse((booking as unknown as { createdAt: string }).createdAt)).toBe(15 * MINUTE);
    expect(await placesLeft(s.deal.id)).toBe(3);
    // Nobody is told of a booking before it is paid; the counter cannot hand it over.
    expect(await typesOf(s.user.id)).not.toContain('deal_booking_received');
    expect((await validate(s.token, booking.code)).body.error.code).toBe('BOOKING_NOT_PAID');

    const event = await paidEvent(booking.payment.transactionId);
    expect(await deliverWebhook(t, event)).toMatchObject({ outcome: 'applied' });
    // A replay of the delivery is applied once.
    expect(await deliverWebhook(t, event)).toMatchObject({ outcome: 'duplicate' });
    expect(await row(booking.id)).toMatchObject({ status: 'CONFIRMED', paymentStatus: 'PAID' });
    expect(await balance(bookingEscrow(booking.id))).toBe(-2000);
    expect(await typesOf(c.user.id)).toContain('deal_booked');
    expect(await typesOf(s.user.id)).toContain('deal_booking_received');
    const mine = await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: c.token });
    expect(mine.body.data[0]).toMatchObject({
      id: booking.id,
      status: 'CONFIRMED',
      paymentStatus: 'PAID',
      payment: { status: 'SUCCEEDED', redirectUrl: null },
    });
  });

  it('validated at the counter: released to the shop less the commission, and paid out', async () => {
    const s = await shop();
    const { booking } = await paid(s);
    const used = await validate(s.token, booking.code);
    expect(used.body.data).toMatchObject({ status: 'USED', paymentStatus: 'RELEASED' });
    const { commissionBps } = await row(booking.id);
    const net = 1000 - commissionOf(1000, commissionBps!);
    expect(await balance(bookingEscrow(booking.id))).toBe(0);
    expect(await balance(supplierPayable(s.profile.id))).toBe(-net);
    const [payout] = await db().select().from(payouts).where(eq(payouts.bookingId, booking.id));
    expect(payout).toMatchObject({ supplierId: s.profile.id, orderId: null, amount: net });
    await t.app.jobs.drain();
    for (const p of t.mobilemoney.payouts.values())
      if (p.status === 'processing') t.mobilemoney.settlePayout(p.id, 'succeeded');
    t.clock.advance(5 * MINUTE);
    await t.app.jobs.drain();
    const listed = await call(t.app, 'GET', '/suppliers/money/payouts', { token: s.token });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ bookingId: booking.id, orderId: null, amount: net, state: 'SUCCEEDED' }),
    ]);
    expect(await balance(supplierPayable(s.profile.id))).toBe(0);
    const admins = await call(t.app, 'GET', '/admin/payments/payouts', {
      token: await fresh(adminUser),
      query: { supplierId: s.profile.id },
    });
    expect(admins.body.data).toEqual([
      expect.objectContaining({
        bookingId: booking.id,
        orderId: null,
        payee: expect.objectContaining({ type: 'supplier' }),
      }),
    ]);
  });

  it('frees the places at the payment deadline; a payment arriving later is refunded', async () => {
    const s = await shop({ totalPlaces: 1 });
    const { c, booking } = await held(s);
    expect(await placesLeft(s.deal.id)).toBe(0);
    t.clock.advance(15 * MINUTE);
    await t.app.jobs.drain();
    expect(await row(booking.id)).toMatchObject({ status: 'EXPIRED', paymentStatus: 'UNPAID' });
    expect(await placesLeft(s.deal.id)).toBe(1);
    expect(await typesOf(c.user.id)).toContain('deal_booking_expired');
    expect((await t.app.services.payments.find(db(), booking.payment.transactionId))!.status).toBe('EXPIRED');

    expect(await deliverWebhook(t, await paidEvent(booking.payment.transactionId))).toMatchObject({
      outcome: 'refunded',
    });
    expect(await row(booking.id)).toMatchObject({ status: 'EXPIRED', paymentStatus: 'UNPAID' });
    await t.app.jobs.drain();
    expect((await t.app.services.payments.find(db(), booking.payment.transactionId))!.status).toBe('REFUNDED');
    expect(await balance(refundsPending(booking.payment.transactionId))).toBe(0);
    expect(await typesOf(c.user.id)).toContain('deal_booking_refunded');
  });

  it('frees the places when the provider lets the payment page expire (reconciliation)', async () => {
    const s = await shop({ totalPlaces: 1 });
    const { booking } = await held(s);
    t.mobilemoney.expire((await sessionOf(booking.payment.transactionId)).id);
    t.clock.advance(3 * MINUTE);
    await t.app.services.payments.settlement.reconcile();
    expect(await row(booking.id)).toMatchObject({ status: 'EXPIRED' });
    expect(await placesLeft(s.deal.id)).toBe(1);
  });

  it('takes a payment that failed and is tried again on the same page before the deadline', async () => {
    const s = await shop();
    const { booking } = await held(s);
    const session = await sessionOf(booking.payment.transactionId);
    const failed = t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session.id));
    expect(await deliverWebhook(t, failed)).toMatchObject({ outcome: 'applied' });
    expect(await row(booking.id)).toMatchObject({ status: 'PENDING_PAYMENT' });
    expect(await deliverWebhook(t, await paidEvent(booking.payment.transactionId))).toMatchObject({
      outcome: 'applied',
    });
    expect(await row(booking.id)).toMatchObject({ status: 'CONFIRMED', paymentStatus: 'PAID' });
  });

  it('replays a booking sent again with its Idempotency-Key: one booking, one payment', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const headers = { 'idempotency-key': `book-${c.user.id}` };
    const first = await book(c.token, s.deal.id, {}, headers);
    const again = await book(c.token, s.deal.id, {}, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.payment.transactionId).toBe(first.body.data.payment.transactionId);
    expect((await book(c.token, s.deal.id, { quantity: 2 }, headers)).status).toBe(422);
    expect(await placesLeft(s.deal.id)).toBe(9);
  });

  it('makes one booking of two requests sent at once with one Idempotency-Key', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const headers = { 'idempotency-key': `twice-${c.user.id}` };
    const answers = await Promise.all([book(c.token, s.deal.id, {}, headers), book(c.token, s.deal.id, {}, headers)]);
    const made = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed']);
    expect(made).toHaveLength(1);
    // The other waited for it: its answer, or "still running" while the first answer was being stored.
    for (const r of answers.filter((x) => x !== made[0]))
      expect(r.status === 201 ? r.body.data.id : r.body.error.code).toBe(
        r.status === 201 ? made[0]!.body.data.id : 'IDEMPOTENCY_KEY_IN_USE',
      );
    expect(await placesLeft(s.deal.id)).toBe(9);
  });
});

describe('the last place with payments in flight', () => {
  it('two clients at once: one holds the place, the other gets 409 saying a payment holds it', async () => {
    const s = await shop({ totalPlaces: 1 });
    const [a, b] = [await createSignedIn(t.app), await createSignedIn(t.app)];
    const answers = await Promise.all([book(a.token, s.deal.id), book(b.token, s.deal.id)]);
    const won = answers.filter((r) => r.status === 201);
    const lost = answers.filter((r) => r.status !== 201);
    expect(won).toHaveLength(1);
    expect(lost.map((r) => [r.status, r.body.error.code])).toEqual([[409, 'DEAL_SOLD_OUT']]);
    expect(lost[0]!.body.error.message).toMatch(/held for payments in progress/);
    expect(await deliverWebhook(t, await paidEvent(won[0]!.body.data.payment.transactionId))).toMatchObject({
      outcome: 'applied',
    });
    expect(await placesLeft(s.deal.id)).toBe(0);
  });

  it('a hold that expired goes to the next client; the first one paying late is refunded, never both kept', async () => {
    const s = await shop({ totalPlaces: 1 });
    const first = await held(s);
    t.clock.advance(15 * MINUTE);
    await t.app.jobs.drain();
    const second = await held(s);
    const events = [
      await paidEvent(first.booking.payment.transactionId),
      await paidEvent(second.booking.payment.transactionId),
    ];
    const outcomes = await Promise.all(events.map(async (e) => (await deliverWebhook(t, e)).outcome));
    expect(outcomes).toEqual(['refunded', 'applied']);
    await t.app.jobs.drain();
    expect(await row(first.booking.id)).toMatchObject({ status: 'EXPIRED', paymentStatus: 'UNPAID' });
    expect(await row(second.booking.id)).toMatchObject({ status: 'CONFIRMED', paymentStatus: 'PAID' });
    expect(await placesLeft(s.deal.id)).toBe(0);
  });
});

describe('cancellation', () => {
  it('of a paid booking before the pickup window: refunded, places back, the shop told', async () => {
    const s = await shop({ totalPlaces: 2 });
    const { c, booking } = await paid(s);
    const r = await cancel(c.token, booking.id);
    expect(r.body.data).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUND_PENDING' });
    expect(await placesLeft(s.deal.id)).toBe(2);
    expect(await typesOf(s.user.id)).toContain('deal_booking_cancelled');
    await t.app.jobs.drain();
    const refundCalls = t.mobilemoney.calls(
      `/v1/checkout/sessions/${(await sessionOf(booking.payment.transactionId)).id}/refund`,
    );
    expect(refundCalls).toHaveLength(1);
    expect(await row(booking.id)).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    expect(await typesOf(c.user.id)).toContain('deal_booking_refunded');
  });

  it('refused once the pickup window started: the money stays held for the counter', async () => {
    const s = await shop();
    const { c, booking } = await paid(s);
    moveTo(t, 1, '18:30');
    expect((await cancel(await fresh(c.user), booking.id)).body.error.code).toBe('PICKUP_WINDOW_STARTED');
    expect(await balance(bookingEscrow(booking.id))).toBe(-1000);
  });

  it('of a booking awaiting its payment: its attempt closed, and a payment that comes anyway refunded', async () => {
    const s = await shop({ totalPlaces: 1 });
    const { c, booking } = await held(s);
    expect((await cancel(c.token, booking.id)).body.data).toMatchObject({
      status: 'CANCELLED',
      paymentStatus: 'UNPAID',
    });
    expect(await placesLeft(s.deal.id)).toBe(1);
    expect(await typesOf(s.user.id)).not.toContain('deal_booking_cancelled');
    expect(await deliverWebhook(t, await paidEvent(booking.payment.transactionId))).toMatchObject({
      outcome: 'refunded',
    });
    await t.app.jobs.drain();
    expect((await t.app.services.payments.find(db(), booking.payment.transactionId))!.status).toBe('REFUNDED');
  });

  it('racing the webhook ends cancelled and refunded once, whichever comes first', async () => {
    const s = await shop({ totalPlaces: 6, placesPerClient: 1 });
    const holds = await Promise.all(Array.from({ length: 6 }, () => held(s)));
    const events = await Promise.all(holds.map(({ booking }) => paidEvent(booking.payment.transactionId)));
    await Promise.all(holds.flatMap(({ c, booking }, i) => [cancel(c.token, booking.id), postWebhook(t, events[i])]));
    await t.app.jobs.drain();
    for (const { booking } of holds) {
      expect(await row(booking.id)).toMatchObject({ status: 'CANCELLED' });
      expect((await t.app.services.payments.find(db(), booking.payment.transactionId))!.status).toBe('REFUNDED');
      expect(await balance(bookingEscrow(booking.id))).toBe(0);
      const refunds = t.mobilemoney.calls(
        `/v1/checkout/sessions/${(await sessionOf(booking.payment.transactionId)).id}/refund`,
      );
      expect(refunds).toHaveLength(1);
    }
    expect(await placesLeft(s.deal.id)).toBe(6);
  });
});

describe('a no-show', () => {
  it('keeps the money for the shop less the commission by default (business.noShowRefunded off)', async () => {
    const s = await shop();
    const { c, booking } = await paid(s);
    moveTo(t, 1, '20:01');
    await t.app.jobs.drain();
    expect(await row(booking.id)).toMatchObject({ status: 'NO_SHOW', paymentStatus: 'RELEASED' });
    const { commissionBps } = await row(booking.id);
    expect(await balance(supplierPayable(s.profile.id))).toBe(-(1000 - commissionOf(1000, commissionBps!)));
    expect(await typesOf(c.user.id)).toContain('deal_booking_no_show');
  });
});
