import fc from 'fast-check';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeCampaign, advertiser, DAY, startTopUp } from '../src/modules/advertising/advertising.test-support.js';
import { admin, bookInApp, inAppShop } from '../src/modules/deals/deals.test-support.js';
import { deliverWebhook } from '../src/modules/payments/payments.test-support.js';
import type { UserRecord } from '../src/modules/users/users.repository.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { playHistory, type Answer } from './helpers/histories.js';
import { moneyInvariantViolations } from './helpers/money-invariants.js';

// Random histories of the money beside orders, partly concurrent, against one app: bookings of a
// deal paid in the app (booked, paid, failed, paid twice or late, cancelled, validated, left to the
// deadline or to a no-show) and an advertiser's balance (topped up, spent by clicks at its last
// francs). Whatever happens: no 5xx, and every money invariant holds (escrow of each booking, the
// places of the deal, payments, payouts, refunds, top-ups credited once, spend within the balance).

const CLIENTS = 4;
const PLACES = 2;
const BID = 100;

let t: TestApp;
let adminUser: UserRecord;
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await admin(t)).user as UserRecord;
  // A day of its own at noon: ad pacing lets half a daily budget be spent by then.
  t.clock.advance(randomInt(3000, 9000) * DAY);
  t.clock.advance(DAY - (t.clock.now().getTime() % DAY) + DAY / 2);
  await t.app.jobs.drain();
});
afterAll(() => t.close());

type Action =
  | { kind: 'book'; client: number }
  | { kind: 'pay' | 'fail' | 'redeliver' | 'cancel' | 'validate'; booking: number }
  | { kind: 'topUp'; amount: number }
  | { kind: 'payTopUp'; topUp: number }
  | { kind: 'click' }
  | { kind: 'deadline' | 'pickup' | 'afterPickup' };

const index = fc.nat({ max: 20 });
const book = fc.record({ kind: fc.constant('book' as const), client: fc.nat({ max: CLIENTS - 1 }) });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: book },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay' as const), booking: index }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constantFrom('fail', 'redeliver', 'cancel', 'validate'), booking: index }),
  },
  // Top-ups of whole clicks and of less than one: the balance is often a few francs short of a click.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('topUp' as const), amount: fc.constantFrom(100, 150, 250) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payTopUp' as const), topUp: index }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'click' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('deadline', 'pickup', 'afterPickup') }) },
) as fc.Arbitrary<Action>;
/** A first booking, then about 20 actions in groups of 1 to 3 run at the same time. */
const history = fc
  .tuple(book, fc.array(fc.array(action, { minLength: 1, maxLength: 3 }), { minLength: 8, maxLength: 11 }))
  .map(([first, rest]) => [[first as Action], ...rest]);

interface Booked {
  id: string;
  code: string;
  paymentId: string;
  client: UserRecord;
}

/** A fresh access token: histories move the clock by hours and days, past any token's life. */
const signIn = async (user: UserRecord) => (await t.app.services.auth.signIn(user, {})).accessToken;

/** Moves the clock to the next `hh:mm` (UTC, Dakar's time) still ahead. */
function nextTime(hours: number, minutes: number): void {
  const now = t.clock.now().getTime();
  let at = now - (now % DAY) + (hours * 60 + minutes) * 60_000;
  if (at <= now) at += DAY;
  t.clock.advance(at - now);
}

