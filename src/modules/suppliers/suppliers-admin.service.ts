import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { VerificationStatus } from '../../db/schema/suppliers.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset, type SortOf } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import * as repo from './suppliers.repository.js';
import type { SupplierRecord } from './suppliers.repository.js';
import type { AdminListQuery, BulkVerifyResult, PendingQuery, SupplierSortField } from './suppliers.schemas.js';
import { VERIFICATION_TRANSITIONS } from './supplier-status.js';
import { toAdminView, toCommissionChangeView } from './suppliers.views.js';

const TARGET = 'supplier';

export type SuppliersAdminService = ReturnType<typeof createSuppliersAdminService>;

/** Administrators' decisions on suppliers: each one is recorded in the audit trail in its transaction. */
export function createSuppliersAdminService(ctx: AppContext) {
  async function load(ex: Executor, id: string): Promise<SupplierRecord> {
    const p = await repo.lockLiveProfile(ex, { id });
    if (!p) throw notFound('Supplier');
    return p;
  }

  async function adminView(ex: Executor, id: string) {
    const row = await repo.findWithOwner(ex, id);
    if (!row) throw notFound('Supplier');
    return toAdminView(row.profile, row.owner, ctx.links, ctx.clock.now());
  }

  async function list(f: repo.AdminFilter, q: { page: number; limit: number }, sort: SortOf<SupplierSortField>) {
    const { items, total } = await repo.listWithOwners(ctx.db, f, { limit: q.limit, offset: pageOffset(q), sort });
    const now = ctx.clock.now();
    return { items: items.map((r) => toAdminView(r.profile, r.owner, ctx.links, now)), meta: pageMeta(q, total) };
  }

  async function moveVerification(
    tx: Executor,
    actor: AuthUser,
    p: SupplierRecord,
    to: VerificationStatus,
    reason: string | null,
  ) {
    assertTransition(VERIFICATION_TRANSITIONS, p.verificationStatus, to, 'Supplier verification');
    // Payouts go to the supplier's mobile-money account, which only KYC vouches for.
    if (to === 'VERIFIED' && p.kycStatus !== 'APPROVED') {
      throw conflict(
        'KYC_NOT_APPROVED',
        `The supplier's KYC is ${p.kycStatus}; approve it before verifying the supplier`,
      );
    }
    const now = ctx.clock.now();
    await repo.updateProfile(tx, p.id, {
      verificationStatus: to,
      verifiedAt: to === 'VERIFIED' ? now : null,
      rejectionReason: to === 'REJECTED' ? reason : null,
      updatedAt: now,
    });
    await recordAdminAction(tx, {
      actorId: actor.id,
      action: to === 'VERIFIED' ? 'supplier.verified' : 'supplier.rejected',
      targetType: TARGET,
      targetId: p.id,
      reason,
      data: { from: p.verificationStatus, to },
      at: now,
    });
    if (to === 'VERIFIED') await ctx.events.publish(tx, 'suppliers.verified', { supplierId: p.id, userId: p.userId });
    else if (to === 'REJECTED')
      await ctx.events.publish(tx, 'suppliers.rejected', { supplierId: p.id, userId: p.userId, reason: reason ?? '' });
  }

  async function verifyOne(actor: AuthUser, id: string, reason?: string) {
    return ctx.db.transaction(async (tx) => {
      await moveVerification(tx, actor, await load(tx, id), 'VERIFIED', reason ?? null);
      return adminView(tx, id);
    });
  }

  /** The supplier as administrators see it, with the commission changes (newest first). */
  async function withCommissionHistory(ex: Executor, id: string) {
    const history = await repo.listCommissionChanges(ex, id);
    return { ...(await adminView(ex, id)), commissionHistory: history.map(toCommissionChangeView) };
  }

  return {
    list: (q: AdminListQuery) => list(q, q, q.sort ?? '-createdAt'),

    get: (id: string) => withCommissionHistory(ctx.db, id),

    /** The review queue: oldest submissions first unless sorted otherwise. */
    pending: (q: PendingQuery) => list({ ...q, status: 'PENDING' }, q, q.sort ?? 'createdAt'),

    verify: verifyOne,

    reject: (actor: AuthUser, id: string, reason: string) =>
      ctx.db.transaction(async (tx) => {
        await moveVerification(tx, actor, await load(tx, id), 'REJECTED', reason);
        return adminView(tx, id);
      }),

    /** Each id in its own transaction: one refusal does not undo the others. */
    async bulkVerify(actor: AuthUser, ids: string[], reason?: string): Promise<BulkVerifyResult> {
      const results: BulkVerifyResult['results'] = [];
      for (const id of ids) {
        try {
          await verifyOne(actor, id, reason);
          results.push({ id, result: 'VERIFIED' });
        } catch (err) {
          if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
          results.push({ id, result: 'SKIPPED', code: err.code, reason: err.message });
        }
      }
      const verified = results.filter((r) => r.result === 'VERIFIED').length;
      return { verified, skipped: results.length - verified, results };
    },

    /** Applies to orders created from now on; existing orders keep the rate frozen on them. */
    setCommission: (actor: AuthUser, id: string, body: { commissionRateBps: number; reason?: string }) =>
      ctx.db.transaction(async (tx) => {
        const p = await load(tx, id);
        if (p.commissionRateBps !== body.commissionRateBps) {
          const now = ctx.clock.now();
          const change = { oldRateBps: p.commissionRateBps, newRateBps: body.commissionRateBps };
          await repo.insertCommissionChange(tx, {
            id: uuidv7(now.getTime()),
            supplierId: id,
            actorId: actor.id,
            ...change,
            reason: body.reason ?? null,
            createdAt: now,
          });
          await repo.updateProfile(tx, id, { commissionRateBps: body.commissionRateBps, updatedAt: now });
          await recordAdminAction(tx, {
            actorId: actor.id,
            action: 'supplier.commission_changed',
            targetType: TARGET,
            targetId: id,
            reason: body.reason,
            data: change,
            at: now,
          });
        }
        return withCommissionHistory(tx, id);
      }),
  };
}
