import { and, asc, count, desc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { opaque, preparedPage, type Executor } from '../../db/client.js';
import { reviewHelpfulVotes, reviewImages, reviewReports, reviews, reviewSummaries } from '../../db/schema/reviews.js';
import type { PageQuery } from '../../shared/schemas.js';
import { pageOffset } from '../../shared/schemas.js';
import type { ReviewSort } from './reviews.schemas.js';

export type ReviewRecord = typeof reviews.$inferSelect;
export type NewReview = typeof reviews.$inferInsert;
export type ImageRecord = typeof reviewImages.$inferSelect;
export type ReportRecord = typeof reviewReports.$inferSelect;
export type SummaryRecord = typeof reviewSummaries.$inferSelect;
export type Stars = 1 | 2 | 3 | 4 | 5;

export async function insertReview(ex: Executor, values: NewReview): Promise<ReviewRecord | undefined> {
  // The unique (author, target) index answers a second review, even from a concurrent request.
  const [row] = await ex
    .insert(reviews)
    .values(values)
    .onConflictDoNothing({ target: [reviews.authorId, reviews.targetId] })
    .returning();
  return row;
}

export async function findReview(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ReviewRecord | undefined> {
  const q = ex.select().from(reviews).where(eq(reviews.id, id)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function updateReview(ex: Executor, id: string, patch: Partial<NewReview>): Promise<ReviewRecord> {
  const [row] = await ex.update(reviews).set(patch).where(eq(reviews.id, id)).returning();
  return row!;
}

/** Sets the reply unless there is one already; undefined when there was. */
export async function setReplyOnce(
  ex: Executor,
  id: string,
  reply: string,
  by: string,
  at: Date,
): Promise<ReviewRecord | undefined> {
  const [row] = await ex
    .update(reviews)
    .set({ reply, repliedBy: by, repliedAt: at })
    .where(and(eq(reviews.id, id), isNull(reviews.reply)))
    .returning();
  return row;
}

export async function deleteReview(ex: Executor, id: string): Promise<ImageRecord[]> {
  const images = await ex.select().from(reviewImages).where(eq(reviewImages.reviewId, id));
  await ex.delete(reviews).where(eq(reviews.id, id));
  return images;
}

// ---- rating summaries

const column = {
  1: reviewSummaries.stars1,
  2: reviewSummaries.stars2,
  3: reviewSummaries.stars3,
  4: reviewSummaries.stars4,
  5: reviewSummaries.stars5,
} as const;

/**
 * Takes one visible review of `remove` stars out of the summary and adds one of `add` stars, in one
 * guarded UPDATE: the row lock it takes orders concurrent changes of one target, each adding to what
 * the previous committed, so the summary stays the exact sum of the visible reviews.
 */
export async function applyToSummary(
  ex: Executor,
  targetId: string,
  remove: Stars | null,
  add: Stars | null,
): Promise<SummaryRecord> {
  await ex.insert(reviewSummaries).values({ targetId }).onConflictDoNothing();
  const delta = (stars: Stars) => (stars === add ? 1 : 0) - (stars === remove ? 1 : 0);
  const set: Record<string, SQL> = {
    reviewCount: sql`${reviewSummaries.reviewCount} + ${(add ? 1 : 0) - (remove ? 1 : 0)}`,
    ratingSum: sql`${reviewSummaries.ratingSum} + ${(add ?? 0) - (remove ?? 0)}`,
  };
  for (const stars of [1, 2, 3, 4, 5] as const) {
    if (delta(stars)) set[`stars${stars}`] = sql`${column[stars]} + ${delta(stars)}`;
  }
  const [row] = await ex.update(reviewSummaries).set(set).where(eq(reviewSummaries.targetId, targetId)).returning();
  return row!;
}

// ---- lists

/**
 * Each order matches one partial index of migration 0026 (`desc nulls last` as the index was built),
 * so a page reads about `limit` rows of the target's visible reviews. `p.` is the same order over
 * the page's rows, for json_agg.
 */
const ORDER: Record<ReviewSort, [rows: SQL, page: SQL]> = {
  newest: [sql`r.created_at desc nulls last, r.id desc nulls last`, sql`p.created_at desc, p.id desc`],
  highest: [
    sql`r.rating desc nulls last, r.created_at desc nulls last, r.id desc nulls last`,
    sql`p.rating desc, p.created_at desc, p.id desc`,
  ],
  lowest: [
    sql`r.rating, r.created_at desc nulls last, r.id desc nulls last`,
    sql`p.rating, p.created_at desc, p.id desc`,
  ],
  helpful: [
    sql`r.helpful_count desc nulls last, r.created_at desc nulls last, r.id desc nulls last`,
    sql`p.helpful_count desc, p.created_at desc, p.id desc`,
  ],
};

const IMAGES = sql`coalesce((select json_agg(json_build_object('id', i.id, 'position', i.position, 'thumbnailKey', i.thumbnail_key, 'largeKey', i.large_key) order by i.position)
  from review_images i where i.review_id = r.id), '[]'::json)`;

export interface ListedReview {
  id: string;
  target_type: 'PRODUCT' | 'SUPPLIER';
  product_id: string | null;
  supplier_id: string;
  author_name: string;
  rating: number;
  title: string | null;
  comment: string | null;
  helpful_count: number;
  reply: string | null;
  replied_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
  images: Pick<ImageRecord, 'id' | 'position' | 'thumbnailKey' | 'largeKey'>[];
}

interface SummaryColumns {
  review_count: number | null;
  rating_sum: number | null;
  stars_1: number | null;
  stars_2: number | null;
  stars_3: number | null;
  stars_4: number | null;
  stars_5: number | null;
}

const toSummary = (targetId: string, r: SummaryColumns | undefined): SummaryRecord | undefined =>
  r?.review_count === null || r?.review_count === undefined
    ? undefined
    : {
        targetId,
        reviewCount: r.review_count,
        ratingSum: r.rating_sum!,
        stars1: r.stars_1!,
        stars2: r.stars_2!,
        stars3: r.stars_3!,
        stars4: r.stars_4!,
        stars5: r.stars_5!,
      };

/**
 * The statement of a page of one sort, with or without a rating filter: prepared, its plan kept
 * (preparedPage): parsing and planning it again on every request cost about as much as running it.
 */
const pageStatement = (sort: ReviewSort, rated: boolean) =>
  preparedPage((ex, rows) => {
    const [order, pageOrder] = ORDER[sort];
    const s = reviewSummaries;
    return ex
      .select({
        review_count: s.reviewCount,
        rating_sum: s.ratingSum,
        stars_1: s.stars1,
        stars_2: s.stars2,
        stars_3: s.stars3,
        stars_4: s.stars4,
        stars_5: s.stars5,
        page: sql<ListedReview[]>`coalesce((select json_agg(p order by ${pageOrder}) from (
            select r.id, r.target_type, r.product_id, r.supplier_id, r.author_name, r.rating, r.title, r.comment, r.helpful_count,
              r.reply, r.replied_at, r.created_at, r.updated_at, ${IMAGES} as images
            from ${reviews} r
            where r.target_id = t.id and not r.hidden ${rated ? sql`and r.rating = ${opaque(sql`${sql.placeholder('rating')}::int`)}` : sql``}
            order by ${order}
            limit ${sql.raw(String(rows))} offset ${opaque(sql`${sql.placeholder('offset')}::int`)}) p), '[]'::json)`,
      })
      .from(sql`(select ${sql.placeholder('id')}::uuid as id) t`)
      .leftJoin(s, sql`${s.targetId} = t.id`)
      .prepare(`reviews_page_${sort}_${rated ? 'rated' : 'all'}_${rows}`);
  });
const pageStatements = new Map<string, ReturnType<typeof pageStatement>>();

/**
 * The target's summary (undefined when it never had a review) and one page (`take` rows) of its
 * visible reviews with their pictures: one statement, one round trip.
 */
export async function pageWithSummary(
  ex: Executor,
  targetId: string,
  q: PageQuery & { sort: ReviewSort; rating?: number },
  take: number,
) {
  const key = `${q.sort} ${Boolean(q.rating)}`;
  let statement = pageStatements.get(key);
  if (!statement) pageStatements.set(key, (statement = pageStatement(q.sort, Boolean(q.rating))));
  const [row] = await statement(ex, take).execute({ id: targetId, rating: q.rating, offset: pageOffset(q) });
  return { summary: toSummary(targetId, row), page: (row?.page ?? []).slice(0, take) };
}

export async function listOfAuthor(
  ex: Executor,
  authorId: string,
  page: PageQuery,
): Promise<{ items: ReviewRecord[]; total: number }> {
  const w = eq(reviews.authorId, authorId);
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(reviews)
      .where(w)
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(page.limit)
      .offset(pageOffset(page)),
    ex.select({ n: count() }).from(reviews).where(w),
  ]);
  return { items, total: total?.n ?? 0 };
}

/** Reviews with open reports: most reported first, then the longest waiting. */
export async function listReported(ex: Executor, page: PageQuery): Promise<{ items: ReviewRecord[]; total: number }> {
  const w = gt(reviews.openReports, 0);
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(reviews)
      .where(w)
      .orderBy(desc(reviews.openReports), asc(reviews.createdAt), asc(reviews.id))
      .limit(page.limit)
      .offset(pageOffset(page)),
    ex.select({ n: count() }).from(reviews).where(w),
  ]);
  return { items, total: total?.n ?? 0 };
}