async function runHistory(groups: Action[][]): Promise<void> {
  const s = await inAppShop(t, await signIn(adminUser), { totalPlaces: PLACES });
  const supplier = s.user as UserRecord;
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => createSignedIn(t.app)));
  // Two clicks' worth and a half: the third click finds 50 francs.
  const a = await advertiser(t, { balance: 250 });
  const campaign = await activeCampaign(t, a, await signIn(adminUser), { bid: BID });
  const booked: Booked[] = [];
  const topUps: string[] = [];
  const events = new Map<string, unknown>();
  const answers: Answer[] = [];
  const record = (kind: string, res: { status: number }) => void answers.push({ action: kind, status: res.status });
  const pick = <T>(list: T[], i: number) => (list.length ? list[i % list.length] : undefined);

  /** Pays (or fails) a payment's session at the fake provider and delivers the signed event. */
  async function settle(kind: 'pay' | 'fail', paymentId: string) {
    const session = (await t.app.services.payments.find(t.app.ctx.db, paymentId))?.providerSessionId;
    if (!session || !t.mobilemoney.sessions.has(session)) return;
    const event =
      kind === 'pay'
        ? t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session))
        : t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session));
    if (kind === 'pay') events.set(paymentId, event);
    await deliverWebhook(t, event);
    record(kind, { status: 200 });
  }

  async function run(x: Action): Promise<void> {
    switch (x.kind) {
      case 'book': {
        const client = clients[x.client]!.user as UserRecord;
        const res = await bookInApp(t, await signIn(client), s.deal.id);
        record(x.kind, res);
        const b = res.body.data;
        if (res.status === 201) booked.push({ id: b.id, code: b.code, paymentId: b.payment.transactionId, client });
        return;
      }
      case 'topUp': {
        const started = await startTopUp(t, { token: await signIn(a.user as UserRecord) }, x.amount);
        topUps.push(started.payment.transactionId);
        return record(x.kind, { status: 201 });
      }
      case 'payTopUp': {
        const paymentId = pick(topUps, x.topUp);
        if (paymentId) await settle('pay', paymentId);
        return;
      }
      case 'click': {
        const ip = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
        const served = await call(t.app, 'GET', '/advertising/ads', {
          query: { placement: 'HOME_BANNER', city: campaign.city! },
          remoteAddress: ip(),
        });
        record('serve', served);
        const ad = served.body.data?.[0] as { id: string; clickToken: string } | undefined;
        if (!ad) return;
        const res = await call(t.app, 'POST', `/advertising/ads/${ad.id}/click`, {
          body: { token: ad.clickToken },
          remoteAddress: ip(),
        });
        return record(x.kind, res);
      }
      case 'deadline':
      case 'pickup':
      case 'afterPickup':
        // Past the payment deadline; into the pickup window (18:00-20:00); past it (no-shows).
        if (x.kind === 'deadline') t.clock.advance(16 * 60_000);
        else if (x.kind === 'pickup') nextTime(18, 30);
        else nextTime(20, 30);
        await t.app.jobs.drain();
        return record(x.kind, { status: 200 });
    }
    const b = pick(booked, x.booking);
    if (!b) return;
    switch (x.kind) {
      case 'pay':
      case 'fail':
        return settle(x.kind, b.paymentId);
      case 'redeliver': {
        const event = events.get(b.paymentId);
        if (event) record(x.kind, { status: 200, ...(await deliverWebhook(t, event)) });
        return;
      }
      case 'cancel':
        return record(
          x.kind,
          await call(t.app, 'POST', `/deals/bookings/${b.id}/cancel`, { token: await signIn(b.client) }),
        );
      case 'validate':
        return record(
          x.kind,
          await call(t.app, 'POST', '/supplier/deals/bookings/validate', {
            token: await signIn(supplier),
            body: { code: b.code },
          }),
        );
    }
  }

  // What the history left to the jobs runs before the checks.
  const story = await playHistory(t, groups, run, answers, (x) =>
    ['deadline', 'pickup', 'afterPickup'].includes(x.kind),
  );
  expect(await moneyInvariantViolations(t.app), story).toEqual([]);
}

describe('random histories of bookings paid in the app, top-ups and clicks', () => {
  it('keep the places, the ledger, every escrow and every balance consistent', async () => {
    await fc.assert(fc.asyncProperty(history, runHistory), { numRuns: 8, endOnFailure: true });
  }, 300_000);
});
