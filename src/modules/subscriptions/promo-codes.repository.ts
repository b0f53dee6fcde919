import { and, count, desc, eq, gt, ilike, isNull, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { promoCodes } from '../../db/schema/subscriptions.js';
import { toOrderBy, type SortKey } from '../../db/sorting.js';
import type { SortOf } from '../../shared/schemas.js';
import type { PromoSortField } from './subscriptions.schemas.js';

export type PromoRecord = typeof promoCodes.$inferSelect;

const byCode = (code: string) => sql`lower(${promoCodes.code}) = lower(${code})`;

export async function findPromo(ex: Executor, id: string): Promise<PromoRecord | undefined> {
  const [row] = await ex.select().from(promoCodes).where(eq(promoCodes.id, id)).limit(1);
  return row;
}

/** The code whatever its case; `lock` holds its row so its uses are counted one subscription at a time. */
export async function findPromoByCode(
  ex: Executor,
  code: string,
  opts: { lock?: boolean } = {},
): Promise<PromoRecord | undefined> {
  const q = ex.select().from(promoCodes).where(byCode(code)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function lockPromo(ex: Executor, id: string): Promise<PromoRecord | undefined> {
  const [row] = await ex.select().from(promoCodes).where(eq(promoCodes.id, id)).limit(1).for('update');
  return row;
}

/** Inserts the rows whose code is free; answers those inserted (a taken code is left out). */
export function insertPromos(ex: Executor, values: (typeof promoCodes.$inferInsert)[]): Promise<PromoRecord[]> {
  return ex.insert(promoCodes).values(values).onConflictDoNothing().returning();
}

export async function updatePromo(
  ex: Executor,
  id: string,
  patch: Partial<typeof promoCodes.$inferInsert>,
): Promise<PromoRecord | undefined> {
  const [row] = await ex.update(promoCodes).set(patch).where(eq(promoCodes.id, id)).returning();
  return row;
}

export async function deletePromo(ex: Executor, id: string): Promise<boolean> {
  const rows = await ex.delete(promoCodes).where(eq(promoCodes.id, id)).returning({ id: promoCodes.id });
  return rows.length > 0;
}

export async function countUse(ex: Executor, id: string, now: Date): Promise<void> {
  await ex
    .update(promoCodes)
    .set({ usesCount: sql`${promoCodes.usesCount} + 1`, updatedAt: now })
    .where(eq(promoCodes.id, id));
}

export interface PromoFilter {
  search?: string;
  batchId?: string;
  status?: 'active' | 'disabled';
}

const SORT_KEYS: Record<PromoSortField, SortKey> = {
  createdAt: promoCodes.createdAt,
  updatedAt: promoCodes.updatedAt,
  // Codes are unique whatever their case (promo_codes_code_key): ordered as they are matched.
  code: sql`lower(${promoCodes.code}) collate "C"`,
  validFrom: promoCodes.validFrom,
  validUntil: promoCodes.validUntil,
  usesCount: promoCodes.usesCount,
  maxUses: promoCodes.maxUses,
};

export async function listPromos(
  ex: Executor,
  f: PromoFilter,
  page: { limit: number; offset: number; sort?: SortOf<PromoSortField> },
): Promise<{ rows: PromoRecord[]; total: number }> {
  const where = and(
    f.search ? ilike(promoCodes.code, `${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
    f.batchId ? eq(promoCodes.batchId, f.batchId) : undefined,
    f.status === 'active'
      ? isNull(promoCodes.disabledAt)
      : f.status === 'disabled'
        ? sql`${promoCodes.disabledAt} is not null`
        : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ex
      .select()
      .from(promoCodes)
      .where(where)
      .orderBy(...toOrderBy(page.sort ?? '-createdAt', SORT_KEYS, promoCodes.id))
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: count() }).from(promoCodes).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Public codes not disabled and valid now (their uses are checked by the caller), newest first. */
export function publicValid(ex: Executor, now: Date, limit: number): Promise<PromoRecord[]> {
  return ex
    .select()
    .from(promoCodes)
    .where(
      and(
        eq(promoCodes.isPublic, true),
        isNull(promoCodes.disabledAt),
        or(isNull(promoCodes.validFrom), lte(promoCodes.validFrom, now)),
        or(isNull(promoCodes.validUntil), gt(promoCodes.validUntil, now)),
      ),
    )
    .orderBy(desc(promoCodes.createdAt))
    .limit(limit);
}
