import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { deals } from '../../db/schema/deals.js';
import { notifications } from '../../db/schema/notifications.js';
import { storeMembers } from '../../db/schema/staff.js';
import { stores } from '../../db/schema/stores.js';
import { uuidv7 } from '../../shared/ids.js';
import { DAY, admin, dakarDate, dealBody, publishDeal, supplierWithStore } from './deals.test-support.js';

let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

const typesOf = async (userId: string) =>
  (
    await t.app.ctx.db.select({ type: notifications.type }).from(notifications).where(eq(notifications.userId, userId))
  ).map((n) => n.type);
const book = (token: string, dealId: string, body: Record<string, unknown> = { quantity: 1 }) =>
  call(t.app, 'POST', `/deals/${dealId}/book`, { token, body });
const placesLeft = async (dealId: string) =>
  (await call(t.app, 'GET', `/deals/${dealId}`)).body.data.placesLeft as number;
/** What the booking's QR code holds (the PNG encodes exactly this token). */
const tokenOf = (b: { id: string; code: string }) => t.app.services.deals.bookings.tokens.sign(b.id, b.code);
const validate = (token: string, body: Record<string, unknown>) =>
  call(t.app, 'POST', '/supplier/deals/bookings/validate', { token, body });

async function shop(over: Record<string, unknown> = {}) {
  const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
  const deal = await publishDeal(t, s, adminToken, over);
  return { ...s, deal };
}

