import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { admin, dakarDate, moveTo, publishDeal, supplierWithStore } from './deals.test-support.js';

// Bookings as time passes: the clock moves to the pickup day, so every token is signed again after.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const signIn = async (u: { user: Parameters<TestApp['app']['services']['auth']['signIn']>[0] }) =>
  (await t.app.services.auth.signIn(u.user, {})).accessToken;

describe('the pickup window', () => {
  it('cancellation until it starts, validation until it ends, then NO_SHOW by the job (places stay taken)', async () => {
    const a = await admin(t);
    const s = await supplierWithStore(t);
    const deal = await publishDeal(t, s, a.token, { totalPlaces: 5, placesPerClient: 5 });
    const c = await createSignedIn(t.app);
    const tomorrow = dakarDate(t, 1);
    const book = async (token: string) =>
      (await call(t.app, 'POST', `/deals/${deal.id}/book`, { token, body: { quantity: 1, pickupDate: tomorrow } })).body
        .data as { id: string; code: string };
    const [early, used, missed] = [await book(c.token), await book(c.token), await book(c.token)];
    expect((await call(t.app, 'POST', `/deals/bookings/${early.id}/cancel`, { token: c.token })).status).toBe(200);

    moveTo(t, 1, '18:30');
    const [client, supplier] = [await signIn(c), await signIn(s)];
    const late = await call(t.app, 'POST', `/deals/bookings/${missed.id}/cancel`, { token: client });
    expect(late.body.error.code).toBe('PICKUP_WINDOW_STARTED');
    expect(
      (await call(t.app, 'POST', '/supplier/deals/bookings/validate', { token: supplier, body: { code: used.code } }))
        .status,
    ).toBe(200);

    moveTo(t, 0, '20:05');
    const [client2, supplier2] = [await signIn(c), await signIn(s)];
    const passed = await call(t.app, 'POST', '/supplier/deals/bookings/validate', {
      token: supplier2,
      body: { token: t.app.services.deals.bookings.tokens.sign(missed.id, missed.code) },
    });
    expect(passed.body.error.code).toBe('PICKUP_WINDOW_PASSED');
    await t.app.jobs.drain();
    const mine = await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: client2 });
    expect(new Map(mine.body.data.map((b: { id: string; status: string }) => [b.id, b.status]))).toEqual(
      new Map([
        [early.id, 'CANCELLED'],
        [used.id, 'USED'],
        [missed.id, 'NO_SHOW'],
      ]),
    );
    const notes = await call(t.app, 'GET', '/notifications', { token: client2, query: { limit: 50 } });
    expect(notes.body.data.map((n: { type: string }) => n.type)).toContain('deal_booking_no_show');
    // Places of a missed pickup are not given back: the day is over.
    expect((await call(t.app, 'GET', `/deals/${deal.id}`)).body.data.placesLeft).toBe(3);
    expect(
      (await call(t.app, 'GET', '/deals/bookings/my-bookings', { token: client2, query: { status: 'NO_SHOW' } })).body
        .meta.total,
    ).toBe(1);
  });
});
