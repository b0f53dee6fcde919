import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { rows, type Executor } from '../../src/db/client.js';
import type { App } from '../../src/http/types.js';
import { NEVER_NEGATIVE_PREFIXES, NEVER_POSITIVE_PREFIXES } from '../../src/modules/ledger/accounts.js';

/**
 * A money invariant: answers the offending rows (empty when it holds), each described in words so a
 * failure names what is wrong. Later domains push their checks onto MONEY_INVARIANTS (escrow
 * balance matches escrow state; stock + reserved + sold = initial) and every money-moving test
 * calls assertMoneyInvariants(app) at its end.
 */
export interface MoneyInvariant {
  name: string;
  /** `ex` is the database, or a transaction to look at uncommitted rows. */
  violations(ex: Executor, app: App): Promise<string[]>;
}

const everyTransactionBalances: MoneyInvariant = {
  name: 'every ledger transaction has at least 2 lines summing to zero',
  async violations(ex) {
    const bad = await rows<{ id: string; kind: string; n: number; total: string }>(
      ex,
      sql`select t.id, t.kind, count(l.id)::int as n, coalesce(sum(l.amount), 0)::text as total
          from ledger_transactions t left join ledger_lines l on l.transaction_id = t.id
          group by t.id, t.kind having count(l.id) < 2 or coalesce(sum(l.amount), 0) <> 0`,
    );
    return bad.map((r) => `transaction ${r.id} (${r.kind}): ${r.n} line(s) summing to ${r.total}`);
  },
};

const everyCurrencySumsToZero: MoneyInvariant = {
  name: 'the sum of all accounts is zero in every currency',
  async violations(ex, app) {
    const totals = await app.services.ledger.totalsByCurrency(ex);
    return totals.filter((t) => t.total !== 0).map((t) => `all accounts in ${t.currency} sum to ${t.total}`);
  },
};

const prefixed = (col: string, prefixes: string[]) =>
  sql.join(
    prefixes.map((p) => sql`${sql.raw(col)} like ${`${p}%`}`),
    sql` or `,
  );

const signsHold: MoneyInvariant = {
  name: 'no account is on the wrong side of zero (escrow, payables and income never positive; provider_clearing never negative)',
  async violations(ex) {
    const bad = await rows<{ account: string; balance: string }>(
      ex,
      sql`select account, sum(amount)::text as balance from ledger_lines group by account
          having (sum(amount) > 0 and (${prefixed('account', NEVER_POSITIVE_PREFIXES)}))
              or (sum(amount) < 0 and (${prefixed('account', NEVER_NEGATIVE_PREFIXES)}))`,
    );
    return bad.map((r) => `account ${r.account} has balance ${r.balance}`);
  },
};

/**
 * Each order's escrow account holds what its escrow state says: the amount while HELD or DISPUTED,
 * nothing once RELEASED, REFUNDED or RESOLVED_*, and nothing for an order without an escrow row
 * (a payment received for it was refunded at once). Only accounts of real orders: the ledger's own
 * tests post to escrow accounts of made-up references, and on PostgreSQL test files share a database.
 */
const escrowMatchesState: MoneyInvariant = {
  name: "each order's escrow account balance matches its escrow state",
  async violations(ex) {
    const bad = await rows<{ order_id: string; state: string | null; amount: number | null; balance: string }>(
      ex,
      sql`with accounts as (
            select substr(account, 8)::uuid as order_id, sum(amount) as balance from ledger_lines where account like 'escrow:%' group by account
          )
          select coalesce(a.order_id, e.order_id) as order_id, e.state, e.amount, coalesce(a.balance, 0)::text as balance
          from accounts a full join escrows e on e.order_id = a.order_id
          join orders o on o.id = coalesce(a.order_id, e.order_id)
          where coalesce(a.balance, 0) <> case when e.state in ('HELD', 'DISPUTED') then -e.amount else 0 end`,
    );
    return bad.map(
      (r) => `order ${r.order_id}: escrow ${r.state ?? '(none)'} of ${r.amount ?? 0} but account balance ${r.balance}`,
    );
  },
};

