import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { KycStatus } from '../../db/schema/suppliers.js';
import { AppError, notFound } from '../../shared/errors.js';
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

    /**
     * Moves the supplier's KYC state (owned by the KYC module's decisions). `verifySupplier` also
     * marks the supplier verified, for an administrator's forced verification.
     */
    async setKycStatus(ex: Executor, supplierId: string, status: KycStatus, opts: { verifySupplier?: boolean } = {}) {
      const now = ctx.clock.now();
      const patch: Parameters<typeof repo.updateProfile>[2] = { kycStatus: status, updatedAt: now };
      if (opts.verifySupplier) Object.assign(patch, { verificationStatus: 'VERIFIED', verifiedAt: now, rejectionReason: null });
      const row = await repo.updateProfile(ex, supplierId, patch);
      if (!row) throw notFound('Supplier');
      return row;
    },
  };
}
