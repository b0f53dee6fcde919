import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/access.js';
import { conflict, notFound } from '../../shared/errors.js';
import { pageMeta, type PageQuery } from '../../shared/schemas.js';
import { recordAdminAction } from '../audit/index.js';
import * as repo from './reviews.repository.js';
import type { ReviewsService } from './reviews.service.js';
import { toReportedView } from './reviews.views.js';

export type ReviewsModerationService = ReturnType<typeof createReviewsModerationService>;

/** Administrators' decisions on reported reviews; each one audited in its transaction. */
export function createReviewsModerationService(ctx: AppContext, reviews: ReviewsService) {
  const now = () => ctx.clock.now();

  return {
    /** Reviews with open reports (hidden or not yet), most reported first, with those reports. */
    async reported(q: PageQuery) {
      const { items, total } = await repo.listReported(ctx.db, q);
      const ids = items.map((r) => r.id);
      const [images, reports] = await Promise.all([repo.imagesOf(ctx.db, ids), repo.openReportsOf(ctx.db, ids)]);
      return {
        items: items.map((r) => toReportedView(r, images.get(r.id) ?? [], reports.get(r.id) ?? [], ctx.links)),
        meta: pageMeta(q, total),
      };
    },

    /** The reports are closed and the review is visible again (back in its target's summary). */
    async clear(admin: AuthUser, id: string, reason?: string) {
      return ctx.db.transaction(async (tx) => {
        const r = await repo.findReview(tx, id, { lock: true });
        if (!r) throw notFound('Review');
        if (!r.openReports && !r.hidden) throw conflict('NO_OPEN_REPORTS', 'This review has no open report');
        const t = now();
        const closed = await repo.closeReports(tx, id, admin.id, t);
        const row = await repo.updateReview(tx, id, { openReports: 0, hidden: false });
        if (r.hidden) await reviews.follow(tx, r, null, r.rating);
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'review.reports_cleared',
          targetType: 'review',
          targetId: id,
          reason,
          data: { reportsClosed: closed, wasHidden: r.hidden },
          at: t,
        });
        return reviews.ownView(tx, row);
      });
    },

    /** Deletes a review for good; the audit keeps what it said. */
    async remove(admin: AuthUser, id: string, reason?: string) {
      await ctx.db.transaction(async (tx) => {
        const r = await repo.findReview(tx, id, { lock: true });
        if (!r) throw notFound('Review');
        await reviews.removeReview(tx, r);
        const data = {
          authorId: r.authorId,
          targetType: r.targetType,
          targetId: r.targetId,
          rating: r.rating,
          title: r.title,
          comment: r.comment,
          openReports: r.openReports,
          hidden: r.hidden,
        };
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'review.deleted',
          targetType: 'review',
          targetId: id,
          reason,
          data,
          at: now(),
        });
      });
      return { message: 'Review deleted' };
    },
  };
}
