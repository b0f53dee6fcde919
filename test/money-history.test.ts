import fc from 'fast-check';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../src/db/client.js';
import type { UserRecord } from '../src/modules/users/users.repository.js';
import { admin, deliverWebhook, shop } from '../src/modules/escrow/escrow.test-support.js';
import { newClient } from '../src/modules/orders/orders.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call } from './helpers/http.js';
import { playHistory, type Answer } from './helpers/histories.js';
import { moneyInvariantViolations } from './helpers/money-invariants.js';

// Random histories of orders and their money (made, paid, failed, expired, cancelled, moved along,
// released, refunded, disputed and settled), partly concurrent, against one app: whatever happens,
// stock is kept, every ledger transaction and the whole ledger balance, and every escrow account
// holds what its state says.

const STOCK = 40;
const HOUR = 3_600_000;
const reason = 'Decided while checking the order history';

let t: TestApp;
let adminUser: UserRecord;
beforeAll(async () => {
  t = await buildTestApp();
  adminUser = (await admin(t)).user as UserRecord;
});
afterAll(() => t.close());

type Action =
  | { kind: 'create'; client: number; product: number; quantity: number }
  | {
      kind:
        | 'pay'
        | 'fail'
        | 'cancelClient'
        | 'cancelSupplier'
        | 'confirm'
        | 'prepare'
        | 'ready'
        | 'complete'
        | 'advance'
        | 'collect';
      order: number;
    }
  | { kind: 'refund' | 'release' | 'disputeOpen' | 'resolveSupplier' | 'resolveClient'; order: number }
  | { kind: 'expire' | 'releaseJob' };

const orderIndex = fc.nat({ max: 50 });
const create = fc.record({
  kind: fc.constant('create' as const),
  client: fc.nat({ max: 2 }),
  product: fc.nat({ max: 1 }),
  quantity: fc.integer({ min: 1, max: 3 }),
});
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: create },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay' as const), order: orderIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('fail', 'cancelClient', 'cancelSupplier', 'confirm', 'prepare', 'ready', 'complete'),
      order: orderIndex,
    }),
  },
  // The supplier's next step whatever the order's state: histories reach collected orders and releases.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), order: orderIndex }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('collect' as const), order: orderIndex }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom('refund', 'release', 'disputeOpen', 'resolveSupplier', 'resolveClient'),
      order: orderIndex,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('expire', 'releaseJob') }) },
) as fc.Arbitrary<Action>;
/** About 20 actions after a few first orders, in groups of 1 to 3 run at the same time. */
const history = fc
  .tuple(
    fc.array(create, { minLength: 2, maxLength: 3 }),
    fc.array(fc.array(action, { minLength: 1, maxLength: 3 }), { minLength: 8, maxLength: 11 }),
  )
  .map(([first, rest]) => [first as Action[], ...rest]);

const NEXT: Record<string, string> = {
  PENDING: 'CONFIRMED',
  CONFIRMED: 'PREPARING',
  PREPARING: 'READY',
  READY: 'COMPLETED',
};

interface Placed {
  id: string;
  code: string;
  client: UserRecord;
}

