import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../shared/errors.js';
import * as repo from './suppliers.repository.js';

export type SuppliersService = ReturnType<typeof createSuppliersService>;

export function createSuppliersService(ctx: AppContext) {
  return {
    /** The signed-in supplier's own profile, in any verification state. */
    findOwnProfile: (userId: string, ex: Executor = ctx.db) => repo.findLiveProfileByUser(ex, userId),

    async requireOwnProfile(userId: string, ex: Executor = ctx.db) {
      const profile = await repo.findLiveProfileByUser(ex, userId);
      if (!profile) throw new AppError(404, 'SUPPLIER_PROFILE_REQUIRED', 'Create your supplier profile first (POST /suppliers/profile)');
      return profile;
    },

    findProfile: (id: string, ex: Executor = ctx.db) => repo.findLiveProfile(ex, id),
  };
}
