import { and, desc, eq, gte, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { associations } from '../../db/schema/associations.js';
import { payouts, type PayoutState } from '../../db/schema/payouts.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';

/*
 * The administrators' list of payouts, with each payee's name: one query joining the suppliers' and
 * associations' tables read-only, rather than one service call per row.
 */

export interface PayoutListFilter {
  state?: PayoutState;
  payee?: 'supplier' | 'association';
  supplierId?: string;
  associationId?: string;
  waiting?: boolean;
  from?: Date;
  to?: Date;
}

function where(f: PayoutListFilter): SQL | undefined {
  const waiting = and(eq(payouts.state, 'PENDING'), isNotNull(payouts.waitingReason));
  return and(
    f.state ? eq(payouts.state, f.state) : undefined,
    f.payee === 'supplier'
      ? isNotNull(payouts.supplierId)
      : f.payee === 'association'
        ? isNotNull(payouts.associationId)
        : undefined,
    f.supplierId ? eq(payouts.supplierId, f.supplierId) : undefined,
    f.associationId ? eq(payouts.associationId, f.associationId) : undefined,
    f.waiting === undefined ? undefined : f.waiting ? waiting : sql`not (${waiting})`,
    f.from ? gte(payouts.createdAt, f.from) : undefined,
    f.to ? lt(payouts.createdAt, f.to) : undefined,
  );
}

/** Newest first: ids are time-ordered (UUIDv7), so the primary key gives the order without a sort. */
export async function listPayouts(ex: Executor, f: PayoutListFilter, page: { limit: number; offset: number }) {
  const w = where(f);
  const [items, [count]] = await Promise.all([
    ex
      .select({ payout: payouts, businessName: supplierProfiles.businessName, associationName: associations.name })
      .from(payouts)
      .leftJoin(supplierProfiles, eq(supplierProfiles.id, payouts.supplierId))
      .leftJoin(associations, eq(associations.id, payouts.associationId))
      .where(w)
      .orderBy(desc(payouts.id))
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: sql<number>`count(*)::int` }).from(payouts).where(w),
  ]);
  return { items, total: count?.n ?? 0 };
}
export type PayoutListRow = Awaited<ReturnType<typeof listPayouts>>['items'][number];
