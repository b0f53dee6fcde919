// The data of the dashboard scenario: 1,000,000 orders over the last 365 days from 10,000 clients
// of the seeded stores, with the ledger postings a real history leaves (payment received into
// escrow for every paid order; release to the supplier with the platform's commission for every
// collected one), seeded in a few set-based statements (INSERT ... SELECT generate_series).
// Seeded only when the scenario is selected: it adds minutes to the seeding.
import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';

export const DASHBOARD_ORDERS = 1_000_000;
const CLIENTS = 10_000;
export const DASHBOARD_SCENARIOS = {
  cached: 'GET /admin/dashboard/stats (1,000,000 orders), cached',
  computed: 'GET /admin/dashboard/stats (1,000,000 orders), computed each time',
} as const;

/** True when BENCH_ONLY (read by the seed program too) selects a dashboard scenario, or is unset. */
export function dashboardSelected(only = process.env.BENCH_ONLY): boolean {
  const words = only
    ?.split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  return !words || Object.values(DASHBOARD_SCENARIOS).some((name) => words.some((w) => name.toLowerCase().includes(w)));
}

export async function seedDashboardOrders(db: Db, now: Date, count = DASHBOARD_ORDERS): Promise<void> {
  const at = now.toISOString();
  await db.execute(sql`insert into users (id, phone_number, role, status, first_name, last_name, verified_at, created_at, updated_at)
    select gen_random_uuid(), '+22176' || lpad(g::text, 7, '0'), 'CLIENT', 'ACTIVE', 'Bench', 'Client ' || g, ${at}::timestamptz,
      ${at}::timestamptz - (g % 365) * interval '1 day', ${at}::timestamptz
    from generate_series(1, ${CLIENTS}) g`);
  // Order g: created g minutes-ish back over 365 days; the last two days' orders are still open,
  // older ones were collected (4 in 5) or cancelled unpaid (1 in 5). Every store and client takes turns.
  await db.execute(sql`with c as (select array_agg(id order by id) as ids from users where role = 'CLIENT' and first_name = 'Bench' and last_name like 'Client %'),
      s as (select array_agg(id order by id) as ids, array_agg(supplier_id order by id) as sups, count(*)::int as n from stores),
      o as (select g, ${at}::timestamptz - (g::float8 / ${count} * 365) * interval '1 day' as created, 500 + (g % 40) * 100 as total from generate_series(1, ${count}) g)
    insert into orders (id, client_id, supplier_id, store_id, status, payment_status, currency, items_total, original_total, items_weight_grams,
      commission_bps, pickup_starts_at, pickup_ends_at, pickup_code, payment_method, payment_deadline, paid_at, confirmed_at, completed_at, cancelled_at, created_at, updated_at)
    select gen_random_uuid(), c.ids[1 + o.g % ${CLIENTS}], s.sups[1 + o.g % s.n], s.ids[1 + o.g % s.n],
      case when o.created > ${at}::timestamptz - interval '2 days' then (array['PENDING', 'CONFIRMED', 'READY'])[1 + o.g % 3]
           when o.g % 5 = 0 then 'CANCELLED' else 'COMPLETED' end,
      case when o.created > ${at}::timestamptz - interval '2 days' then (case when o.g % 3 = 0 then 'UNPAID' else 'PAID' end)
           when o.g % 5 = 0 then 'UNPAID' else 'PAID' end,
      'XOF', o.total, o.total * 2, 500 * (1 + o.g % 3), 1000,
      o.created + interval '6 hours', o.created + interval '8 hours', lpad((o.g % 1000000)::text, 6, '0'), 'wave', o.created + interval '15 minutes',
      case when (o.created > ${at}::timestamptz - interval '2 days' and o.g % 3 <> 0) or (o.created <= ${at}::timestamptz - interval '2 days' and o.g % 5 <> 0) then o.created + interval '2 minutes' end,
      case when (o.created > ${at}::timestamptz - interval '2 days' and o.g % 3 <> 0) or (o.created <= ${at}::timestamptz - interval '2 days' and o.g % 5 <> 0) then o.created + interval '5 minutes' end,
      case when o.created <= ${at}::timestamptz - interval '2 days' and o.g % 5 <> 0 then o.created + interval '7 hours' end,
      case when o.created <= ${at}::timestamptz - interval '2 days' and o.g % 5 = 0 then o.created + interval '15 minutes' end,
      o.created, o.created
    from o, c, s`);
  // The daily rollup of collected food, as the pickups' trigger would have kept it.
  await db.execute(sql`insert into order_daily_collected (day, shard, orders, weight_grams)
    select (completed_at at time zone 'UTC')::date, hashtext(id::text) & 15, count(*), sum(items_weight_grams) from orders where status = 'COMPLETED' group by 1, 2`);
  // The ledger as the payments and releases left it. Its rule triggers (balance at commit, the open
  // escrows) are set aside for the bulk load, whose lines balance by construction; the open escrows
  // are then written from the orders whose money is still held.
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`insert into ledger_transactions (id, kind, reference_type, reference_id, idempotency_key, currency, created_at)
      select md5(id::text || ':paid')::uuid, 'payment_received', 'order', id, 'order:' || id || ':paid', 'XOF', paid_at from orders where paid_at is not null
      union all
      select md5(id::text || ':release')::uuid, 'escrow_release', 'order', id, 'order:' || id || ':release', 'XOF', completed_at + interval '1 hour' from orders where status = 'COMPLETED'`);
    await tx.execute(sql`insert into ledger_lines (id, transaction_id, account, amount, currency, created_at)
      select gen_random_uuid(), md5(id::text || ':paid')::uuid, 'provider_clearing', items_total, 'XOF', paid_at from orders where paid_at is not null
      union all select gen_random_uuid(), md5(id::text || ':paid')::uuid, 'escrow:' || id, -items_total, 'XOF', paid_at from orders where paid_at is not null
      union all select gen_random_uuid(), md5(id::text || ':release')::uuid, 'escrow:' || id, items_total, 'XOF', completed_at + interval '1 hour' from orders where status = 'COMPLETED'
      union all select gen_random_uuid(), md5(id::text || ':release')::uuid, 'supplier_payable:' || supplier_id, -(items_total - items_total / 10), 'XOF', completed_at + interval '1 hour' from orders where status = 'COMPLETED'
      union all select gen_random_uuid(), md5(id::text || ':release')::uuid, 'platform_commission', -(items_total / 10), 'XOF', completed_at + interval '1 hour' from orders where status = 'COMPLETED'`);
    await tx.execute(sql`insert into ledger_open_escrows (account, currency, balance)
      select 'escrow:' || id, 'XOF', -items_total from orders where paid_at is not null and status not in ('COMPLETED', 'CANCELLED')`);
  });
  // As autovacuum would have by then: statistics, and the visibility map index-only scans rely on.
  await db.execute(sql`vacuum analyze users`);
  await db.execute(sql`vacuum analyze orders`);
  await db.execute(sql`vacuum analyze ledger_transactions`);
  await db.execute(sql`vacuum analyze ledger_lines`);
  await db.execute(sql`vacuum analyze ledger_open_escrows`);
  await db.execute(sql`vacuum analyze order_daily_collected`);
}
