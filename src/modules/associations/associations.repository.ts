import { and, asc, count, desc, eq, gte, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  associationDocuments,
  associationReports,
  associations as a,
  type AssociationStatus,
} from '../../db/schema/associations.js';
import { users } from '../../db/schema/users.js';
import { nameOrderKey } from '../../db/folding.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import type { SortOf } from '../../shared/schemas.js';
import type { AssociationSortField } from './associations.schemas.js';

export type AssociationRecord = typeof a.$inferSelect;
/** An association without the stored search columns (what the lists read). */
export type ListedAssociation = Omit<AssociationRecord, 'earth' | 'searchDoc' | 'searchVector'>;
export type NewAssociation = typeof a.$inferInsert;
export type DocumentRecord = typeof associationDocuments.$inferSelect;
export type ReportRecord = typeof associationReports.$inferSelect;

/**
 * Who the public sees: verified, owned by an active account. For queries joining `associations`
 * with `users` on the owner. The status is a literal so the planner matches the partial indexes.
 */
export const publicAssociationCondition = (): SQL => sql`${a.status} = 'VERIFIED' and ${users.status} = 'ACTIVE'`;

export async function findByUser(ex: Executor, userId: string): Promise<AssociationRecord | undefined> {
  const [row] = await ex.select().from(a).where(eq(a.userId, userId)).limit(1);
  return row;
}

export async function findById(ex: Executor, id: string): Promise<AssociationRecord | undefined> {
  const [row] = await ex.select().from(a).where(eq(a.id, id)).limit(1);
  return row;
}

/** The profile, locked until the end of the transaction. */
export async function lock(
  ex: Executor,
  by: { id: string } | { userId: string },
): Promise<AssociationRecord | undefined> {
  const [row] = await ex
    .select()
    .from(a)
    .where('id' in by ? eq(a.id, by.id) : eq(a.userId, by.userId))
    .for('update')
    .limit(1);
  return row;
}

export async function insert(ex: Executor, row: NewAssociation): Promise<AssociationRecord> {
  const [out] = await ex.insert(a).values(row).returning();
  return out!;
}

export async function update(ex: Executor, id: string, patch: Partial<NewAssociation>): Promise<AssociationRecord> {
  const [row] = await ex.update(a).set(patch).where(eq(a.id, id)).returning();
  return row!;
}

export async function findPublic(ex: Executor, id: string): Promise<AssociationRecord | undefined> {
  const [row] = await ex
    .select({ association: a })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(and(eq(a.id, id), publicAssociationCondition()))
    .limit(1);
  return row?.association;
}

// ---- documents

export const listDocuments = (ex: Executor, associationId: string) =>
  ex
    .select()
    .from(associationDocuments)
    .where(eq(associationDocuments.associationId, associationId))
    .orderBy(asc(associationDocuments.createdAt), asc(associationDocuments.id));

/** The documents of several associations, oldest first. */
export const listDocumentsOf = async (ex: Executor, associationIds: string[]): Promise<DocumentRecord[]> =>
  associationIds.length
    ? ex
        .select()
        .from(associationDocuments)
        .where(inArray(associationDocuments.associationId, associationIds))
        .orderBy(asc(associationDocuments.createdAt), asc(associationDocuments.id))
    : [];

export async function countDocuments(ex: Executor, associationId: string): Promise<number> {
  const [row] = await ex
    .select({ n: count() })
    .from(associationDocuments)
    .where(eq(associationDocuments.associationId, associationId));
  return row?.n ?? 0;
}

export async function insertDocument(
  ex: Executor,
  row: typeof associationDocuments.$inferInsert,
): Promise<DocumentRecord> {
  const [out] = await ex.insert(associationDocuments).values(row).returning();
  return out!;
}

export async function deleteDocument(
  ex: Executor,
  associationId: string,
  id: string,
): Promise<DocumentRecord | undefined> {
  const [row] = await ex
    .delete(associationDocuments)
    .where(and(eq(associationDocuments.id, id), eq(associationDocuments.associationId, associationId)))
    .returning();
  return row;
}

// ---- reports

