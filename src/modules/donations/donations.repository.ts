import { and, asc, count, desc, eq, gte, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  donationItems,
  donations as d,
  donationStatusHistory,
  type DonationStatus,
} from '../../db/schema/donations.js';
import { OPEN_STATUSES } from './donation-status.js';

export type DonationRecord = typeof d.$inferSelect;
export type NewDonation = typeof d.$inferInsert;
export type ItemRecord = typeof donationItems.$inferSelect;
export type HistoryRecord = typeof donationStatusHistory.$inferSelect;

export async function insert(ex: Executor, row: NewDonation, items: (typeof donationItems.$inferInsert)[]) {
  const [donation] = await ex.insert(d).values(row).returning();
  const rows = items.length ? await ex.insert(donationItems).values(items).returning() : [];
  return { donation: donation!, items: rows };
}

export async function find(ex: Executor, id: string, forUpdate = false): Promise<DonationRecord | undefined> {
  const q = ex.select().from(d).where(eq(d.id, id)).limit(1);
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function update(ex: Executor, id: string, patch: Partial<NewDonation>): Promise<DonationRecord> {
  const [row] = await ex.update(d).set(patch).where(eq(d.id, id)).returning();
  return row!;
}

export const itemsOf = (ex: Executor, donationIds: string[]): Promise<ItemRecord[]> =>
  donationIds.length
    ? ex
        .select()
        .from(donationItems)
        .where(inArray(donationItems.donationId, donationIds))
        .orderBy(asc(donationItems.id))
    : Promise.resolve([]);

export async function addHistory(ex: Executor, row: typeof donationStatusHistory.$inferInsert) {
  await ex.insert(donationStatusHistory).values(row);
}

export const historyOf = (ex: Executor, donationId: string) =>
  ex
    .select()
    .from(donationStatusHistory)
    .where(eq(donationStatusHistory.donationId, donationId))
    .orderBy(asc(donationStatusHistory.at), asc(donationStatusHistory.id));

export interface ListFilter {
  donorUserId?: string;
  associationId?: string;
  statuses?: readonly DonationStatus[];
  kind?: 'FOOD' | 'FINANCIAL';
  /** Food donations, and financial ones once paid (what an association has received). */
  receivedOnly?: boolean;
}

export async function list(
  ex: Executor,
  f: ListFilter,
  page: { limit: number; offset: number },
  order: 'newest' | 'pickup' = 'newest',
) {
  const where = and(
    f.donorUserId ? eq(d.donorUserId, f.donorUserId) : undefined,
    f.associationId ? eq(d.associationId, f.associationId) : undefined,
    f.statuses ? inArray(d.status, [...f.statuses]) : undefined,
    f.kind ? eq(d.kind, f.kind) : undefined,
    f.receivedOnly ? or(eq(d.kind, 'FOOD'), eq(d.status, 'PAID')) : undefined,
  );
  const orderBy =
    order === 'pickup'
      ? [asc(sql`coalesce(${d.scheduledPickupAt}, ${d.pickupWindowStart})`), asc(d.id)]
      : [desc(d.createdAt), desc(d.id)];
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(d)
      .where(where)
      .orderBy(...orderBy)
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: count() }).from(d).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

/** Open food donations holding units of a product, or of a supplier. */
export async function openCount(ex: Executor, scope: { productId: string } | { supplierId: string }): Promise<number> {
  const open = and(eq(d.kind, 'FOOD'), inArray(d.status, [...OPEN_STATUSES]));
  const where: SQL | undefined =
    'productId' in scope
      ? and(
          open,
          sql`exists (select 1 from ${donationItems} i where i.donation_id = ${d.id} and i.product_id = ${scope.productId})`,
        )
      : and(open, eq(d.supplierId, scope.supplierId));
  const [row] = await ex.select({ n: count() }).from(d).where(where);
  return row?.n ?? 0;
}

const month = (column: SQL | typeof d.createdAt) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM')`;

/** An association's donations: counts by state, and by UTC month received and collected (with their weight). */
export async function associationStatistics(ex: Executor, associationId: string, since: Date) {
  const mine = and(eq(d.associationId, associationId), eq(d.kind, 'FOOD'));
  const [byStatus, received, collected, [totals]] = await Promise.all([
    ex.select({ status: d.status, n: count() }).from(d).where(mine).groupBy(d.status),
    ex
      .select({ month: month(d.createdAt), n: count() })
      .from(d)
      .where(and(mine, gte(d.createdAt, since)))
      .groupBy(month(d.createdAt)),
    ex
      .select({
        month: month(sql`${d.collectedAt}`),
        n: count(),
        grams: sql<number>`coalesce(sum(${d.totalWeightGrams}), 0)`.mapWith(Number),
      })
      .from(d)
      .where(and(mine, isNotNull(d.collectedAt), gte(d.collectedAt, since)))
      .groupBy(month(sql`${d.collectedAt}`)),
    ex
      .select({ n: count(), grams: sql<number>`coalesce(sum(${d.totalWeightGrams}), 0)`.mapWith(Number) })
      .from(d)
      .where(and(mine, eq(d.status, 'COLLECTED'))),
  ]);
  return { byStatus, received, collected, totals: totals! };
}

/** What a donor gave: food donations collected (count, grams) and financial donations paid (count, amount), by currency. */
export async function donorStatistics(ex: Executor, donorUserId: string) {
  const mine = eq(d.donorUserId, donorUserId);
  const [[food], money, [all]] = await Promise.all([
    ex
      .select({ n: count(), grams: sql<number>`coalesce(sum(${d.totalWeightGrams}), 0)`.mapWith(Number) })
      .from(d)
      .where(and(mine, eq(d.kind, 'FOOD'), eq(d.status, 'COLLECTED'))),
    ex
      .select({
        currency: sql<string>`${d.currency}`,
        n: count(),
        amount: sql<number>`coalesce(sum(${d.amount}), 0)`.mapWith(Number),
      })
      .from(d)
      .where(and(mine, eq(d.kind, 'FINANCIAL'), eq(d.status, 'PAID')))
      .groupBy(d.currency),
    ex.select({ n: count() }).from(d).where(mine),
  ]);
  return { food: food!, money, total: all?.n ?? 0 };
}

/** An association's paid financial donations: count and amount, in total and by UTC month of payment. */
export async function associationMoney(ex: Executor, associationId: string, since: Date) {
  const paid = and(eq(d.associationId, associationId), eq(d.kind, 'FINANCIAL'), eq(d.status, 'PAID'));
  const [[totals], byMonth] = await Promise.all([
    ex
      .select({ n: count(), amount: sql<number>`coalesce(sum(${d.amount}), 0)`.mapWith(Number) })
      .from(d)
      .where(paid),
    ex
      .select({
        month: month(sql`${d.paidAt}`),
        n: count(),
        amount: sql<number>`coalesce(sum(${d.amount}), 0)`.mapWith(Number),
      })
      .from(d)
      .where(and(paid, gte(d.paidAt, since)))
      .groupBy(month(sql`${d.paidAt}`)),
  ]);
  return { totals: totals!, byMonth };
}
