import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { storeImageSizes, type UploadedFile } from '../../http/uploads.js';
import { AppError, conflict, forbidden, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { assertListingPage, metaOf } from '../../listings/index.js';
import { pageMeta, type PageQuery } from '../../shared/schemas.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { OrdersApi } from '../orders/index.js';
import type { ProductsApi } from '../products/index.js';
import type { SettingsApi } from '../settings/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import * as figures from './reviews.figures.js';
import * as repo from './reviews.repository.js';
import type { ReviewRecord, Stars } from './reviews.repository.js';
import {
  MAX_REVIEW_IMAGES,
  type CreateReviewBody,
  type ReportBody,
  type ReviewListQuery,
  type UpdateReviewBody,
} from './reviews.schemas.js';
import { averageOf, toListedView, toOwnView, toRatingDetail } from './reviews.views.js';
import { productPagePairs } from './reviews.json-sql.js';

export interface ReviewsDeps {
  settings: SettingsApi;
  products: ProductsApi;
  suppliers: SuppliersApi;
  orders: OrdersApi;
  notifications: NotificationsApi;
}

/** Who marks a review helpful: a signed-in user, or an anonymous device (its header) or address. */
export interface Voter {
  userId: string | null;
  deviceId: string | null;
  ip: string;
}

export type ReviewsService = ReturnType<typeof createReviewsService>;

/** Different reporters that hide a review until an administrator decides. */
export const HIDE_AT_REPORTS = 3;
/** Reviews on a product's page. */
const LATEST_ON_PRODUCT_PAGE = 3;

/** "Awa D.": what the public sees of an author. */
const nameOf = (u: AuthUser['account']) =>
  u.lastName ? `${u.firstName} ${u.lastName.slice(0, 1).toUpperCase()}.` : u.firstName;

export function createReviewsService(ctx: AppContext, deps: ReviewsDeps) {
  const now = () => ctx.clock.now();

  const deleteFilesLater = (tx: Executor, images: repo.ImageRecord[]) =>
    ctx.storage.deleteLater(
      tx,
      'public',
      images.flatMap((i) => [i.thumbnailKey, i.largeKey]),
    );

  // The product page shows the summary and the latest reviews.
  deps.products.registerReviews((productId) => productPagePairs(productId, LATEST_ON_PRODUCT_PAGE));

  /**
   * Moves one visible review of `remove` stars to `add` stars in its target's summary, and stores the
   * new average and count on the product or supplier, all in the caller's transaction.
   */
  async function follow(
    tx: Executor,
    r: Pick<ReviewRecord, 'targetType' | 'targetId'>,
    remove: number | null,
    add: number | null,
  ): Promise<void> {
    const s = await repo.applyToSummary(tx, r.targetId, remove as Stars | null, add as Stars | null);
    const rating = { average: averageOf(s), count: s.reviewCount };
    if (r.targetType === 'PRODUCT') await deps.products.setRating(tx, r.targetId, rating);
    else await deps.suppliers.setRating(tx, r.targetId, rating);
  }

  /** A product that was ever on sale and is not deleted, or a verified supplier: what may be reviewed and listed. */
  async function findTarget(ex: Executor, of: { productId: string } | { supplierId: string }) {
    if ('productId' in of) {
      const p = await deps.products.findLive(ex, of.productId);
      if (!p?.publishedAt) throw notFound('Product');
      return {
        targetType: 'PRODUCT' as const,
        targetId: p.id,
        productId: p.id,
        supplierId: p.supplierId,
        name: p.name,
      };
    }
    const s = await deps.suppliers.findProfile(of.supplierId, ex);
    if (s?.verificationStatus !== 'VERIFIED') throw notFound('Supplier');
    return { targetType: 'SUPPLIER' as const, targetId: s.id, productId: null, supplierId: s.id, name: s.businessName };
  }

  /**
   * The caller's own review. Someone else's: 404 while it is hidden (the public cannot see it),
   * 403 NOT_OWNER otherwise.
   */
  async function own(ex: Executor, user: AuthUser, id: string, opts: { lock?: boolean } = {}): Promise<ReviewRecord> {
    const r = await repo.findReview(ex, id, opts);
    if (!r) throw notFound('Review');
    if (r.authorId !== user.id) {
      if (r.hidden) throw notFound('Review');
      throw forbidden('NOT_OWNER', 'This review belongs to another user');
    }
    return r;
  }

  async function ownView(ex: Executor, r: ReviewRecord) {
    return toOwnView(r, (await repo.imagesOf(ex, [r.id])).get(r.id) ?? [], ctx.links);
  }

  async function list(of: { productId: string } | { supplierId: string }, q: ReviewListQuery) {
    assertListingPage(q);
    const sort = q.sort ?? 'newest';
    const targetId = 'productId' in of ? of.productId : of.supplierId;
    const { summary, page } = await repo.pageWithSummary(ctx.db, targetId, { ...q, sort }, q.limit + 1);
    // A target with a summary has had reviews, so it exists; only one without is looked up (404 or empty).
    if (!summary) await findTarget(ctx.db, of);
    const rating = toRatingDetail(summary);
    // The summary counts the visible reviews: the total without counting rows.
    const total = q.rating ? rating.distribution[q.rating as Stars] : rating.count;
    const meta = metaOf(
      q,
      Math.max(total, (q.page - 1) * q.limit + Math.min(page.length, q.limit)),
      page.length > q.limit,
    );
    return { items: page.slice(0, q.limit).map((r) => toListedView(r, ctx.links)), meta: { ...meta, rating } };
  }

  return {
    /** Dashboard and impact figures from this module's own tables (docs/analytics.md). */
    figures,
    follow,
    own,
    ownView,

    async create(user: AuthUser, body: CreateReviewBody) {
      if ((body.productId === undefined) === (body.supplierId === undefined))
        throw validationError('body.productId', 'give exactly one of productId and supplierId');
      const flags = await deps.settings.get('features');
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const target = await findTarget(
          tx,
          body.productId ? { productId: body.productId } : { supplierId: body.supplierId! },
        );
        const supplier = await deps.suppliers.findProfile(target.supplierId, tx);
        if (supplier?.userId === user.id)
          throw forbidden('SELF_REVIEW', 'A supplier does not review itself or its own products');
        if (flags.reviewsRequirePurchase) {
          const of = target.productId ? { productId: target.productId } : { supplierId: target.supplierId };
          if (!(await deps.orders.hasCompletedPurchase(tx, user.id, of))) {
            throw forbidden(
              'PURCHASE_REQUIRED',
              `Only a client who completed an order ${target.productId ? 'of this product' : 'from this supplier'} may review it`,
            );
          }
        }
        const row = await repo.insertReview(tx, {
          id: uuidv7(t.getTime()),
          authorId: user.id,
          authorName: nameOf(user.account),
          targetType: target.targetType,
          targetId: target.targetId,
          productId: target.productId,
          supplierId: target.supplierId,
          rating: body.rating,
          title: body.title ?? null,
          comment: body.comment ?? null,
          createdAt: t,
          updatedAt: t,
        });
        if (!row)
          throw conflict(
            'ALREADY_REVIEWED',
            `You have already reviewed this ${target.productId ? 'product' : 'supplier'}: edit your review instead`,
          );
        await follow(tx, row, null, row.rating);
        if (supplier) {
          const data = {
            reviewId: row.id,
            rating: row.rating,
            targetType: row.targetType,
            productId: row.productId,
            name: target.name,
          };
          await deps.notifications.notify(tx, supplier.userId, 'review_received', data, {
            sourceKey: `review:${row.id}:created`,
          });
        }
        return toOwnView(row, [], ctx.links);
      });
    },

    async update(user: AuthUser, id: string, body: UpdateReviewBody) {
      return ctx.db.transaction(async (tx) => {
        const before = await own(tx, user, id, { lock: true });
        const row = await repo.updateReview(tx, id, {
          ...(body.rating !== undefined && { rating: body.rating }),
          ...(body.title !== undefined && { title: body.title }),
          ...(body.comment !== undefined && { comment: body.comment }),
          authorName: nameOf(user.account),
          updatedAt: now(),
        });
        // A hidden review is out of the summary; it comes back with its rating of the moment.
        if (!before.hidden && row.rating !== before.rating) await follow(tx, row, before.rating, row.rating);
        return ownView(tx, row);
      });
    },

    async remove(user: AuthUser, id: string) {
      await ctx.db.transaction(async (tx) => {
        const r = await own(tx, user, id, { lock: true });
        await removeReview(tx, r);
      });
      return { message: 'Review deleted' };
    },

    async reply(user: AuthUser, id: string, text: string) {
      return ctx.db.transaction(async (tx) => {
        const r = await repo.findReview(tx, id, { lock: true });
        if (!r || r.hidden) throw notFound('Review');
        const profile = await deps.suppliers.findOwnProfile(user.id, tx);
        if (profile?.id !== r.supplierId)
          throw forbidden('NOT_OWNER', 'Only the supplier the review is about may answer it');
        const row = await repo.setReplyOnce(tx, id, text, user.id, now());
        if (!row) throw conflict('ALREADY_REPLIED', 'This review has an answer already');
        await deps.notifications.notify(
          tx,
          r.authorId,
          'review_replied',
          { reviewId: r.id, supplierName: profile.businessName },
          { sourceKey: `review:${r.id}:replied` },
        );
        return ownView(tx, row);
      });
    },

    listOfProduct: (productId: string, q: ReviewListQuery) => list({ productId }, q),
    listOfSupplier: (supplierId: string, q: ReviewListQuery) => list({ supplierId }, q),

    async mine(user: AuthUser, q: PageQuery) {
      const { items, total } = await repo.listOfAuthor(ctx.db, user.id, q);
      const images = await repo.imagesOf(
        ctx.db,
        items.map((r) => r.id),
      );
      return { items: items.map((r) => toOwnView(r, images.get(r.id) ?? [], ctx.links)), meta: pageMeta(q, total) };
    },

    /**
     * Counted once per signed-in user, or once a day per anonymous device (its `X-Device-Id`) or,
     * without one, per address. Marking again answers the count with `counted: false`.
     */
    async markHelpful(voter: Voter, id: string) {
      const day = now().toISOString().slice(0, 10);
      const key = voter.userId
        ? `u:${voter.userId}`
        : voter.deviceId
          ? `d:${voter.deviceId}:${day}`
          : `ip:${voter.ip}:${day}`;
      const res = await ctx.db.transaction(async (tx) => {
        // Locked: a review deleted meanwhile is a 404, not a vote for a row that is gone.
        const r = await repo.findReview(tx, id, { lock: true });
        if (!r || r.hidden) throw notFound('Review');
        if (voter.userId === r.authorId) throw forbidden('OWN_REVIEW', 'You cannot mark your own review helpful');
        return repo.addHelpfulVote(tx, id, key, now());
      });
      return { reviewId: id, ...res };
    },

    async report(user: AuthUser, id: string, body: ReportBody) {
      return ctx.db.transaction(async (tx) => {
        // The review's row lock orders concurrent reports: each counts the ones before it.
        const r = await repo.findReview(tx, id, { lock: true });
        if (!r || (r.hidden && r.authorId !== user.id)) throw notFound('Review');
        if (r.authorId === user.id) throw forbidden('OWN_REVIEW', 'You cannot report your own review');
        const t = now();
        const report = await repo.insertReport(tx, {
          id: uuidv7(t.getTime()),
          reviewId: id,
          reporterId: user.id,
          reason: body.reason,
          comment: body.comment ?? null,
          createdAt: t,
        });
        if (!report) throw conflict('ALREADY_REPORTED', 'You have already reported this review');
        const openReports = r.openReports + 1;
        const hide = !r.hidden && openReports >= HIDE_AT_REPORTS;
        await repo.updateReview(tx, id, { openReports, ...(hide && { hidden: true }) });
        if (hide) await follow(tx, r, r.rating, null);
        return { reviewId: id, reason: report.reason, createdAt: t.toISOString() };
      });
    },

    /** Adds pictures after those already there, each in two sizes; at most MAX_REVIEW_IMAGES in all. */
    async addImages(user: AuthUser, id: string, upload: { files: UploadedFile[]; fields: Record<string, string> }) {
      const extra = Object.keys(upload.fields)[0] ?? upload.files.find((f) => f.field !== 'images')?.field;
      if (extra) throw validationError(`body.${extra}`, 'is not an allowed property');
      if (!upload.files.length)
        throw validationError('body.images', `is required (one to ${MAX_REVIEW_IMAGES} image files)`);
      await own(ctx.db, user, id);
      const t = now();
      const made = await storeImageSizes(ctx, `reviews/${id}`, upload.files, t);
      try {
        return await ctx.db.transaction(async (tx) => {
          // The review's row lock orders parallel uploads: each counts what the previous added.
          const r = await own(tx, user, id, { lock: true });
          const existing = (await repo.imagesOf(tx, [id])).get(id) ?? [];
          if (existing.length + made.length > MAX_REVIEW_IMAGES) {
            throw new AppError(
              422,
              'TOO_MANY_IMAGES',
              `A review has at most ${MAX_REVIEW_IMAGES} pictures; it has ${existing.length} and ${made.length} were sent`,
            );
          }
          const next = existing.reduce((m, i) => Math.max(m, i.position), 0);
          await repo.insertImages(
            tx,
            made.map((m, n) => ({ ...m, reviewId: id, position: next + n + 1, createdAt: t })),
          );
          return ownView(tx, await repo.updateReview(tx, r.id, { updatedAt: t }));
        });
      } catch (err) {
        await ctx.storage.discard(
          'public',
          made.flatMap((m) => [m.thumbnailKey, m.largeKey]),
        );
        throw err;
      }
    },

    async removeImage(user: AuthUser, id: string, imageId: string) {
      return ctx.db.transaction(async (tx) => {
        await own(tx, user, id, { lock: true });
        const image = await repo.deleteImage(tx, id, imageId);
        if (!image) throw notFound('Image');
        await deleteFilesLater(tx, [image]);
        return ownView(tx, await repo.updateReview(tx, id, { updatedAt: now() }));
      });
    },

    removeReview,
  };

  /** Deletes a review (its row locked by the caller); the summary follows, the files by a job. */
  async function removeReview(tx: Executor, r: ReviewRecord): Promise<void> {
    const images = await repo.deleteReview(tx, r.id);
    if (!r.hidden) await follow(tx, r, r.rating, null);
    await deleteFilesLater(tx, images);
  }
}
