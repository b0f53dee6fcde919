import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import type { PeriodUnit } from '../ledger/index.js';

/**
 * Food of donations collected by their association in [from, to), per UTC period: each donation
 * weighs its items (quantity x unit weight, summed into `total_weight_grams` when it is given), read
 * from the partial index of collected food donations by `collected_at` (index-only, migration 0032).
 */
export async function collectedFoodByPeriod(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit }) {
  const found = await rows<{ period: string; grams: string; n: number }>(
    ex,
    sql`select to_char(p, 'YYYY-MM-DD') as period, grams::text as grams, n from (
          select date_trunc(${r.unit}, collected_at at time zone 'UTC') as p, coalesce(sum(total_weight_grams), 0) as grams, count(*)::int as n
          from donations where kind = 'FOOD' and status = 'COLLECTED' and collected_at >= ${r.from} and collected_at < ${r.to} group by 1) x`,
  );
  return found.map((x) => ({ period: x.period, foodGrams: Number(x.grams), moneyDonated: 0, count: Number(x.n) }));
}

/**
 * Money given through paid financial donations in [from, to), per UTC period of their payment, in
 * the query's currency (a paid donation is never refunded: late payments of unpaid ones are, and
 * never count). Read from the partial index of paid financial donations by `paid_at` (migration 0033).
 */
export async function paidMoneyByPeriod(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit; currency: string }) {
  const found = await rows<{ period: string; amount: string; n: number }>(
    ex,
    sql`select to_char(p, 'YYYY-MM-DD') as period, amount::text as amount, n from (
          select date_trunc(${r.unit}, paid_at at time zone 'UTC') as p, coalesce(sum(amount), 0) as amount, count(*)::int as n
          from donations where kind = 'FINANCIAL' and status = 'PAID' and currency = ${r.currency} and paid_at >= ${r.from} and paid_at < ${r.to} group by 1) x`,
  );
  return found.map((x) => ({ period: x.period, foodGrams: 0, moneyDonated: Number(x.amount), count: Number(x.n) }));
}
