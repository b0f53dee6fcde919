import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import * as repo from './staff.repository.js';
import { roleCan, type StoreCapability, type StoreMemberRole } from '../stores/index.js';
import type { StoreMemberRole as TableRole } from '../../db/schema/staff.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
/** The member roles the stores module answers for are exactly the ones this module's table holds. */
export const MEMBER_ROLES_MATCH: Same<TableRole, StoreMemberRole> = true;

export type StoreMembersService = ReturnType<typeof createStoreMembersService>;

/**
 * The part of the staff module the stores module needs (who is a member, staff numbers, what
 * happens to invitations when a store goes). It depends on nothing else, so stores can use it
 * while the rest of the staff module uses stores.
 */
export function createStoreMembersService(ctx: AppContext) {
  return {
    /** MANAGER or STAFF when the user is a member of the store, otherwise null. */
    roleOf: (ex: Executor, storeId: string, userId: string) => repo.memberRole(ex, storeId, userId),

    /** Stores the user is a member of whose role grants `capability` (an order list of a store's staff). */
    async storesWhere(ex: Executor, userId: string, capability: StoreCapability): Promise<string[]> {
      return (await repo.memberStores(ex, userId)).filter((m) => roleCan(m.role, capability)).map((m) => m.storeId);
    },

    staffCounts: (ex: Executor, storeId: string) => repo.staffCounts(ex, storeId, ctx.clock.now()),

    /** A deleted store's pending invitations can no longer be accepted. */
    revokePendingInvitations: (ex: Executor, storeId: string) =>
      repo.revokePendingForStore(ex, storeId, ctx.clock.now()),

    /** Nor those of every store of a supplier that deletes its profile. */
    revokePendingInvitationsOfSupplier: (ex: Executor, supplierId: string, at: Date) =>
      repo.revokePendingForSupplier(ex, supplierId, at),
  };
}
