import { sql } from 'drizzle-orm';
import type { TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { MONEY_INVARIANTS, type MoneyInvariant } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';
import { newClient, orderOk, setStatus, shopWithProducts } from '../orders/orders.test-support.js';
import { deliverWebhook } from '../payments/payments.test-support.js';
// Escrow tests also check the ledger's open-escrow balances against its lines.
import '../ledger/ledger.test-support.js';

export { admin } from '../orders/orders.test-support.js';
export { deliverWebhook };

type Shop = Awaited<ReturnType<typeof shopWithProducts>>;

/** The client pays at the fake provider and its signed webhook credits the order (escrow HELD). */
export async function payForTest(t: TestApp, order: { payment: { transactionId: string } }) {
  const session = [...t.mobilemoney.sessions.values()].find((x) => x.client_reference === order.payment.transactionId);
  if (!session) throw new Error('no provider session for this order');
  const { outcome } = await deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session.id)),
  );
  if (outcome !== 'applied') throw new Error(`payment not applied: ${outcome}`);
}

/** A shop (verified supplier, store, products priced 600) with its payout number set, unless `payoutPhone` is null. */
export async function shop(
  t: TestApp,
  adminToken: string,
  opts: { products?: number; payoutPhone?: string | null; product?: Record<string, unknown> } = {},
) {
  const s = await shopWithProducts(t, adminToken, opts.products ?? 1, opts.product);
  if (opts.payoutPhone !== null) {
    const res = await call(t.app, 'PUT', '/suppliers/profile', {
      token: s.token,
      body: { payoutPhone: opts.payoutPhone ?? '+221771234567' },
    });
    if (res.status !== 200) throw new Error(`payout phone not set: ${JSON.stringify(res.body)}`);
  }
  return s;
}

/** An order of `lines` from `s`, paid (held in escrow); `complete` takes it to COMPLETED. */
export async function paidOrder(
  t: TestApp,
  s: Shop,
  opts: {
    lines?: { productId: string; quantity?: number }[];
    complete?: boolean;
    client?: Awaited<ReturnType<typeof newClient>>;
  } = {},
) {
  const client = opts.client ?? (await newClient(t));
  const order = await orderOk(t, client.token, opts.lines ?? [{ productId: s.products[0]!.id }]);
  await payForTest(t, order);
  if (opts.complete) await completeOrder(t, s, order);
  return { order, client };
}

export async function completeOrder(t: TestApp, s: { token: string }, order: { id: string; pickup: { code: string } }) {
  for (const status of ['CONFIRMED', 'PREPARING', 'READY'] as const) {
    const res = await setStatus(t, s.token, order.id, { status });
    if (res.status !== 200) throw new Error(`order not ${status}: ${JSON.stringify(res.body)}`);
  }
  const done = await setStatus(t, s.token, order.id, { status: 'COMPLETED', pickupCode: order.pickup.code });
  if (done.status !== 200) throw new Error(`order not completed: ${JSON.stringify(done.body)}`);
}

/**
 * Payouts follow the ledger: a SUCCEEDED payout has exactly its payout posting (payable ->
 * clearing, its amount), any other has none, and the payee (supplier or association) of a SUCCEEDED
 * payout is never owed less than nothing (its payable is not positive).
 */
export const payoutsFollowLedger: MoneyInvariant = {
  name: 'every SUCCEEDED payout (and no other) is posted to the ledger, and its supplier has no negative payable',
  async violations(ex) {
    const bad = await rows<{
      id: string;
      state: string;
      amount: number;
      posted: string | null;
      payable: string | null;
    }>(
      ex,
      sql`select p.id, p.state, p.amount,
            (select sum(l.amount) from ledger_transactions t join ledger_lines l on l.transaction_id = t.id
              where t.idempotency_key = 'payout:' || p.id || ':paid' and l.account = coalesce('supplier_payable:' || p.supplier_id, 'association_payable:' || p.association_id))::text as posted,
            (select sum(l.amount) from ledger_lines l where l.account = coalesce('supplier_payable:' || p.supplier_id, 'association_payable:' || p.association_id))::text as payable
          from payouts p`,
    );
    return bad
      .filter((r) =>
        r.state === 'SUCCEEDED' ? Number(r.posted) !== r.amount || Number(r.payable ?? 0) > 0 : r.posted !== null,
      )
      .map(
        (r) =>
          `payout ${r.id} (${r.state}, ${r.amount}): posted ${r.posted ?? 'nothing'}, supplier payable ${r.payable ?? 0}`,
      );
  },
};
if (!MONEY_INVARIANTS.includes(payoutsFollowLedger)) MONEY_INVARIANTS.push(payoutsFollowLedger);