describe('booking a deal', () => {
  it('takes places, gives a short code paid at the counter, and tells both sides', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const r = await book(c.token, s.deal.id, { quantity: 2, pickupDate: dakarDate(t, 1) });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      dealId: s.deal.id,
      quantity: 2,
      unitPrice: 1000,
      totalPrice: 2000,
      currency: 'XOF',
      paymentMode: 'AT_COUNTER',
      status: 'CONFIRMED',
      pickupDate: dakarDate(t, 1),
    });
    expect(r.body.data.code).toMatch(/^[ACDEFGHJKMNPQRTUVWXY234679]{6}$/);
    expect(r.body.data.pickupStartsAt).toBe(`${dakarDate(t, 1)}T18:00:00.000Z`);
    expect(await placesLeft(s.deal.id)).toBe(8);
    expect(await typesOf(c.user.id)).toContain('deal_booked');
    expect(await typesOf(s.user.id)).toContain('deal_booking_received');
    const mine = await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: c.token });
    expect(mine.body.data.map((b: { id: string }) => b.id)).toEqual([r.body.data.id]);
    const received = await call(t.app, 'GET', '/supplier/deals/bookings', {
      token: s.token,
      query: { status: 'CONFIRMED' },
    });
    expect(received.body.data.map((b: { id: string }) => b.id)).toEqual([r.body.data.id]);
    expect(
      (await call(t.app, 'GET', '/supplier/deals/bookings', { token: (await supplierWithStore(t)).token })).body.meta
        .total,
    ).toBe(0);
  });

  it('keeps to the per-client limit and the places left', async () => {
    const s = await shop({ totalPlaces: 3, placesPerClient: 2 });
    const [a, b] = [await createSignedIn(t.app), await createSignedIn(t.app)];
    expect((await book(a.token, s.deal.id, { quantity: 3 })).body.error.code).toBe('BOOKING_LIMIT_REACHED');
    expect((await book(a.token, s.deal.id, { quantity: 2 })).status).toBe(201);
    expect((await book(a.token, s.deal.id, { quantity: 1 })).body.error.code).toBe('BOOKING_LIMIT_REACHED');
    expect((await book(b.token, s.deal.id, { quantity: 2 })).body.error.code).toBe('DEAL_SOLD_OUT');
    expect((await book(b.token, s.deal.id, { quantity: 1 })).status).toBe(201);
    expect((await call(t.app, 'GET', `/deals/${s.deal.id}`)).body.data).toMatchObject({
      placesLeft: 0,
      status: 'SOLD_OUT',
    });
    expect((await call(t.app, 'GET', '/deals', { query: { storeId: s.store.id } })).body.data).toEqual([]);
  });

  it('the last place goes to exactly one of many clients booking at once', async () => {
    const s = await shop({ totalPlaces: 1, placesPerClient: 1 });
    const clients = await Promise.all(Array.from({ length: 8 }, () => createSignedIn(t.app)));
    const results = await Promise.all(clients.map((c) => book(c.token, s.deal.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.filter((r) => r.status !== 201).map((r) => r.body.error.code))).toEqual(
      new Set(['DEAL_SOLD_OUT']),
    );
    expect(await placesLeft(s.deal.id)).toBe(0);
  });

  it('one client booking many times at once gets only the places allowed per client', async () => {
    const s = await shop({ totalPlaces: 10, placesPerClient: 2 });
    const c = await createSignedIn(t.app);
    const results = await Promise.all(Array.from({ length: 5 }, () => book(c.token, s.deal.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(await placesLeft(s.deal.id)).toBe(8);
  });

  it('answers a retry with its Idempotency-Key by the first booking, even once the deal is full or paused', async () => {
    const s = await shop({ totalPlaces: 1, placesPerClient: 1 });
    const c = await createSignedIn(t.app);
    const keyed = (key: string) =>
      call(t.app, 'POST', `/deals/${s.deal.id}/book`, {
        token: c.token,
        body: { quantity: 1 },
        headers: { 'idempotency-key': key },
      });
    const first = await keyed(`counter-${c.user.id}`);
    expect(first.status).toBe(201);
    const replayed = (r: Awaited<ReturnType<typeof keyed>>) => [
      r.status,
      r.headers['idempotent-replayed'],
      r.body.data?.id,
    ];
    // The last place is its own: a lost answer asked again is that booking, not "sold out".
    expect(replayed(await keyed(`counter-${c.user.id}`))).toEqual([201, 'true', first.body.data.id]);
    expect(await placesLeft(s.deal.id)).toBe(0);
    await call(t.app, 'POST', `/supplier/deals/${s.deal.id}/toggle-pause`, { token: s.token });
    expect(replayed(await keyed(`counter-${c.user.id}`))).toEqual([201, 'true', first.body.data.id]);
    // A new key meets the deal as it is now.
    expect((await keyed(`other-${c.user.id}`)).body.error.code).toBe('DEAL_PAUSED');
    const mine = await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: c.token });
    expect(mine.body.data.map((b: { id: string }) => b.id)).toEqual([first.body.data.id]);
  });

  it('refuses a paused deal, a closed or inactive store, with codes saying which', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    await call(t.app, 'POST', `/supplier/deals/${s.deal.id}/toggle-pause`, { token: s.token });
    expect((await book(c.token, s.deal.id)).body.error.code).toBe('DEAL_PAUSED');
    await call(t.app, 'POST', `/supplier/deals/${s.deal.id}/toggle-pause`, { token: s.token });
    const now = t.clock.now().getTime();
    await t.app.ctx.db
      .update(stores)
      .set({ closureStartsAt: new Date(now - 1000), closureEndsAt: new Date(now + DAY), closureReason: 'Inventaire' })
      .where(eq(stores.id, s.store.id));
    expect((await book(c.token, s.deal.id)).body.error.code).toBe('STORE_CLOSED');
    await t.app.ctx.db
      .update(stores)
      .set({ closureStartsAt: null, closureEndsAt: null, closureReason: null, isActive: false })
      .where(eq(stores.id, s.store.id));
    expect((await book(c.token, s.deal.id)).body.error.code).toBe('STORE_INACTIVE');
    await t.app.ctx.db.update(stores).set({ isActive: true }).where(eq(stores.id, s.store.id));
    expect((await book(c.token, s.deal.id)).status).toBe(201);
  });

  it('refuses a deal under review (404), an unknown or malformed id, bad input and anonymous callers', async () => {
    const s = await supplierWithStore(t);
    const pending = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id) });
    const c = await createSignedIn(t.app);
    if (pending.body.data.status === 'PENDING_REVIEW')
      expect((await book(c.token, pending.body.data.id)).status).toBe(404);
    expect((await book(c.token, uuidv7())).status).toBe(404);
    expect((await book(c.token, 'x')).status).toBe(400);
    const d = await publishDeal(t, s, adminToken, {
      validUntil: new Date(t.clock.now().getTime() + 3 * DAY).toISOString(),
    });
    expect((await book(c.token, d.id, { quantity: 0 })).status).toBe(400);
    const far = await book(c.token, d.id, { quantity: 1, pickupDate: dakarDate(t, 10) });
    expect(far.status).toBe(400);
    expect(far.body.error.details[0].field).toBe('body.pickupDate');
    expect((await book(c.token, d.id, { quantity: 1, pickupDate: dakarDate(t, -1) })).status).toBe(400);
    expect((await call(t.app, 'POST', `/deals/${d.id}/book`, { body: { quantity: 1 } })).status).toBe(401);
  });

  it("the QR code is a PNG for the booking's client only", async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    const png = await t.app.inject({
      method: 'GET',
      url: `/api/v1/deals/bookings/${b.id}/qr-code`,
      headers: { authorization: `Bearer ${c.token}` },
    });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await call(t.app, 'GET', `/deals/bookings/${b.id}/qr-code`, { token: s.token })).status).toBe(404);
    expect((await call(t.app, 'POST', `/deals/bookings/${b.id}/cancel`, { token: s.token })).status).toBe(404);
  });
});