/**
 * A payment whose money came in (SUCCEEDED, then perhaps REFUND_PENDING and REFUNDED) is credited
 * exactly once (its `payment_received` posting), for its amount; any other attempt never is.
 */
const paymentsCreditedOnce: MoneyInvariant = {
  name: 'every received payment is credited once for its amount, no other payment is',
  async violations(ex) {
    const bad = await rows<{ id: string; status: string; amount: number; n: number; credited: string | null }>(
      ex,
      sql`select p.id, p.status, p.amount::int as amount, count(t.id)::int as n,
            sum((select l.amount from ledger_lines l where l.transaction_id = t.id and l.account = 'provider_clearing'))::text as credited
          from payments p left join ledger_transactions t on t.kind = 'payment_received' and t.idempotency_key = 'payment:' || p.id || ':received'
          group by p.id
          having case when p.status in ('SUCCEEDED', 'REFUND_PENDING', 'REFUNDED')
                   then count(t.id) <> 1 or sum((select l.amount from ledger_lines l where l.transaction_id = t.id and l.account = 'provider_clearing')) <> p.amount
                   else count(t.id) <> 0 end`,
    );
    return bad.map(
      (r) =>
        `payment ${r.id} (${r.status}, ${r.amount}): ${r.n} payment_received posting(s) crediting ${r.credited ?? 0}`,
    );
  },
};

/**
 * Subscription payments: each one whose money came in credited platform_subscriptions exactly once,
 * for its amount (never an escrow); each PAID charge with something to pay holds exactly one
 * succeeded payment, and a charge not PAID none (money for it was refunded or is on its way back).
 * A REFUNDED charge (an administrator's refund) holds exactly one payment being or been refunded,
 * whose money left platform_subscriptions once (`payment:<id>:refund`).
 */
const subscriptionPaymentsCreditedOnce: MoneyInvariant = {
  name: 'every received subscription payment credits platform_subscriptions once; each paid charge holds one payment; each refunded charge gave one back',
  async violations(ex) {
    const credited = await rows<{ id: string; status: string; amount: number; n: number; credited: string | null }>(
      ex,
      sql`select p.id, p.status, p.amount::int as amount, count(l.id)::int as n, sum(l.amount)::text as credited
          from payments p
          left join ledger_transactions t on t.idempotency_key = 'payment:' || p.id || ':received'
          left join ledger_lines l on l.transaction_id = t.id and l.account = 'platform_subscriptions'
          where p.subject_type = 'subscription' and p.status in ('SUCCEEDED', 'REFUND_PENDING', 'REFUNDED')
          group by p.id having count(l.id) <> 1 or sum(l.amount) <> -p.amount`,
    );
    const charges = await rows<{ id: string; status: string; amount: number; n: number }>(
      ex,
      sql`select c.id, c.status, c.amount, count(p.id) filter (where p.status = 'SUCCEEDED')::int as n
          from subscription_charges c left join payments p on p.subject_type = 'subscription' and p.subject_id = c.id
          group by c.id
          having count(p.id) filter (where p.status = 'SUCCEEDED') <> case when c.status = 'PAID' and c.amount > 0 then 1 else 0 end`,
    );
    const refunded = await rows<{ id: string; amount: number; n: number; debited: string | null }>(
      ex,
      sql`select c.id, c.amount, count(distinct p.id)::int as n, sum(l.amount)::text as debited
          from subscription_charges c
          left join payments p on p.subject_type = 'subscription' and p.subject_id = c.id and p.status in ('REFUND_PENDING', 'REFUNDED')
          left join ledger_transactions t on t.idempotency_key = 'payment:' || p.id || ':refund'
          left join ledger_lines l on l.transaction_id = t.id and l.account = 'platform_subscriptions'
          where c.status = 'REFUNDED'
          group by c.id having count(distinct p.id) <> 1 or coalesce(sum(l.amount), 0) <> c.amount`,
    );
    return [
      ...credited.map(
        (r) =>
          `subscription payment ${r.id} (${r.status}, ${r.amount}): ${r.n} platform_subscriptions credit(s) of ${r.credited ?? 0}`,
      ),
      ...charges.map((r) => `subscription charge ${r.id} (${r.status}, ${r.amount}): ${r.n} succeeded payment(s)`),
      ...refunded.map(
        (r) =>
          `refunded subscription charge ${r.id} (${r.amount}): ${r.n} refunded payment(s), platform_subscriptions debited ${r.debited ?? 0}`,
      ),
    ];
  },
};

