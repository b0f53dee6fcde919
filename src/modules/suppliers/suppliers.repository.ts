import { and, count, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { preparedPer, type Executor } from '../../db/client.js';
import {
  supplierCommissionChanges,
  supplierProfiles,
  type KycStatus,
  type VerificationStatus,
} from '../../db/schema/suppliers.js';
import { users } from '../../db/schema/users.js';
import { nameOrderKey } from '../../db/folding.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import type { SortOf } from '../../shared/schemas.js';
import { publicSupplierCondition } from './supplier-visibility.js';
import type { SupplierSortField } from './suppliers.schemas.js';

export type SupplierRecord = typeof supplierProfiles.$inferSelect;
/** A supplier without the stored search columns (what the public lists read). */
export type ListedSupplier = Omit<SupplierRecord, 'earth' | 'searchDoc' | 'searchVector'>;
export type NewSupplier = typeof supplierProfiles.$inferInsert;
export type CommissionChangeRecord = typeof supplierCommissionChanges.$inferSelect;

export async function findLiveProfileByUser(ex: Executor, userId: string): Promise<SupplierRecord | undefined> {
  const [row] = await ex
    .select()
    .from(supplierProfiles)
    .where(and(eq(supplierProfiles.userId, userId), isNull(supplierProfiles.deletedAt)))
    .limit(1);
  return row;
}

// Prepared: read when an order is paid or cancelled by its client (its creation reads it with its products).
const liveProfile = preparedPer((ex) =>
  ex
    .select()
    .from(supplierProfiles)
    .where(and(eq(supplierProfiles.id, sql.placeholder('id')), isNull(supplierProfiles.deletedAt)))
    .limit(1)
    .prepare('supplier_live_profile'),
);

export async function findLiveProfile(ex: Executor, id: string): Promise<SupplierRecord | undefined> {
  const [row] = await liveProfile(ex).execute({ id });
  return row;
}

/** The names and verification of the given suppliers, deleted ones included (records name them still). */
export async function findSummariesByIds(ex: Executor, ids: string[]) {
  if (!ids.length) return [];
  const { id, businessName, verificationStatus, deletedAt } = supplierProfiles;
  return ex.select({ id, businessName, verificationStatus, deletedAt }).from(supplierProfiles).where(inArray(id, ids));
}

/** The live profile, locked until the end of the transaction. */
export async function lockLiveProfile(
  ex: Executor,
  by: { id: string } | { userId: string },
): Promise<SupplierRecord | undefined> {
  const key = 'id' in by ? eq(supplierProfiles.id, by.id) : eq(supplierProfiles.userId, by.userId);
  const [row] = await ex
    .select()
    .from(supplierProfiles)
    .where(and(key, isNull(supplierProfiles.deletedAt)))
    .for('update')
    .limit(1);
  return row;
}

export async function insertProfile(ex: Executor, profile: NewSupplier): Promise<SupplierRecord> {
  const [row] = await ex.insert(supplierProfiles).values(profile).returning();
  return row!;
}

export async function updateProfile(ex: Executor, id: string, patch: Partial<NewSupplier>) {
  const [row] = await ex.update(supplierProfiles).set(patch).where(eq(supplierProfiles.id, id)).returning();
  return row;
}

export async function findPublicProfile(ex: Executor, id: string): Promise<SupplierRecord | undefined> {
  const [row] = await ex
    .select({ profile: supplierProfiles })
    .from(supplierProfiles)
    .innerJoin(users, eq(users.id, supplierProfiles.userId))
    .where(and(eq(supplierProfiles.id, id), publicSupplierCondition()))
    .limit(1);
  return row?.profile;
}

export async function ownerStatus(ex: Executor, userId: string) {
  const [row] = await ex.select({ status: users.status }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.status;
}

const owner = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  phoneNumber: users.phoneNumber,
  email: users.email,
  status: users.status,
};
export type OwnerRecord = { [K in keyof typeof owner]: (typeof users.$inferSelect)[K] };

export async function findWithOwner(ex: Executor, id: string) {
  const [row] = await ex
    .select({ profile: supplierProfiles, owner })
    .from(supplierProfiles)
    .innerJoin(users, eq(users.id, supplierProfiles.userId))
    .where(eq(supplierProfiles.id, id))
    .limit(1);
  return row;
}

export interface AdminFilter {
  status?: VerificationStatus;
  kycStatus?: KycStatus;
  category?: SupplierRecord['category'];
  city?: string;
  search?: string;
  includeDeleted?: boolean;
}

function adminConditions(f: AdminFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (!f.includeDeleted) conds.push(isNull(supplierProfiles.deletedAt));
  if (f.status) conds.push(eq(supplierProfiles.verificationStatus, f.status));
  if (f.kycStatus) conds.push(eq(supplierProfiles.kycStatus, f.kycStatus));
  if (f.category) conds.push(eq(supplierProfiles.category, f.category));
  if (f.city) conds.push(sql`lower(${supplierProfiles.city}) = lower(${f.city})`);
  if (f.search) {
    const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(
      or(
        ilike(supplierProfiles.businessName, like),
        ilike(supplierProfiles.contactEmail, like),
        ilike(supplierProfiles.contactPhone, like),
        ilike(users.phoneNumber, like),
        ilike(users.email, like),
      ),
    );
  }
  return and(...conds);
}

const sp = supplierProfiles;
const ADMIN_SORT_KEYS: Record<SupplierSortField, SortKey> = {
  createdAt: sp.createdAt,
  // The expression of supplier_profiles_name_order_idx (live suppliers, the list's default filter).
  businessName: nameOrderKey(sp.businessName),
  city: nameOrderKey(sp.city),
  verificationStatus: byteOrderKey(sp.verificationStatus),
  kycStatus: byteOrderKey(sp.kycStatus),
  verifiedAt: sp.verifiedAt,
  commissionRateBps: sp.commissionRateBps,
  rating: sp.ratingAverage,
};

export async function listWithOwners(
  ex: Executor,
  f: AdminFilter,
  page: { limit: number; offset: number; sort: SortOf<SupplierSortField> },
) {
  const where = adminConditions(f);
  const order = toOrderBy(page.sort, ADMIN_SORT_KEYS, sp.id);
  const [items, [total]] = await Promise.all([
    ex
      .select({ profile: supplierProfiles, owner })
      .from(supplierProfiles)
      .innerJoin(users, eq(users.id, supplierProfiles.userId))
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    ex
      .select({ n: count() })
      .from(supplierProfiles)
      .innerJoin(users, eq(users.id, supplierProfiles.userId))
      .where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

export async function insertCommissionChange(
  ex: Executor,
  change: typeof supplierCommissionChanges.$inferInsert,
): Promise<void> {
  await ex.insert(supplierCommissionChanges).values(change);
}

export function listCommissionChanges(ex: Executor, supplierId: string, limit = 50): Promise<CommissionChangeRecord[]> {
  return ex
    .select()
    .from(supplierCommissionChanges)
    .where(eq(supplierCommissionChanges.supplierId, supplierId))
    .orderBy(desc(supplierCommissionChanges.createdAt), desc(supplierCommissionChanges.id))
    .limit(limit);
}
