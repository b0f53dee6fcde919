import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { users } from '../../db/schema/users.js';

/**
 * Who the public sees: verified, not deleted, and owned by an active account. For queries that
 * join `supplier_profiles` with `users` on the owner.
 */
export const publicSupplierCondition = (): SQL =>
  and(
    eq(supplierProfiles.verificationStatus, 'VERIFIED'),
    isNull(supplierProfiles.deletedAt),
    eq(users.status, 'ACTIVE'),
  )!;

/**
 * The same rule for other modules' queries (stores, products, deals): true when the supplier with
 * this id is publicly visible. Use it in a WHERE clause: `where(isPublicSupplier(stores.supplierId))`.
 */
export const isPublicSupplier = (supplierId: AnyPgColumn | SQL): SQL => sql`exists (
  select 1 from ${supplierProfiles} sp join ${users} u on u.id = sp.user_id
  where sp.id = ${supplierId} and sp.verification_status = 'VERIFIED' and sp.deleted_at is null and u.status = 'ACTIVE')`;

/**
 * True when the supplier with this id still has its profile (not deleted), in any verification
 * state. What a deleted supplier leaves behind (its stores, their staff, its KYC attempts) is
 * kept for the records but must not be acted on: `where(isLiveSupplier(stores.supplierId))`.
 */
export const isLiveSupplier = (supplierId: AnyPgColumn | SQL): SQL => sql`exists (
  select 1 from ${supplierProfiles} sp where sp.id = ${supplierId} and sp.deleted_at is null)`;
