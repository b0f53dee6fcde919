import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { KycAttemptStatus } from '../../db/schema/kyc.js';
import type { AuthUser } from '../../http/access.js';
import type { UploadedFile } from '../../http/uploads.js';
import { conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset, type PageQuery } from '../../shared/schemas.js';
import { assertTransition, canTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import type { KycStatus, SuppliersApi } from '../suppliers/index.js';
import { KYC_ATTEMPT_TRANSITIONS, SUPPLIER_KYC_TRANSITIONS } from './kyc-status.js';
import * as repo from './kyc.repository.js';
import * as figures from './kyc.figures.js';
import type { AttemptRecord } from './kyc.repository.js';
import type {
  AttemptsQuery,
  KycStatsView,
  OwnAttemptView,
  OwnKycView,
  ReviewBody,
  StatsQuery,
  SupplierKycDecisionView,
} from './kyc.schemas.js';
import { parseSubmission } from './kyc.submission.js';
import { toDetailView, toOwnAttemptView, toSummaryView } from './kyc.views.js';

export type KycService = ReturnType<typeof createKycService>;

// A supplier's own page shows its most recent attempts; administrators page through all of them.
const OWN_ATTEMPTS_SHOWN = 50;

const SUBMIT_REFUSALS: Partial<Record<KycStatus, string>> = {
  PENDING: 'A KYC submission is already awaiting review',
  APPROVED: 'Your KYC is already approved',
};

function assertCanSubmit(status: KycStatus): void {
  if (!canTransition(SUPPLIER_KYC_TRANSITIONS, status, 'PENDING')) {
    throw conflict('INVALID_TRANSITION', SUBMIT_REFUSALS[status] ?? `KYC cannot be submitted while it is ${status}`);
  }
}

export function createKycService(ctx: AppContext, deps: { suppliers: SuppliersApi }) {
  const { suppliers } = deps;

  /** The live profile, row-locked: a deletion of the profile waits for the decision, or the decision for it. */
  async function requireSupplier(ex: Executor, supplierId: string) {
    const profile = await suppliers.lockProfile(ex, { id: supplierId });
    if (!profile) throw notFound('Supplier');
    return profile;
  }

  // A deleted supplier's pending attempt is withdrawn with the profile, in the same transaction.
  suppliers.onProfileDeleted(async (tx, supplierId, at) => {
    const pending = await repo.lockPendingAttempt(tx, supplierId);
    if (!pending) return;
    assertTransition(KYC_ATTEMPT_TRANSITIONS, pending.status, 'WITHDRAWN', 'KYC attempt');
    await repo.updateAttempt(tx, pending.id, { status: 'WITHDRAWN', updatedAt: at });
  });

  async function publishDecision(
    tx: Executor,
    p: { id: string; userId: string },
    status: 'APPROVED' | 'REJECTED' | 'RESUBMISSION_REQUESTED',
    reason: string | null,
  ) {
    await ctx.events.publish(tx, 'kyc.decided', {
      supplierId: p.id,
      userId: p.userId,
      status,
      ...(reason && { reason }),
    });
  }

  /** Moves one attempt, the supplier's KYC state with it, and records who decided, when and why. */
  async function decide(
    tx: Executor,
    actor: AuthUser,
    attempt: AttemptRecord,
    to: Exclude<KycAttemptStatus, 'WITHDRAWN'>,
    action: string,
    reason: string | null,
  ) {
    assertTransition(KYC_ATTEMPT_TRANSITIONS, attempt.status, to, 'KYC attempt');
    const at = ctx.clock.now();
    const row = await repo.updateAttempt(tx, attempt.id, {
      status: to,
      reviewerId: actor.id,
      reviewedAt: at,
      reviewReason: reason,
      firstReviewedAt: attempt.firstReviewedAt ?? at,
      updatedAt: at,
    });
    const profile = await suppliers.setKycStatus(tx, attempt.supplierId, to);
    if (to !== 'PENDING') await publishDecision(tx, profile, to, reason);
    await recordAdminAction(tx, {
      actorId: actor.id,
      action,
      targetType: 'kyc_attempt',
      targetId: attempt.id,
      reason,
      data: { from: attempt.status, to, supplierId: attempt.supplierId },
      at,
    });
    return row;
  }

  async function summaries(items: AttemptRecord[]) {
    const ids = [...new Set(items.map((a) => a.supplierId))];
    const profiles = new Map<string, Awaited<ReturnType<SuppliersApi['findProfile']>>>();
    for (const id of ids) profiles.set(id, await suppliers.findProfile(id));
    return items.map((a) => toSummaryView(a, profiles.get(a.supplierId)));
  }

  async function listPage(filter: repo.AttemptFilter, q: PageQuery & Pick<AttemptsQuery, 'sort'>) {
    const { items, total } = await repo.listAttempts(ctx.db, filter, q.limit, pageOffset(q), q.sort);
    return { items: await summaries(items), meta: pageMeta(q, total) };
  }

  async function approvePendingOfSupplier(
    actor: AuthUser,
    supplierId: string,
    to: 'APPROVED' | 'REJECTED',
    reason: string | null,
  ) {
    const row = await ctx.db.transaction(async (tx) => {
      await repo.lockSupplierKyc(tx, supplierId);
      await requireSupplier(tx, supplierId);
      const pending = await repo.lockPendingAttempt(tx, supplierId);
      if (!pending) throw conflict('INVALID_TRANSITION', 'No KYC submission of this supplier is awaiting review');
      return decide(tx, actor, pending, to, to === 'APPROVED' ? 'kyc.approve' : 'kyc.reject', reason);
    });
    return toSummaryView(row, await suppliers.findProfile(supplierId));
  }

  async function storeDocuments(supplierId: string, files: { kind: string; file: UploadedFile }[]) {
    const stored: { key: string; kind: string; file: UploadedFile }[] = [];
    try {
      for (const d of files) {
        const key = `kyc/${supplierId}/${uuidv7(ctx.clock.now().getTime())}.${d.file.ext}`;
        await ctx.storage.put('private', key, d.file.body, d.file.contentType);
        stored.push({ key, ...d });
      }
    } catch (err) {
      await removeFiles(stored.map((s) => s.key));
      throw err;
    }
    return stored;
  }

  const removeFiles = (keys: string[]) => ctx.storage.discard('private', keys);

  return {
    /** Figures for the administrators' dashboard and reports (analytics module), from this module's tables. */
    figures,
    /** Files go to private storage first; the attempt row is written only if they all landed, and they are removed if it is not. */
    async submit(
      user: AuthUser,
      upload: { files: UploadedFile[]; fields: Record<string, string> },
    ): Promise<OwnAttemptView> {
      const submission = parseSubmission(upload);
      const profile = await suppliers.requireOwnProfile(user.id);
      assertCanSubmit(profile.kycStatus);
      const stored = await storeDocuments(profile.id, submission.documents);
      try {
        const { attempt, docs } = await ctx.db.transaction(async (tx) => {
          await repo.lockSupplierKyc(tx, profile.id);
          await suppliers.lockProfile(tx, { userId: user.id });
          const fresh = await suppliers.requireOwnProfile(user.id, tx);
          assertCanSubmit(fresh.kycStatus);
          const now = ctx.clock.now();
          const attemptId = uuidv7(now.getTime());
          const docs = stored.map((s) => ({
            id: uuidv7(now.getTime()),
            attemptId,
            kind: s.kind as 'ID_DOCUMENT' | 'BUSINESS_DOCUMENT',
            storageKey: s.key,
            contentType: s.file.contentType,
            sizeBytes: s.file.body.length,
            sha256: createHash('sha256').update(s.file.body).digest('hex'),
            createdAt: now,
          }));
          const attempt = await repo.insertAttempt(
            tx,
            {
              id: attemptId,
              supplierId: profile.id,
              submittedBy: user.id,
              status: 'PENDING',
              documentType: submission.documentType,
              businessRegistrationNumber: submission.businessRegistrationNumber,
              submittedAt: now,
              updatedAt: now,
            },
            docs,
          );
          await suppliers.setKycStatus(tx, profile.id, 'PENDING');
          return { attempt, docs };
        });
        return toOwnAttemptView(ctx, attempt, docs);
      } catch (err) {
        await removeFiles(stored.map((s) => s.key));
        if (isUniqueViolation(err)) throw conflict('INVALID_TRANSITION', SUBMIT_REFUSALS.PENDING!);
        throw err;
      }
    },

    async getOwn(user: AuthUser): Promise<OwnKycView> {
      const profile = await suppliers.requireOwnProfile(user.id);
      const attempts = await repo.listSupplierAttempts(ctx.db, profile.id, OWN_ATTEMPTS_SHOWN);
      const docs = await repo.listDocuments(
        ctx.db,
        attempts.map((a) => a.id),
      );
      return {
        supplierId: profile.id,
        kycStatus: profile.kycStatus,
        canSubmit: canTransition(SUPPLIER_KYC_TRANSITIONS, profile.kycStatus, 'PENDING'),
        attempts: attempts.map((a) => toOwnAttemptView(ctx, a, docs)),
      };
    },

    listPending: (q: PageQuery) => listPage({ status: 'PENDING' }, q),
    listAttempts: (q: AttemptsQuery) => listPage({ status: q.status, supplierId: q.supplierId }, q),

    async getAttempt(attemptId: string) {
      const attempt = await repo.findAttempt(ctx.db, attemptId);
      if (!attempt) throw notFound('KYC attempt');
      const profile = await suppliers.findProfile(attempt.supplierId);
      const docs = await repo.listDocuments(ctx.db, [attempt.id]);
      return toDetailView(ctx, ctx.db, attempt, profile, docs);
    },

    async review(actor: AuthUser, attemptId: string, body: ReviewBody) {
      if (body.decision === 'REJECT' && !body.reason)
        throw validationError('body.reason', 'is required when decision is REJECT');
      const row = await ctx.db.transaction(async (tx) => {
        const found = await repo.findAttempt(tx, attemptId);
        if (!found) throw notFound('KYC attempt');
        await repo.lockSupplierKyc(tx, found.supplierId);
        // 409 rather than 404: the attempt is still there to read, there is just nothing to decide.
        if (!(await suppliers.lockProfile(tx, { id: found.supplierId }))) {
          throw conflict(
            'INVALID_TRANSITION',
            'The supplier has deleted its profile; its KYC attempts can no longer be decided',
          );
        }
        const attempt = (await repo.lockAttempt(tx, attemptId))!;
        const to = body.decision === 'APPROVE' ? 'APPROVED' : 'REJECTED';
        return decide(tx, actor, attempt, to, to === 'APPROVED' ? 'kyc.approve' : 'kyc.reject', body.reason ?? null);
      });
      return toSummaryView(row, await suppliers.findProfile(row.supplierId));
    },

    approveSupplier: (actor: AuthUser, supplierId: string, reason?: string) =>
      approvePendingOfSupplier(actor, supplierId, 'APPROVED', reason ?? null),
    rejectSupplier: (actor: AuthUser, supplierId: string, reason: string) =>
      approvePendingOfSupplier(actor, supplierId, 'REJECTED', reason),

    /** Approves without (or regardless of) documents and marks the supplier verified; closes a pending attempt as approved. */
    forceVerify: (actor: AuthUser, supplierId: string, reason: string) =>
      supplierDecision(actor, supplierId, 'APPROVED', 'kyc.force_verify', reason),

    /** Sends the latest attempt back when it is pending or approved; the supplier may then submit again. */
    requestResubmission: (actor: AuthUser, supplierId: string, reason: string) =>
      supplierDecision(actor, supplierId, 'RESUBMISSION_REQUESTED', 'kyc.request_resubmission', reason),

    async stats(q: StatsQuery): Promise<KycStatsView> {
      const from = q.from ? new Date(q.from) : undefined;
      const to = q.to ? new Date(q.to) : undefined;
      if (from && to && from >= to) throw validationError('query.to', 'must be later than from');
      const s = await repo.attemptStats(ctx.db, { supplierId: q.supplierId, from, to });
      const byStatus = { PENDING: 0, APPROVED: 0, REJECTED: 0, RESUBMISSION_REQUESTED: 0, WITHDRAWN: 0 };
      for (const r of s.byStatus) byStatus[r.status] = r.n;
      return {
        total: Object.values(byStatus).reduce((a, b) => a + b, 0),
        pending: byStatus.PENDING,
        byStatus,
        decided: s.decided,
        averageReviewSeconds: s.avgSeconds === null ? null : Math.round(s.avgSeconds),
      };
    },
  };

  async function supplierDecision(
    actor: AuthUser,
    supplierId: string,
    to: 'APPROVED' | 'RESUBMISSION_REQUESTED',
    action: string,
    reason: string,
  ): Promise<SupplierKycDecisionView> {
    return ctx.db.transaction(async (tx) => {
      await repo.lockSupplierKyc(tx, supplierId);
      const profile = await requireSupplier(tx, supplierId);
      assertTransition(SUPPLIER_KYC_TRANSITIONS, profile.kycStatus, to, 'Supplier KYC status');
      const latest = await repo.lockLatestAttempt(tx, supplierId);
      const moved = latest && canTransition(KYC_ATTEMPT_TRANSITIONS, latest.status, to) ? latest : undefined;
      if (moved) await decide(tx, actor, moved, to, action, reason);
      let updated = await suppliers.setKycStatus(tx, supplierId, to);
      // Without an attempt to move, the decision is on the supplier alone and is announced here.
      if (!moved) await publishDecision(tx, updated, to, reason);
      const data: Record<string, unknown> = { from: profile.kycStatus, to, attemptId: moved?.id ?? null };
      if (to === 'APPROVED') {
        // The override may replace a rejection: the log keeps what it replaced.
        const { before, after } = await suppliers.forceVerification(tx, supplierId);
        data.verification = { from: before.verificationStatus, to: after.verificationStatus };
        if (before.verificationStatus !== 'VERIFIED')
          await ctx.events.publish(tx, 'suppliers.verified', { supplierId, userId: after.userId });
        if (before.rejectionReason) data.previousRejectionReason = before.rejectionReason;
        updated = after;
      }
      await recordAdminAction(tx, {
        actorId: actor.id,
        action,
        targetType: 'supplier',
        targetId: supplierId,
        reason,
        data,
        at: ctx.clock.now(),
      });
      return {
        supplierId,
        kycStatus: updated.kycStatus,
        verificationStatus: updated.verificationStatus,
        attemptId: moved?.id ?? null,
      };
    });
  }
}
