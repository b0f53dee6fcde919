import { and, count, eq, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import { deals } from '../../db/schema/deals.js';
import type { PeriodUnit } from '../ledger/index.js';
import { DEFAULT_UNIT_WEIGHT_GRAMS, type ProductCategory } from '../products/index.js';

/*
 * The deals' figures for the administrators' dashboard and impact report, from the deals tables
 * only: deals waiting for review (deals_status_idx), deals clients can book now (the listed deals not
 * yet ended, deals_listed_ending_idx), and the food of bookings collected at the counter
 * (deal_bookings_used_figures_idx, migration 0032).
 */

/** Deals waiting for an administrator's decision (the dashboard's moderation queue). */
export async function pendingCount(ex: Executor): Promise<number> {
  const [r] = await ex.select({ n: count() }).from(deals).where(eq(deals.status, 'PENDING_REVIEW'));
  return r?.n ?? 0;
}

/**
 * Deals a client can book now: listed (ACTIVE, store live, supplier public), within their validity,
 * with a place left (what the public list shows, SOLD_OUT and EXPIRED being derived). Read from the
 * listed deals not yet ended, never the deals of the past.
 */
export async function activeCount(ex: Executor, now: Date): Promise<number> {
  const [r] = await ex
    .select({ n: count() })
    .from(deals)
    .where(
      and(
        sql`${deals.listed}`,
        sql`${deals.validUntil} > ${now}`,
        sql`${deals.validFrom} <= ${now}`,
        sql`${deals.placesTaken} < ${deals.totalPlaces}`,
      ),
    );
  return r?.n ?? 0;
}

/**
 * What a booked place of a deal weighs, in grams: deals carry no weight, so a place counts as one
 * item of the deal's category, the default unit weight products of that category get
 * (DEFAULT_UNIT_WEIGHT_GRAMS, docs/analytics.md).
 */
export const gramsPerPlace = (category: ProductCategory): number =>
  DEFAULT_UNIT_WEIGHT_GRAMS[category] ?? DEFAULT_UNIT_WEIGHT_GRAMS.OTHER;

/**
 * Food of bookings validated at the counter (USED) in [from, to), per UTC period: the places of each
 * booking times its deal's weight per place. The bookings are read from the partial index of used
 * bookings by `used_at` (index-only) and joined to their deal's category (docs/analytics.md, "Speed").
 */
export async function collectedFoodByPeriod(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit }) {
  const found = await rows<{ period: string; category: ProductCategory; places: string; n: number }>(
    ex,
    sql`select to_char(date_trunc(${r.unit}, b.used_at at time zone 'UTC'), 'YYYY-MM-DD') as period, d.category, sum(b.quantity)::text as places, count(*)::int as n
        from deal_bookings b join deals d on d.id = b.deal_id
        where b.status = 'USED' and b.used_at >= ${r.from} and b.used_at < ${r.to}
        group by 1, 2`,
  );
  const byPeriod = new Map<string, { period: string; foodGrams: number; moneyDonated: number; count: number }>();
  for (const x of found) {
    const row = byPeriod.get(x.period) ?? { period: x.period, foodGrams: 0, moneyDonated: 0, count: 0 };
    row.foodGrams += Number(x.places) * gramsPerPlace(x.category);
    row.count += Number(x.n);
    byPeriod.set(x.period, row);
  }
  return [...byPeriod.values()];
}