/**
 * Financial donations: each PAID one holds exactly one succeeded payment, credited once to its
 * association's association_payable for its amount; no other donation holds a succeeded payment (a
 * late one was refunded). Each association's payable balance is what its paid donations gave minus
 * its succeeded payouts (never less than nothing: the sign check above).
 */
const donationsCreditedOnce: MoneyInvariant = {
  name: 'every paid financial donation credits its association once; each association_payable is paid donations minus payouts',
  async violations(ex) {
    const donations = await rows<{
      id: string;
      status: string;
      amount: number | null;
      n: number;
      credited: string | null;
    }>(
      ex,
      sql`select d.id, d.status, d.amount, count(distinct p.id) filter (where p.status = 'SUCCEEDED')::int as n,
            sum(l.amount) filter (where p.status = 'SUCCEEDED')::text as credited
          from donations d
          left join payments p on p.subject_type = 'donation' and p.subject_id = d.id
          left join ledger_transactions t on t.idempotency_key = 'payment:' || p.id || ':received'
          left join ledger_lines l on l.transaction_id = t.id and l.account = 'association_payable:' || d.association_id
          where d.kind = 'FINANCIAL'
          group by d.id
          having case when d.status = 'PAID' then count(distinct p.id) filter (where p.status = 'SUCCEEDED') <> 1 or coalesce(sum(l.amount) filter (where p.status = 'SUCCEEDED'), 0) <> -d.amount
                 else count(distinct p.id) filter (where p.status = 'SUCCEEDED') <> 0 end`,
    );
    const payables = await rows<{ association_id: string; balance: string; expected: string }>(
      ex,
      sql`with bal as (select substr(account, 21)::uuid as association_id, sum(amount) as balance from ledger_lines where account like 'association_payable:%' group by account),
          given as (select association_id, sum(amount) as amount from donations where kind = 'FINANCIAL' and status = 'PAID' group by association_id),
          out as (select association_id, sum(amount) as amount from payouts where association_id is not null and state = 'SUCCEEDED' group by association_id)
          select a.id as association_id, coalesce(b.balance, 0)::text as balance, (coalesce(o.amount, 0) - coalesce(g.amount, 0))::text as expected
          from associations a left join bal b on b.association_id = a.id left join given g on g.association_id = a.id left join out o on o.association_id = a.id
          where coalesce(b.balance, 0) <> coalesce(o.amount, 0) - coalesce(g.amount, 0)`,
    );
    return [
      ...donations.map(
        (r) => `donation ${r.id} (${r.status}, ${r.amount}): ${r.n} succeeded payment(s) crediting ${r.credited ?? 0}`,
      ),
      ...payables.map(
        (r) =>
          `association ${r.association_id}: association_payable ${r.balance}, paid donations minus payouts say ${r.expected}`,
      ),
    ];
  },
};

/**
 * Advertising: each PAID top-up holds exactly one succeeded payment, credited once to its
 * advertiser's balance for its amount, and no other top-up holds one; each campaign's spend posted
 * (`ad_spend`, to platform_advertising) is its `spent` figure (less what it spent before billing);
 * each advertiser's balance is its paid top-ups less its campaigns' billed spend (never less than
 * nothing: the sign check above).
 */
