import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { rows, together, type Executor } from '../../db/client.js';
import { orders, type OrderActorRole } from '../../db/schema/orders.js';
import type { PeriodUnit } from '../ledger/index.js';
import { salesTotals } from './orders-statistics.repository.js';

/*
 * Orders' figures for the administrators' dashboard, impact report and supplier performance, from
 * the orders tables only. Each window reads one covering index for that window alone (migration
 * 0030): orders_created_figures_idx (placed, by status), orders_paid_figures_idx (GMV),
 * orders_completed_figures_idx (food collected on partial days), so the cost follows the orders of
 * the window, not the size of the table; food over whole days reads the daily rollup (docs/analytics.md).
 */

type Windows<K extends string> = Record<K, { from: Date; to: Date }>;
const bounds = (ws: { from: Date; to: Date }[]) => ({
  from: new Date(Math.min(...ws.map((w) => w.from.getTime()))),
  to: new Date(Math.max(...ws.map((w) => w.to.getTime()))),
});
const inWindow = (col: string, w: { from: Date; to: Date }) =>
  sql`${sql.raw(col)} >= ${w.from} and ${sql.raw(col)} < ${w.to}`;

export type WindowOrders = {
  /** Orders placed in the window, and what became of them: completed, cancelled (the others are open). */
  placed: number;
  completed: number;
  cancelled: number;
  /** Orders whose payment was received in the window, and their value (GMV, minor units). */
  paid: number;
  gmv: number;
};

/** Orders of one currency per window: placed (and their state now), paid and GMV. */
export async function ordersIn<K extends string>(
  ex: Executor,
  currency: string,
  windows: Windows<K>,
): Promise<Record<K, WindowOrders>> {
  const keys = Object.keys(windows) as K[];
  const all = bounds(keys.map((k) => windows[k]));
  const placedCols = sql.join(
    keys.map((k, i) => {
      const w = inWindow('created_at', windows[k]);
      return sql`count(*) filter (where ${w})::int as ${sql.identifier(`p${i}`)},
        count(*) filter (where ${w} and status = 'COMPLETED')::int as ${sql.identifier(`c${i}`)},
        count(*) filter (where ${w} and status = 'CANCELLED')::int as ${sql.identifier(`x${i}`)}`;
    }),
    sql`, `,
  );
  const paidCols = sql.join(
    keys.map((k, i) => {
      const w = inWindow('paid_at', windows[k]);
      return sql`count(*) filter (where ${w})::int as ${sql.identifier(`n${i}`)}, coalesce(sum(items_total) filter (where ${w}), 0)::text as ${sql.identifier(`g${i}`)}`;
    }),
    sql`, `,
  );
  const [[placed], [paid]] = await Promise.all([
    rows<Record<string, number>>(
      ex,
      sql`select ${placedCols} from orders where ${inWindow('created_at', all)} and currency = ${currency}`,
    ),
    rows<Record<string, string | number>>(
      ex,
      sql`select ${paidCols} from orders where paid_at is not null and ${inWindow('paid_at', all)} and currency = ${currency}`,
    ),
  ]);
  return Object.fromEntries(
    keys.map((k, i) => [
      k,
      {
        placed: Number(placed?.[`p${i}`] ?? 0),
        completed: Number(placed?.[`c${i}`] ?? 0),
        cancelled: Number(placed?.[`x${i}`] ?? 0),
        paid: Number(paid?.[`n${i}`] ?? 0),
        gmv: Number(paid?.[`g${i}`] ?? 0),
      },
    ]),
  ) as Record<K, WindowOrders>;
}

const DAY = 86_400_000;
type FoodRow = { period: string; foodGrams: number; moneyDonated: number; count: number };

/** Food of orders collected in [from, to), per period, read order by order (orders_completed_figures_idx). */
async function collectedFromOrders(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit }) {
  return rows<{ period: string; grams: string; n: number }>(
    ex,
    sql`select to_char(p, 'YYYY-MM-DD') as period, grams::text as grams, n from (
          select date_trunc(${r.unit}, completed_at at time zone 'UTC') as p, sum(items_weight_grams) as grams, count(*)::int as n
          from orders where status = 'COMPLETED' and ${inWindow('completed_at', r)} group by 1) x`,
  );
}

/** Food of orders collected on the whole UTC days [fromDay, toDay), per period, read day by day (order_daily_collected). */
async function collectedFromDays(ex: Executor, r: { fromDay: string; toDay: string; unit: PeriodUnit }) {
  return rows<{ period: string; grams: string; n: number }>(
    ex,
    sql`select to_char(p, 'YYYY-MM-DD') as period, grams::text as grams, n from (
          select date_trunc(${r.unit}, day::timestamp) as p, sum(weight_grams) as grams, sum(orders)::int as n
          from order_daily_collected where day >= ${r.fromDay}::date and day < ${r.toDay}::date group by 1) x`,
  );
}

