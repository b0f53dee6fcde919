import type { FileLinks } from '../../providers/storage/storage.js';
import type { RatingDetail } from '../products/index.js';
import type { ImageRecord, ListedReview, ReportRecord, ReviewRecord, SummaryRecord } from './reviews.repository.js';
import type { OwnReviewView, ReportedReviewView, ReviewView } from './reviews.schemas.js';

const iso = (d: Date | string) => new Date(d).toISOString();

/** Average to two decimals; 0 without reviews. */
export const averageOf = (s: Pick<SummaryRecord, 'reviewCount' | 'ratingSum'>) =>
  s.reviewCount ? Math.round((s.ratingSum / s.reviewCount) * 100) / 100 : 0;

export function toRatingDetail(s: SummaryRecord | undefined): RatingDetail {
  if (!s) return { average: 0, count: 0, distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 } };
  return {
    average: averageOf(s),
    count: s.reviewCount,
    distribution: { 1: s.stars1, 2: s.stars2, 3: s.stars3, 4: s.stars4, 5: s.stars5 },
  };
}

const toImage = (i: Pick<ImageRecord, 'id' | 'position' | 'thumbnailKey' | 'largeKey'>, links: FileLinks) => ({
  id: i.id,
  position: i.position,
  thumbnailUrl: links.publicUrl(i.thumbnailKey),
  largeUrl: links.publicUrl(i.largeKey),
});

export function toReviewView(r: ReviewRecord, images: ImageRecord[], links: FileLinks): ReviewView {
  return {
    id: r.id,
    targetType: r.targetType,
    productId: r.productId,
    supplierId: r.supplierId,
    authorName: r.authorName,
    rating: r.rating,
    title: r.title,
    comment: r.comment,
    images: images.map((i) => toImage(i, links)),
    helpfulCount: r.helpfulCount,
    reply: r.reply && r.repliedAt ? { text: r.reply, repliedAt: r.repliedAt.toISOString() } : null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** A row of the public list (raw SQL: snake_case, pictures as JSON). */
export function toListedView(r: ListedReview, links: FileLinks): ReviewView {
  return {
    id: r.id,
    targetType: r.target_type,
    productId: r.product_id,
    supplierId: r.supplier_id,
    authorName: r.author_name,
    rating: r.rating,
    title: r.title,
    comment: r.comment,
    images: r.images.map((i) => toImage(i, links)),
    helpfulCount: r.helpful_count,
    reply: r.reply && r.replied_at ? { text: r.reply, repliedAt: iso(r.replied_at) } : null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export const toOwnView = (r: ReviewRecord, images: ImageRecord[], links: FileLinks): OwnReviewView => ({
  ...toReviewView(r, images, links),
  hidden: r.hidden,
});

export const toReportedView = (
  r: ReviewRecord,
  images: ImageRecord[],
  reports: ReportRecord[],
  links: FileLinks,
): ReportedReviewView => ({
  ...toOwnView(r, images, links),
  authorId: r.authorId,
  openReports: r.openReports,
  reports: reports.map((p) => ({
    id: p.id,
    reporterId: p.reporterId,
    reason: p.reason,
    comment: p.comment,
    createdAt: p.createdAt.toISOString(),
  })),
});