const advertisingFollowsLedger: MoneyInvariant = {
  name: 'every paid top-up credits its advertiser once; each campaign posted its spend; each balance is top-ups less spend',
  async violations(ex) {
    const topUps = await rows<{ id: string; status: string; amount: number; n: number; credited: string | null }>(
      ex,
      sql`select u.id, u.status, u.amount, count(distinct p.id)::int as n, sum(l.amount)::text as credited
          from ad_topups u
          left join payments p on p.subject_type = 'advertising_topup' and p.subject_id = u.id and p.status = 'SUCCEEDED'
          left join ledger_transactions t on t.idempotency_key = 'payment:' || p.id || ':received'
          left join ledger_lines l on l.transaction_id = t.id and l.account = 'advertiser_balance:' || u.advertiser_id
          group by u.id
          having count(distinct p.id) <> case when u.status = 'PAID' then 1 else 0 end
              or coalesce(sum(l.amount), 0) <> case when u.status = 'PAID' then -u.amount else 0 end`,
    );
    const campaigns = await rows<{ id: string; billed: number; posted: string }>(
      ex,
      sql`with posted as (
            select t.reference_id as id, sum(-l.amount) as amount from ledger_transactions t
            join ledger_lines l on l.transaction_id = t.id and l.account = 'platform_advertising'
            where t.kind = 'ad_spend' group by t.reference_id)
          select c.id, c.spent - c.spent_unbilled as billed, coalesce(p.amount, 0)::text as posted
          from ad_campaigns c full join posted p on p.id = c.id
          where coalesce(c.spent - c.spent_unbilled, 0) <> coalesce(p.amount, 0)`,
    );
    const balances = await rows<{ id: string; balance: string; expected: string }>(
      ex,
      sql`with bal as (select substr(account, 20)::uuid as id, sum(amount) as balance from ledger_lines where account like 'advertiser_balance:%' group by account),
          paid as (select advertiser_id as id, sum(amount) as amount from ad_topups where status = 'PAID' group by advertiser_id),
          spent as (select advertiser_id as id, sum(spent - spent_unbilled) as amount from ad_campaigns group by advertiser_id)
          select a.id, coalesce(b.balance, 0)::text as balance, (coalesce(s.amount, 0) - coalesce(p.amount, 0))::text as expected
          from advertiser_profiles a left join bal b on b.id = a.id left join paid p on p.id = a.id left join spent s on s.id = a.id
          where coalesce(b.balance, 0) <> coalesce(s.amount, 0) - coalesce(p.amount, 0)`,
    );
    return [
      ...topUps.map(
        (r) => `top-up ${r.id} (${r.status}, ${r.amount}): ${r.n} succeeded payment(s) crediting ${r.credited ?? 0}`,
      ),
      ...campaigns.map((r) => `campaign ${r.id}: spent ${r.billed ?? '(none)'} but ${r.posted} posted`),
      ...balances.map((r) => `advertiser ${r.id}: balance ${r.balance}, paid top-ups less spend say ${r.expected}`),
    ];
  },
};

/** The checks assertMoneyInvariants runs; extend with `MONEY_INVARIANTS.push(check)`. */
export const MONEY_INVARIANTS: MoneyInvariant[] = [
  everyTransactionBalances,
  everyCurrencySumsToZero,
  signsHold,
  escrowMatchesState,
  paymentsCreditedOnce,
  subscriptionPaymentsCreditedOnce,
  donationsCreditedOnce,
  advertisingFollowsLedger,
];

/** Every failure of every check, as `check: offending row` lines (empty when all hold). */
export async function moneyInvariantViolations(
  app: App,
  opts: { ex?: Executor; checks?: MoneyInvariant[] } = {},
): Promise<string[]> {
  const found: string[] = [];
  for (const check of opts.checks ?? MONEY_INVARIANTS) {
    for (const v of await check.violations(opts.ex ?? app.ctx.db, app)) found.push(`${check.name}: ${v}`);
  }
  return found;
}

export async function assertMoneyInvariants(
  app: App,
  opts: { ex?: Executor; checks?: MoneyInvariant[] } = {},
): Promise<void> {
  expect(await moneyInvariantViolations(app, opts)).toEqual([]);
}