// ---- pictures

export async function imagesOf(ex: Executor, reviewIds: string[]): Promise<Map<string, ImageRecord[]>> {
  const out = new Map<string, ImageRecord[]>();
  if (!reviewIds.length) return out;
  const found = await ex
    .select()
    .from(reviewImages)
    .where(inArray(reviewImages.reviewId, reviewIds))
    .orderBy(asc(reviewImages.position));
  for (const i of found) out.set(i.reviewId, [...(out.get(i.reviewId) ?? []), i]);
  return out;
}

export async function insertImages(ex: Executor, values: (typeof reviewImages.$inferInsert)[]): Promise<void> {
  await ex.insert(reviewImages).values(values);
}

export async function deleteImage(ex: Executor, reviewId: string, imageId: string): Promise<ImageRecord | undefined> {
  const [row] = await ex
    .delete(reviewImages)
    .where(and(eq(reviewImages.reviewId, reviewId), eq(reviewImages.id, imageId)))
    .returning();
  return row;
}

// ---- helpful and reports

/** Records a vote unless this voter has one; true when it was new (and the counter went up). */
export async function addHelpfulVote(
  ex: Executor,
  reviewId: string,
  voterKey: string,
  at: Date,
): Promise<{ counted: boolean; helpfulCount: number }> {
  const [vote] = await ex
    .insert(reviewHelpfulVotes)
    .values({ reviewId, voterKey, createdAt: at })
    .onConflictDoNothing()
    .returning({ reviewId: reviewHelpfulVotes.reviewId });
  if (!vote) {
    const [row] = await ex.select({ n: reviews.helpfulCount }).from(reviews).where(eq(reviews.id, reviewId));
    return { counted: false, helpfulCount: row?.n ?? 0 };
  }
  const [row] = await ex
    .update(reviews)
    .set({ helpfulCount: sql`${reviews.helpfulCount} + 1` })
    .where(eq(reviews.id, reviewId))
    .returning({ n: reviews.helpfulCount });
  return { counted: true, helpfulCount: row!.n };
}