/**
 * Food collected in completed orders per UTC period (the weight frozen on each order at creation):
 * the whole days of the range from the daily rollup, the partial days at its ends order by order,
 * so a year costs about 365 x 16 rows, not the year's orders.
 */
export async function collectedFoodByPeriod(
  ex: Executor,
  r: { from: Date; to: Date; unit: PeriodUnit },
): Promise<FoodRow[]> {
  const firstDay = new Date(Math.ceil(r.from.getTime() / DAY) * DAY);
  const endDay = new Date(Math.floor(r.to.getTime() / DAY) * DAY);
  const parts =
    firstDay < endDay
      ? [
          () => collectedFromOrders(ex, { from: r.from, to: firstDay, unit: r.unit }),
          () =>
            collectedFromDays(ex, {
              fromDay: firstDay.toISOString().slice(0, 10),
              toDay: endDay.toISOString().slice(0, 10),
              unit: r.unit,
            }),
          () => collectedFromOrders(ex, { from: endDay, to: r.to, unit: r.unit }),
        ]
      : [() => collectedFromOrders(ex, r)];
  const byPeriod = new Map<string, FoodRow>();
  for (const x of (await together(ex, parts)).flat()) {
    const row = byPeriod.get(x.period) ?? { period: x.period, foodGrams: 0, moneyDonated: 0, count: 0 };
    row.foodGrams += Number(x.grams);
    row.count += Number(x.n);
    byPeriod.set(x.period, row);
  }
  return [...byPeriod.values()];
}

const CANCELLERS: Record<OrderActorRole, 'supplier' | 'client' | 'admin' | 'system'> = {
  SUPPLIER: 'supplier',
  STAFF: 'supplier',
  CLIENT: 'client',
  ADMIN: 'admin',
  SYSTEM: 'system',
};

/**
 * A supplier's orders over [from, to): placed in the range; completed in it with their sales
 * (units, gross, commission at each order's frozen rate, net); cancelled in it, by whom (the
 * supplier or its staff, the client, an administrator, the platform when payment never came); and
 * how long the shop took to confirm a paid order (from payment to CONFIRMED, in the status history).
 */
export async function supplierPerformance(ex: Executor, supplierId: string, r: { from: Date; to: Date }) {
  const [[counts], sales, cancels, [response]] = await Promise.all([
    rows<{ placed: number }>(
      ex,
      sql`select count(*)::int as placed from orders where supplier_id = ${supplierId} and ${inWindow('created_at', r)}`,
    ),
    salesTotals(
      ex,
      and(eq(orders.supplierId, supplierId), gte(orders.completedAt, r.from), lt(orders.completedAt, r.to))!,
    ),
    rows<{ by_role: OrderActorRole; n: number }>(
      ex,
      sql`select h.by_role, count(*)::int as n from orders o join order_status_history h on h.order_id = o.id
          where o.supplier_id = ${supplierId} and h.to_status = 'CANCELLED' and h.at >= ${r.from} and h.at < ${r.to} group by 1`,
    ),
    rows<{ n: number; average: number | null; median: number | null }>(
      ex,
      sql`select count(*)::int as n, avg(s)::float8 as average, percentile_cont(0.5) within group (order by s)::float8 as median
          from (select extract(epoch from h.at - o.paid_at) as s from orders o join order_status_history h on h.order_id = o.id
                where o.supplier_id = ${supplierId} and o.paid_at is not null and h.to_status = 'CONFIRMED' and h.from_status = 'PENDING'
                  and h.at >= ${r.from} and h.at < ${r.to}) x`,
    ),
  ]);
  const cancelledBy = { supplier: 0, client: 0, admin: 0, system: 0 };
  for (const c of cancels) cancelledBy[CANCELLERS[c.by_role]] += Number(c.n);
  const cancelled = Object.values(cancelledBy).reduce((a, b) => a + b, 0);
  const round = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(Number(v)));
  return {
    orders: { placed: Number(counts?.placed ?? 0), completed: sales.completedOrders, cancelled },
    cancellations: { total: cancelled, ...cancelledBy },
    sales: {
      unitsSold: sales.unitsSold,
      revenueGross: sales.revenueGross,
      commission: sales.commission,
      revenueNet: sales.revenueNet,
    },
    responseTime: {
      confirmedOrders: Number(response?.n ?? 0),
      averageSeconds: round(response?.average),
      medianSeconds: round(response?.median),
    },
  };
}