describe('the deal of a booking', () => {
  it('stays readable to the client holding places once paused or expired; others get 404', async () => {
    const s = await shop();
    const holder = await createSignedIn(t.app);
    const other = await createSignedIn(t.app);
    const cancelled = await createSignedIn(t.app);
    expect((await book(holder.token, s.deal.id)).status).toBe(201);
    // Tomorrow's window: today's may have started already, whatever the time of day the test runs.
    const gone = (await book(cancelled.token, s.deal.id, { quantity: 1, pickupDate: dakarDate(t, 1) })).body.data;
    expect((await call(t.app, 'POST', `/deals/bookings/${gone.id}/cancel`, { token: cancelled.token })).status).toBe(
      200,
    );
    const page = (token?: string) => call(t.app, 'GET', `/deals/${s.deal.id}`, { token });

    expect(
      (await call(t.app, 'POST', `/supplier/deals/${s.deal.id}/toggle-pause`, { token: s.token })).body.data.status,
    ).toBe('PAUSED');
    const seen = await page(holder.token);
    expect([seen.status, seen.body.data?.id, seen.body.data?.status]).toEqual([200, s.deal.id, 'PAUSED']);
    // What the holder sees is nobody else's: no shared cache may keep it.
    expect(seen.headers['cache-control']).toBe('private, no-store');
    expect(seen.headers.vary).toMatch(/authorization/i);
    for (const res of [await page(), await page(other.token), await page(cancelled.token), await page(s.token)])
      expect(res.status).toBe(404);

    // Ends a second from now (never before it starts), then the clock passes it.
    await t.app.ctx.db
      .update(deals)
      .set({ status: 'ACTIVE', validUntil: new Date(t.clock.now().getTime() + 1000) })
      .where(eq(deals.id, s.deal.id));
    t.clock.advance(2000);
    expect((await page(holder.token)).body.data.status).toBe('EXPIRED');
    expect((await page()).status).toBe(404);
    expect((await page(other.token)).status).toBe(404);
  });
});

describe("the booking's QR token in its JSON", () => {
  it('is what the QR code encodes, for its client only, and the counter accepts it once', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    expect(b.qrToken).toBe(tokenOf(b));
    const listed = (await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: c.token })).body.data.find(
      (x: { id: string }) => x.id === b.id,
    );
    expect(listed.qrToken).toBe(b.qrToken);
    const store = (await call(t.app, 'GET', '/supplier/deals/bookings', { token: s.token })).body.data.find(
      (x: { id: string }) => x.id === b.id,
    );
    expect(store).not.toHaveProperty('qrToken');
    const used = await validate(s.token, { token: b.qrToken });
    expect([used.status, used.body.data?.status]).toEqual([200, 'USED']);
    expect(used.body.data).not.toHaveProperty('qrToken');
    expect((await validate(s.token, { token: b.qrToken })).body.error.code).toBe('BOOKING_ALREADY_USED');
  });
});