export async function insertReport(ex: Executor, row: typeof associationReports.$inferInsert): Promise<ReportRecord> {
  const [out] = await ex.insert(associationReports).values(row).returning();
  return out!;
}

export async function findReport(
  ex: Executor,
  associationId: string,
  id: string,
  forUpdate = false,
): Promise<ReportRecord | undefined> {
  const q = ex
    .select()
    .from(associationReports)
    .where(and(eq(associationReports.id, id), eq(associationReports.associationId, associationId)))
    .limit(1);
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function updateReport(
  ex: Executor,
  id: string,
  patch: Partial<typeof associationReports.$inferInsert>,
): Promise<ReportRecord> {
  const [row] = await ex.update(associationReports).set(patch).where(eq(associationReports.id, id)).returning();
  return row!;
}

/** An association's reports, the latest period first. */
export async function listReports(ex: Executor, associationId: string, page: { limit: number; offset: number }) {
  const where = eq(associationReports.associationId, associationId);
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(associationReports)
      .where(where)
      .orderBy(desc(associationReports.periodEnd), desc(associationReports.id))
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: count() }).from(associationReports).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- administration

export interface AdminFilter {
  status?: AssociationStatus;
  city?: string;
  search?: string;
}

export type OwnerRecord = {
  id: string;
  firstName: string;
  lastName: string;
  phoneNumber: string | null;
  email: string | null;
  status: (typeof users.$inferSelect)['status'];
};
const owner = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  phoneNumber: users.phoneNumber,
  email: users.email,
  status: users.status,
};

const ADMIN_SORT_KEYS: Record<AssociationSortField, SortKey> = {
  createdAt: a.createdAt,
  submittedAt: a.submittedAt,
  verifiedAt: a.verifiedAt,
  name: nameOrderKey(a.name),
  city: nameOrderKey(a.city),
  status: byteOrderKey(a.status),
  pickupCapacityKg: a.pickupCapacityKg,
};

export async function listWithOwners(
  ex: Executor,
  f: AdminFilter,
  page: { limit: number; offset: number; sort: SortOf<AssociationSortField> },
) {
  const like = f.search ? `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  const where = and(
    f.status ? eq(a.status, f.status) : undefined,
    f.city ? sql`lower(${a.city}) = lower(${f.city})` : undefined,
    like
      ? or(
          ilike(a.name, like),
          ilike(a.registrationNumber, like),
          ilike(a.contactPhone, like),
          ilike(users.phoneNumber, like),
          ilike(users.email, like),
        )
      : undefined,
  );
  const [items, [total]] = await Promise.all([
    ex
      .select({ association: a, owner })
      .from(a)
      .innerJoin(users, eq(users.id, a.userId))
      .where(where)
      .orderBy(...toOrderBy(page.sort, ADMIN_SORT_KEYS, a.id))
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: count() }).from(a).innerJoin(users, eq(users.id, a.userId)).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

export async function findWithOwner(ex: Executor, id: string) {
  const [row] = await ex
    .select({ association: a, owner })
    .from(a)
    .innerJoin(users, eq(users.id, a.userId))
    .where(eq(a.id, id))
    .limit(1);
  return row;
}

/** Counts for the administrators' statistics. */
export async function statistics(ex: Executor, since: Date) {
  const [byStatus, [recent], [reports], [oldest]] = await Promise.all([
    ex.select({ status: a.status, n: count() }).from(a).groupBy(a.status),
    ex.select({ n: count() }).from(a).where(gte(a.createdAt, since)),
    ex
      .select({
        n: count(),
        meals: sql<number>`coalesce(sum(${associationReports.mealsServed}), 0)`.mapWith(Number),
        people: sql<number>`coalesce(sum(${associationReports.peopleHelped}), 0)`.mapWith(Number),
      })
      .from(associationReports),
    ex
      .select({
        at: sql<Date | null>`min(${a.submittedAt})`.mapWith((v: string | Date | null) =>
          v === null ? null : new Date(v),
        ),
      })
      .from(a)
      .where(eq(a.status, 'PENDING')),
  ]);
  return { byStatus, registeredSince: recent?.n ?? 0, reports: reports!, oldestPendingAt: oldest?.at ?? null };
}
