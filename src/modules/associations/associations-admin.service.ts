import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AssociationStatus } from '../../db/schema/associations.js';
import type { AuthUser } from '../../http/access.js';
import { conflict, notFound } from '../../shared/errors.js';
import { pageMeta, pageOffset, type SortOf } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import { ASSOCIATION_TRANSITIONS } from './association-status.js';
import * as repo from './associations.repository.js';
import type { AdminListQuery, AdminStatsView, AssociationSortField, PendingQuery } from './associations.schemas.js';
import { toAdminView } from './associations.views.js';

const TARGET = 'association';
const DAY_MS = 24 * 60 * 60 * 1000;

export type AssociationsAdminService = ReturnType<typeof createAssociationsAdminService>;

/** Administrators' decisions on associations: audited and told to the association in their transaction. */
export function createAssociationsAdminService(ctx: AppContext, deps: { notifications: NotificationsApi }) {
  async function documentsOf(ex: Executor, ids: string[]) {
    const rows = await repo.listDocumentsOf(ex, ids);
    return (id: string) => rows.filter((d) => d.associationId === id);
  }

  async function adminView(ex: Executor, id: string) {
    const row = await repo.findWithOwner(ex, id);
    if (!row) throw notFound('Association');
    return toAdminView(row.association, row.owner, (await documentsOf(ex, [id]))(id), ctx.links, ctx.clock.now());
  }

  async function list(f: repo.AdminFilter, q: { page: number; limit: number }, sort: SortOf<AssociationSortField>) {
    const { items, total } = await repo.listWithOwners(ctx.db, f, { limit: q.limit, offset: pageOffset(q), sort });
    const docs = await documentsOf(
      ctx.db,
      items.map((r) => r.association.id),
    );
    const now = ctx.clock.now();
    return {
      items: items.map((r) => toAdminView(r.association, r.owner, docs(r.association.id), ctx.links, now)),
      meta: pageMeta(q, total),
    };
  }

  async function decide(actor: AuthUser, id: string, to: AssociationStatus, reason: string | null) {
    return ctx.db.transaction(async (tx) => {
      const r = await repo.lock(tx, { id });
      if (!r) throw notFound('Association');
      assertTransition(ASSOCIATION_TRANSITIONS, r.status, to, 'Association verification');
      // What the administrators check the association against: nothing to check, nothing to vouch for.
      if (to === 'VERIFIED' && (await repo.countDocuments(tx, r.id)) === 0) {
        throw conflict(
          'DOCUMENTS_REQUIRED',
          'The association has sent no document (registration certificate, statutes) to verify it against',
        );
      }
      const at = ctx.clock.now();
      await repo.update(tx, r.id, {
        status: to,
        verifiedAt: to === 'VERIFIED' ? at : null,
        rejectionReason: to === 'REJECTED' ? reason : null,
        updatedAt: at,
      });
      await recordAdminAction(tx, {
        actorId: actor.id,
        action: to === 'VERIFIED' ? 'association.verified' : 'association.rejected',
        targetType: TARGET,
        targetId: r.id,
        reason,
        data: { from: r.status, to },
        at,
      });
      const type = to === 'VERIFIED' ? 'association_verified' : 'association_rejected';
      await deps.notifications.notify(tx, r.userId, type, {
        associationId: r.id,
        name: r.name,
        ...(reason && to === 'REJECTED' && { reason }),
      });
      return adminView(tx, r.id);
    });
  }

  return {
    list: (q: AdminListQuery) => list(q, q, q.sort ?? '-createdAt'),
    /** The review queue: the oldest submissions first. */
    pending: (q: PendingQuery) => list({ ...q, status: 'PENDING' }, q, 'submittedAt'),
    verify: (actor: AuthUser, id: string, reason?: string) => decide(actor, id, 'VERIFIED', reason ?? null),
    reject: (actor: AuthUser, id: string, reason: string) => decide(actor, id, 'REJECTED', reason),

    async stats(): Promise<AdminStatsView> {
      const now = ctx.clock.now();
      const s = await repo.statistics(ctx.db, new Date(now.getTime() - 30 * DAY_MS));
      const byStatus = { PENDING: 0, VERIFIED: 0, REJECTED: 0 };
      for (const row of s.byStatus) byStatus[row.status] = row.n;
      return {
        total: byStatus.PENDING + byStatus.VERIFIED + byStatus.REJECTED,
        byStatus,
        registeredLast30Days: s.registeredSince,
        oldestPendingSubmittedAt: s.oldestPendingAt?.toISOString() ?? null,
        reports: { total: s.reports.n, mealsServed: s.reports.meals, peopleHelped: s.reports.people },
        generatedAt: now.toISOString(),
      };
    },
  };
}
