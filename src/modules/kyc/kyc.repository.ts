import { and, count, desc, eq, gte, inArray, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { kycAttempts, kycDocuments, type KycAttemptStatus } from '../../db/schema/kyc.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import type { SortOf } from '../../shared/schemas.js';
import { isLiveSupplier } from '../suppliers/index.js';
import type { AttemptSortField } from './kyc.schemas.js';

export type AttemptRecord = typeof kycAttempts.$inferSelect;
export type NewAttempt = typeof kycAttempts.$inferInsert;
export type DocumentRecord = typeof kycDocuments.$inferSelect;
export type NewDocument = typeof kycDocuments.$inferInsert;

// Any fixed number: the namespace of the per-supplier advisory locks below.
const KYC_LOCK_NAMESPACE = 727_274_015;

/**
 * Serialises every KYC change of one supplier (submission, decisions, forced verification) until
 * the transaction ends, so each reads a KYC state no other one is about to change.
 */
export async function lockSupplierKyc(ex: Executor, supplierId: string): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(${KYC_LOCK_NAMESPACE}, hashtext(${supplierId}))`);
}

export async function insertAttempt(
  ex: Executor,
  attempt: NewAttempt,
  documents: NewDocument[],
): Promise<AttemptRecord> {
  const [row] = await ex.insert(kycAttempts).values(attempt).returning();
  if (documents.length) await ex.insert(kycDocuments).values(documents);
  return row!;
}

export async function findAttempt(ex: Executor, id: string): Promise<AttemptRecord | undefined> {
  const [row] = await ex.select().from(kycAttempts).where(eq(kycAttempts.id, id)).limit(1);
  return row;
}

export async function lockAttempt(ex: Executor, id: string): Promise<AttemptRecord | undefined> {
  const [row] = await ex.select().from(kycAttempts).where(eq(kycAttempts.id, id)).for('update').limit(1);
  return row;
}

/** The supplier's most recent attempt, locked for a decision. */
export async function lockLatestAttempt(ex: Executor, supplierId: string): Promise<AttemptRecord | undefined> {
  const [row] = await ex
    .select()
    .from(kycAttempts)
    .where(eq(kycAttempts.supplierId, supplierId))
    .orderBy(desc(kycAttempts.submittedAt), desc(kycAttempts.id))
    .for('update')
    .limit(1);
  return row;
}

export async function lockPendingAttempt(ex: Executor, supplierId: string): Promise<AttemptRecord | undefined> {
  const [row] = await ex
    .select()
    .from(kycAttempts)
    .where(and(eq(kycAttempts.supplierId, supplierId), eq(kycAttempts.status, 'PENDING')))
    .for('update')
    .limit(1);
  return row;
}

export async function hasPendingAttempt(ex: Executor, supplierId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: kycAttempts.id })
    .from(kycAttempts)
    .where(and(eq(kycAttempts.supplierId, supplierId), eq(kycAttempts.status, 'PENDING')))
    .limit(1);
  return row !== undefined;
}

export async function updateAttempt(ex: Executor, id: string, patch: Partial<NewAttempt>): Promise<AttemptRecord> {
  const [row] = await ex.update(kycAttempts).set(patch).where(eq(kycAttempts.id, id)).returning();
  return row!;
}

export function listSupplierAttempts(ex: Executor, supplierId: string, limit: number): Promise<AttemptRecord[]> {
  return ex
    .select()
    .from(kycAttempts)
    .where(eq(kycAttempts.supplierId, supplierId))
    .orderBy(desc(kycAttempts.submittedAt), desc(kycAttempts.id))
    .limit(limit);
}

export function listDocuments(ex: Executor, attemptIds: string[]): Promise<DocumentRecord[]> {
  if (!attemptIds.length) return Promise.resolve([]);
  return ex.select().from(kycDocuments).where(inArray(kycDocuments.attemptId, attemptIds));
}

export interface AttemptFilter {
  status?: KycAttemptStatus;
  supplierId?: string;
}

const SORT_KEYS: Record<AttemptSortField, SortKey> = {
  submittedAt: kycAttempts.submittedAt,
  reviewedAt: kycAttempts.reviewedAt,
  status: byteOrderKey(kycAttempts.status),
};

/**
 * Pending attempts come oldest first (a review queue) and only of suppliers that still have a
 * profile; other lists newest first, deleted suppliers' attempts included (the record); `sort`
 * orders either otherwise.
 */
export async function listAttempts(
  ex: Executor,
  f: AttemptFilter,
  limit: number,
  offset: number,
  sort?: SortOf<AttemptSortField>,
) {
  const where = and(
    f.status ? eq(kycAttempts.status, f.status) : undefined,
    f.supplierId ? eq(kycAttempts.supplierId, f.supplierId) : undefined,
    f.status === 'PENDING' ? isLiveSupplier(kycAttempts.supplierId) : undefined,
  );
  const order = toOrderBy(sort ?? (f.status === 'PENDING' ? 'submittedAt' : '-submittedAt'), SORT_KEYS, kycAttempts.id);
  const items = await ex
    .select()
    .from(kycAttempts)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
  const [total] = await ex.select({ n: count() }).from(kycAttempts).where(where);
  return { items, total: total?.n ?? 0 };
}

export interface StatsFilter {
  supplierId?: string;
  from?: Date;
  to?: Date;
}

export async function attemptStats(ex: Executor, f: StatsFilter) {
  const conds: (SQL | undefined)[] = [
    f.supplierId ? eq(kycAttempts.supplierId, f.supplierId) : undefined,
    f.from ? gte(kycAttempts.submittedAt, f.from) : undefined,
    f.to ? lt(kycAttempts.submittedAt, f.to) : undefined,
  ];
  const byStatus = await ex
    .select({ status: kycAttempts.status, n: count() })
    .from(kycAttempts)
    .where(and(...conds))
    .groupBy(kycAttempts.status);
  const [review] = await ex
    .select({
      decided: count(),
      avgSeconds: sql<
        string | null
      >`avg(extract(epoch from (${kycAttempts.firstReviewedAt} - ${kycAttempts.submittedAt})))`,
    })
    .from(kycAttempts)
    .where(and(...conds, isNotNull(kycAttempts.firstReviewedAt)));
  return {
    byStatus: byStatus.map((r) => ({ status: r.status, n: Number(r.n) })),
    decided: Number(review?.decided ?? 0),
    avgSeconds: review?.avgSeconds == null ? null : Number(review.avgSeconds),
  };
}
