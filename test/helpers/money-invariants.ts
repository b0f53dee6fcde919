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

/** The money a booking paid in the app may be in, by the booking's state. */
const BOOKING_MONEY_BY_STATUS: Record<string, string[]> = {
  PENDING_PAYMENT: ['UNPAID'],
  EXPIRED: ['UNPAID'],
  CONFIRMED: ['PAID'],
  USED: ['RELEASED'],
  CANCELLED: ['UNPAID', 'REFUND_PENDING', 'REFUNDED'],
  NO_SHOW: ['RELEASED', 'REFUND_PENDING', 'REFUNDED'],
};
/** The state of the booking's held payment, by the booking's money. */
const BOOKING_PAYMENT_BY_MONEY: Record<string, string> = {
  PAID: 'SUCCEEDED',
  RELEASED: 'SUCCEEDED',
  REFUND_PENDING: 'REFUND_PENDING',
  REFUNDED: 'REFUNDED',
};

/**
 * Bookings paid in the app. Each one's escrow account (booking_escrow:<id>) holds its price while
 * PAID and nothing otherwise; its money fits its state (CONFIRMED is PAID, USED RELEASED, ...); once
 * money came in it names a payment of its own, in the matching state, that credited that account
 * once for the price, and an UNPAID one holds no succeeded payment (money after it stopped waiting
 * was refunded); a RELEASED one was released once, the supplier credited the price less the frozen
 * commission (half up) and paid by a payout of that amount, any other never.
 */
const bookingMoneyFollowsState: MoneyInvariant = {
  name: 'each booking paid in the app: escrow balance, money, payment, release and payout agree with its state',
  async violations(ex) {
    const found = await rows<{
      id: string;
      status: string;
      money: string | null;
      total: number;
      bps: number | null;
      balance: string;
      payment_subject: string | null;
      payment_status: string | null;
      credited: string | null;
      stray: number;
      releases: number;
      to_supplier: string | null;
      payout: string | null;
    }>(
      ex,
      sql`with accounts as (
            select substr(account, 16)::uuid as booking_id, sum(amount) as balance from ledger_lines where account like 'booking_escrow:%' group by account
          )
          select coalesce(b.id, a.booking_id) as id, b.status, b.payment_status as money, b.total_price as total, b.commission_bps as bps,
            coalesce(a.balance, 0)::text as balance, p.subject_id as payment_subject, p.status as payment_status,
            (select sum(l.amount) from ledger_transactions t join ledger_lines l on l.transaction_id = t.id
              where t.idempotency_key = 'payment:' || p.id || ':received' and l.account = 'booking_escrow:' || b.id)::text as credited,
            (select count(*) from payments q where q.subject_type = 'booking' and q.subject_id = b.id and q.status = 'SUCCEEDED')::int as stray,
            (select count(*) from ledger_transactions t where t.idempotency_key = 'booking:' || b.id || ':release')::int as releases,
            (select sum(l.amount) from ledger_transactions t join ledger_lines l on l.transaction_id = t.id
              where t.idempotency_key = 'booking:' || b.id || ':release' and l.account = 'supplier_payable:' || b.supplier_id)::text as to_supplier,
            (select string_agg(o.amount::text, ',') from payouts o where o.booking_id = b.id) as payout
          from accounts a full join (select * from deal_bookings where payment_mode = 'IN_APP') b on b.id = a.booking_id
          left join payments p on p.id = b.payment_id`,
    );
    const bad: string[] = [];
    for (const r of found) {
      const says = (what: string) =>
        bad.push(`booking ${r.id} (${r.status ?? 'unknown'}, ${r.money ?? '-'}, ${r.total ?? 0}): ${what}`);
      if (r.status === null) {
        if (Number(r.balance) !== 0) says(`an escrow account of no booking paid in the app holds ${r.balance}`);
        continue;
      }
      const money = r.money ?? 'null';
      if (Number(r.balance) !== (money === 'PAID' ? -r.total : 0)) says(`its escrow account holds ${r.balance}`);
      if (!BOOKING_MONEY_BY_STATUS[r.status]?.includes(money)) says('its money does not fit its state');
      if (money === 'UNPAID') {
        if (r.payment_subject !== null || r.stray > 0) says(`unpaid, yet it holds a payment (${r.stray} succeeded)`);
      } else if (r.payment_subject !== r.id) says('its money came in through no payment of its own');
      else {
        if (r.payment_status !== BOOKING_PAYMENT_BY_MONEY[money]) says(`its payment is ${r.payment_status}`);
        if (Number(r.credited) !== -r.total) says(`its payment credited its escrow account ${r.credited ?? 0}`);
      }
      const net = r.total - Math.floor((r.total * (r.bps ?? 0) + 5000) / 10_000);
      if (money === 'RELEASED') {
        if (r.releases !== 1 || Number(r.to_supplier ?? 0) !== -net)
          says(`released ${r.releases} time(s), ${r.to_supplier ?? 0} to the supplier for ${net}`);
        if ((r.payout ?? '') !== (net > 0 ? String(net) : '')) says(`paid out ${r.payout ?? 'nothing'} for ${net}`);
      } else if (r.releases !== 0 || r.payout !== null) says('released or paid out without being RELEASED');
    }
    return bad;
  },
};

/**
 * The places of each deal with bookings paid in the app are those of its bookings holding them:
 * awaiting payment, to be collected, collected or missed (never cancelled nor expired unpaid).
 */
const dealPlacesFollowBookings: MoneyInvariant = {
  name: 'each deal booked in the app has its taken places held by its bookings',
  async violations(ex) {
    const bad = await rows<{ id: string; taken: number; held: number }>(
      ex,
      sql`select d.id, d.places_taken as taken, coalesce(sum(b.quantity) filter (where b.status not in ('CANCELLED', 'EXPIRED')), 0)::int as held
          from deals d join deal_bookings b on b.deal_id = d.id
          where exists (select 1 from deal_bookings x where x.deal_id = d.id and x.payment_mode = 'IN_APP')
          group by d.id having d.places_taken <> coalesce(sum(b.quantity) filter (where b.status not in ('CANCELLED', 'EXPIRED')), 0)`,
    );
    return bad.map((r) => `deal ${r.id}: ${r.taken} places taken, its bookings hold ${r.held}`);
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
  bookingMoneyFollowsState,
  dealPlacesFollowBookings,
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
