import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { products } from './products.js';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const REVIEW_TARGETS = ['PRODUCT', 'SUPPLIER'] as const;
export type ReviewTarget = (typeof REVIEW_TARGETS)[number];
export const REPORT_REASONS = ['spam', 'offensive', 'false', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/**
 * A client's review of a product or of a supplier. `target_id` is the product's id for a product
 * review and the supplier's for a supplier review (ids are UUIDs, so it names one thing), which
 * lets one set of indexes serve both lists. `supplier_id` is always the supplier who answers.
 */
export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey(),
    authorId: uuid('author_id')
      .notNull()
      .references(() => users.id),
    // The author's name as shown (first name and initial), taken when the review is written or edited.
    authorName: text('author_name').notNull(),
    targetType: text('target_type').$type<ReviewTarget>().notNull(),
    targetId: uuid('target_id').notNull(),
    productId: uuid('product_id').references(() => products.id),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    rating: smallint('rating').notNull(),
    title: text('title'),
    comment: text('comment'),
    helpfulCount: integer('helpful_count').notNull().default(0),
    // Hidden from the public while three or more reporters wait for an administrator's decision.
    hidden: boolean('hidden').notNull().default(false),
    openReports: integer('open_reports').notNull().default(0),
    reply: text('reply'),
    repliedAt: ts('replied_at'),
    repliedBy: uuid('replied_by').references(() => users.id),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    check('reviews_rating', sql`rating between 1 and 5`),
    check(
      'reviews_target',
      sql`(target_type = 'PRODUCT' and product_id = target_id) or (target_type = 'SUPPLIER' and product_id is null and supplier_id = target_id)`,
    ),
    check('reviews_counters', sql`helpful_count >= 0 and open_reports >= 0`),
    // One review per client per product or supplier.
    uniqueIndex('reviews_author_target_key').on(t.authorId, t.targetId),
    index('reviews_author_idx').on(t.authorId, t.createdAt),
    // The public lists, one partial index per order, over visible reviews only: a page reads about
    // `limit` rows. The rating-first ones also serve a filter on one rating, newest first.
    index('reviews_target_newest_idx').on(t.targetId, t.createdAt.desc(), t.id.desc()).where(sql`not hidden`),
    index('reviews_target_highest_idx')
      .on(t.targetId, t.rating.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`not hidden`),
    index('reviews_target_lowest_idx').on(t.targetId, t.rating, t.createdAt.desc(), t.id.desc()).where(sql`not hidden`),
    index('reviews_target_helpful_idx')
      .on(t.targetId, t.helpfulCount.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`not hidden`),
    // The moderation list.
    index('reviews_reported_idx').on(t.openReports, t.createdAt).where(sql`open_reports > 0`),
  ],
);

/** Pictures of a review, each stored in two sizes, as product pictures are. Rows go with the review. */
export const reviewImages = pgTable(
  'review_images',
  {
    id: uuid('id').primaryKey(),
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    thumbnailKey: text('thumbnail_key').notNull(),
    largeKey: text('large_key').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('review_images_position_key').on(t.reviewId, t.position)],
);

/**
 * The rating summary of a product or supplier: what the visible reviews add up to, kept by guarded
 * increments in the transaction of each change (docs/reviews.md).
 */
export const reviewSummaries = pgTable(
  'review_summaries',
  {
    targetId: uuid('target_id').primaryKey(),
    reviewCount: integer('review_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    stars1: integer('stars_1').notNull().default(0),
    stars2: integer('stars_2').notNull().default(0),
    stars3: integer('stars_3').notNull().default(0),
    stars4: integer('stars_4').notNull().default(0),
    stars5: integer('stars_5').notNull().default(0),
  },
  () => [
    check(
      'review_summaries_consistent',
      sql`stars_1 >= 0 and stars_2 >= 0 and stars_3 >= 0 and stars_4 >= 0 and stars_5 >= 0
        and review_count = stars_1 + stars_2 + stars_3 + stars_4 + stars_5
        and rating_sum = stars_1 + 2 * stars_2 + 3 * stars_3 + 4 * stars_4 + 5 * stars_5`,
    ),
  ],
);

/**
 * "Helpful" marks: one per signed-in user (`u:<id>`), or one per anonymous device or address per
 * day (`d:<device>:<day>`, `ip:<address>:<day>`).
 */
export const reviewHelpfulVotes = pgTable(
  'review_helpful_votes',
  {
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    voterKey: text('voter_key').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.voterKey] })],
);

/** Reports of a review, one per user; closed (never deleted) when an administrator clears them. */
export const reviewReports = pgTable(
  'review_reports',
  {
    id: uuid('id').primaryKey(),
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    reporterId: uuid('reporter_id')
      .notNull()
      .references(() => users.id),
    reason: text('reason').$type<ReportReason>().notNull(),
    comment: text('comment'),
    createdAt: ts('created_at').notNull(),
    closedAt: ts('closed_at'),
    closedBy: uuid('closed_by').references(() => users.id),
  },
  (t) => [
    uniqueIndex('review_reports_reporter_key').on(t.reviewId, t.reporterId),
    index('review_reports_open_idx').on(t.reviewId).where(sql`closed_at is null`),
  ],
);
