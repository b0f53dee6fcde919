import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';

export type SupplierRecord = typeof supplierProfiles.$inferSelect;

export async function findLiveProfileByUser(ex: Executor, userId: string): Promise<SupplierRecord | undefined> {
  const [row] = await ex
    .select()
    .from(supplierProfiles)
    .where(and(eq(supplierProfiles.userId, userId), isNull(supplierProfiles.deletedAt)))
    .limit(1);
  return row;
}

export async function findLiveProfile(ex: Executor, id: string): Promise<SupplierRecord | undefined> {
  const [row] = await ex
    .select()
    .from(supplierProfiles)
    .where(and(eq(supplierProfiles.id, id), isNull(supplierProfiles.deletedAt)))
    .limit(1);
  return row;
}

export async function updateProfile(ex: Executor, id: string, patch: Partial<typeof supplierProfiles.$inferInsert>) {
  const [row] = await ex.update(supplierProfiles).set(patch).where(eq(supplierProfiles.id, id)).returning();
  return row;
}