async function runHistory(groups: Action[][]): Promise<void> {
  const adminToken = () => signIn(adminUser);
  const s = await shop(t, await adminToken(), {
    products: 2,
    product: {
      quantity: STOCK,
      discountedPrice: 700,
      originalPrice: 1400,
      pickupStart: '00:00',
      pickupEnd: '23:59',
      expiresAt: new Date(t.clock.now().getTime() + 60 * 24 * HOUR).toISOString(),
    },
  });
  const clients = await Promise.all([0, 1, 2].map(() => newClient(t)));
  const supplier = s.user as UserRecord;
  const placed: Placed[] = [];
  const answers: (Answer & { body: unknown })[] = [];
  const pick = (i: number) => (placed.length ? placed[i % placed.length] : undefined);
  const record = (a: Action, res: { status: number; body: unknown }) =>
    void answers.push({ action: a.kind, status: res.status, body: res.body });
  const status = async (a: Action, o: Placed, body: Record<string, unknown>) =>
    record(a, await call(t.app, 'PATCH', `/orders/${o.id}/status`, { token: await signIn(supplier), body }));
  const escrow = async (a: Action, o: Placed, path: string) =>
    record(
      a,
      await call(t.app, 'POST', `/admin/payments/escrow/${o.id}/${path}`, {
        token: await adminToken(),
        body: { reason },
      }),
    );

  async function among(i: number, where: SQL): Promise<Placed | undefined> {
    const ids = await rows<{ id: string }>(
      t.app.ctx.db,
      sql`select o.id from orders o left join escrows e on e.order_id = o.id where o.store_id = ${s.store.id} and ${where} order by o.id`,
    );
    const id = ids.length ? ids[i % ids.length]!.id : undefined;
    return placed.find((p) => p.id === id) ?? pick(i);
  }

  async function run(a: Action): Promise<void> {
    if (a.kind === 'create') {
      const client = clients[a.client]!.user as UserRecord;
      const res = await call(t.app, 'POST', '/orders', {
        token: await signIn(client),
        body: { items: [{ productId: s.products[a.product]!.id, quantity: a.quantity }], paymentMethod: 'wave' },
      });
      record(a, res);
      if (res.status === 201) placed.push({ id: res.body.data.id, code: res.body.data.pickup.code, client });
      return;
    }
    if (a.kind === 'expire' || a.kind === 'releaseJob') {
      // Past the payment deadline, or past the release delay; the jobs due then run.
      t.clock.advance(a.kind === 'expire' ? 16 * 60_000 : 49 * HOUR);
      await t.app.jobs.drain();
      return record(a, { status: 200, body: null });
    }
    // Handovers and escrow decisions aim at orders they can apply to (paid; with an escrow), or
    // most of them would only be refused; the other actions take any order.
    const o =
      a.kind === 'collect'
        ? await among(a.order, sql`o.payment_status = 'PAID' and o.status not in ('COMPLETED', 'CANCELLED')`)
        : ['release', 'refund', 'disputeOpen', 'resolveSupplier', 'resolveClient'].includes(a.kind) && 'order' in a
          ? await among(a.order, sql`e.state is not null`)
          : 'order' in a
            ? pick(a.order)
            : undefined;
    if (!o) return;
    switch (a.kind) {
      case 'pay':
      case 'fail': {
        const latest = (await t.app.services.payments.latestOfOrders(t.app.ctx.db, [o.id])).get(o.id)?.payment;
        if (!latest?.providerSessionId || !t.mobilemoney.sessions.has(latest.providerSessionId)) return;
        const session = latest.providerSessionId;
        const event =
          a.kind === 'pay'
            ? t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session))
            : t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(session));
        answers.push({ action: a.kind, status: 200, body: await deliverWebhook(t, event) });
        return;
      }
      case 'cancelClient':
        return record(
          a,
          await call(t.app, 'POST', `/orders/${o.id}/cancel`, { token: await signIn(o.client), body: { reason } }),
        );
      case 'cancelSupplier':
        return status(a, o, { status: 'CANCELLED', reason });
      case 'confirm':
        return status(a, o, { status: 'CONFIRMED' });
      case 'prepare':
        return status(a, o, { status: 'PREPARING' });
      case 'ready':
        return status(a, o, { status: 'READY' });
      case 'complete':
        return status(a, o, { status: 'COMPLETED', pickupCode: o.code });
      case 'advance':
      case 'collect': {
        // One step, or every step to the handover (stopping at the first refusal).
        for (;;) {
          const current = (await call(t.app, 'GET', `/orders/${o.id}`, { token: await signIn(supplier) })).body.data
            .status as string;
          const next = NEXT[current];
          if (!next) return;
          const before = answers.length;
          await status(a, o, { status: next, ...(next === 'COMPLETED' && { pickupCode: o.code }) });
          if (a.kind === 'advance' || answers[before]!.status !== 200) return;
        }
      }
      case 'refund':
        return escrow(a, o, 'refund');
      case 'release':
        return escrow(a, o, 'release');
      case 'disputeOpen':
        return escrow(a, o, 'dispute/open');
      case 'resolveSupplier':
        return escrow(a, o, 'dispute/resolve-supplier');
      case 'resolveClient':
        return escrow(a, o, 'dispute/resolve-client');
    }
  }

  // What the history left to the jobs runs before the checks.
  const story = await playHistory(t, groups, run, answers, (a) => a.kind === 'expire' || a.kind === 'releaseJob');
  const stock = await rows<{ id: string; quantity: number; reserved: number; sold: number }>(
    t.app.ctx.db,
    sql`select id, quantity, reserved_quantity as reserved, sold_quantity as sold from products where store_id = ${s.store.id}`,
  );
  for (const p of stock) expect(p.quantity + p.reserved + p.sold, `product ${p.id} after ${story}`).toBe(STOCK);
  expect(await moneyInvariantViolations(t.app), story).toEqual([]);
}

/** A fresh access token: histories move the clock by days, past any token's life. */
const signIn = async (user: UserRecord) => (await t.app.services.auth.signIn(user, {})).accessToken;

describe('random histories of orders and money', () => {
  it('keep stock, the ledger and every escrow consistent', async () => {
    await fc.assert(fc.asyncProperty(history, runHistory), { numRuns: 8, endOnFailure: true });
  }, 300_000);
});