export async function insertReport(
  ex: Executor,
  values: typeof reviewReports.$inferInsert,
): Promise<ReportRecord | undefined> {
  const [row] = await ex
    .insert(reviewReports)
    .values(values)
    .onConflictDoNothing({ target: [reviewReports.reviewId, reviewReports.reporterId] })
    .returning();
  return row;
}

export async function openReportsOf(ex: Executor, reviewIds: string[]): Promise<Map<string, ReportRecord[]>> {
  const out = new Map<string, ReportRecord[]>();
  if (!reviewIds.length) return out;
  const found = await ex
    .select()
    .from(reviewReports)
    .where(and(inArray(reviewReports.reviewId, reviewIds), isNull(reviewReports.closedAt)))
    .orderBy(asc(reviewReports.createdAt), asc(reviewReports.id));
  for (const r of found) out.set(r.reviewId, [...(out.get(r.reviewId) ?? []), r]);
  return out;
}

export async function closeReports(ex: Executor, reviewId: string, by: string, at: Date): Promise<number> {
  const closed = await ex
    .update(reviewReports)
    .set({ closedAt: at, closedBy: by })
    .where(and(eq(reviewReports.reviewId, reviewId), isNull(reviewReports.closedAt)))
    .returning({ id: reviewReports.id });
  return closed.length;
}