describe('validating at the counter', () => {
  it('by QR token once: the second scan is 409 BOOKING_ALREADY_USED with when it was used', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    const first = await validate(s.token, { token: tokenOf(b) });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: b.id, status: 'USED' });
    expect(await typesOf(c.user.id)).toContain('deal_booking_used');
    const second = await validate(s.token, { token: tokenOf(b) });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('BOOKING_ALREADY_USED');
    expect(second.body.error.message).toContain(first.body.data.usedAt);
    expect((await call(t.app, 'POST', `/deals/bookings/${b.id}/cancel`, { token: c.token })).body.error.code).toBe(
      'BOOKING_NOT_CANCELLABLE',
    );
  });

  it('two scans of one QR code at once: one success, one BOOKING_ALREADY_USED', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    const results = await Promise.all([
      validate(s.token, { token: tokenOf(b) }),
      validate(s.token, { token: tokenOf(b) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.error.code).toBe('BOOKING_ALREADY_USED');
  });

  it("refuses a tampered token, an order's token and a token of another store's booking", async () => {
    const s = await shop();
    const other = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    const token = tokenOf(b);
    const [payload, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ o: b.id, c: 'AAAAAA' })).toString('base64url');
    for (const bad of [
      `${forged}.${sig}`,
      `${payload}.${sig.slice(0, -2)}xx`,
      'not-a-token',
      `${payload}.${sig}.x`,
      t.app.services.orders.tokens.sign(b.id, b.code),
    ]) {
      const r = await validate(s.token, { token: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('INVALID_BOOKING_TOKEN');
    }
    expect((await validate(other.token, { token })).status).toBe(404);
    expect((await validate(other.token, { code: b.code })).status).toBe(404);
    expect((await validate(s.token, {})).status).toBe(400);
    expect((await validate(s.token, { token, code: b.code })).status).toBe(400);
    // Untouched after all that.
    expect((await validate(s.token, { token })).status).toBe(200);
  });

  it('by short code, typed loosely, by the owner or a STAFF member of the store', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id)).body.data;
    const staff = await createSupplier(t.app);
    const at = t.clock.now();
    await t.app.ctx.db.insert(storeMembers).values({
      id: uuidv7(),
      storeId: s.store.id,
      userId: staff.user.id,
      role: 'STAFF',
      createdAt: at,
      updatedAt: at,
    });
    const loose = `${b.code.slice(0, 3).toLowerCase()}-${b.code.slice(3)}`;
    const r = await validate(staff.token, { code: loose });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe('USED');
    expect(
      (await call(t.app, 'GET', '/supplier/deals/bookings', { token: staff.token })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([b.id]);
    expect((await validate(s.token, { code: b.code })).body.error.code).toBe('BOOKING_ALREADY_USED');
  });

  it('a cancelled booking cannot be validated; its places came back', async () => {
    const s = await shop();
    const c = await createSignedIn(t.app);
    const b = (await book(c.token, s.deal.id, { quantity: 2, pickupDate: dakarDate(t, 1) })).body.data;
    expect(await placesLeft(s.deal.id)).toBe(8);
    const cancelled = await call(t.app, 'POST', `/deals/bookings/${b.id}/cancel`, { token: c.token });
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED' });
    expect(await placesLeft(s.deal.id)).toBe(10);
    expect(await typesOf(s.user.id)).toContain('deal_booking_cancelled');
    expect((await validate(s.token, { token: tokenOf(b) })).body.error.code).toBe('BOOKING_CANCELLED');
    expect((await call(t.app, 'POST', `/deals/bookings/${b.id}/cancel`, { token: c.token })).body.error.code).toBe(
      'BOOKING_NOT_CANCELLABLE',
    );
  });
});
