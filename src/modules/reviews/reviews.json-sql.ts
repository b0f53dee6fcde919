import { sql, type SQLWrapper } from 'drizzle-orm';
import { isoSql } from '../../listings/index.js';
import { reviews, reviewSummaries } from '../../db/schema/reviews.js';

// The review views PostgreSQL writes as JSON (docs/architecture.md, "JSON written by the database"):
// reviews.json-sql.test.ts checks them against toRatingDetail and the product page's response schema.
// A field added to a view must be added here too.

/**
 * The product page's `rating` (as toRatingDetail shows the summary, the average rounded as averageOf
 * rounds it) and `latestReviews` (the `n` latest visible reviews, as the page shows them), as JSON
 * pairs of the product page's statement (`productId`: that statement's product id column).
 */
export const productPagePairs = (productId: SQLWrapper, n: number) =>
  sql`'rating', coalesce((select json_build_object(
      'average', case when s.review_count > 0 then floor(s.rating_sum::float8 / s.review_count * 100 + 0.5) / 100 else 0 end,
      'count', s.review_count,
      'distribution', json_build_object('1', s.stars_1, '2', s.stars_2, '3', s.stars_3, '4', s.stars_4, '5', s.stars_5))
    from ${reviewSummaries} s where s.target_id = ${productId}),
    json_build_object('average', 0, 'count', 0, 'distribution', json_build_object('1', 0, '2', 0, '3', 0, '4', 0, '5', 0))),
  'latestReviews', coalesce((select json_agg(json_build_object('id', p.id, 'rating', p.rating, 'comment', p.comment,
      'authorName', p.author_name, 'createdAt', ${isoSql(sql`p.created_at`)}) order by p.created_at desc, p.id desc) from (
    select r.id, r.rating, r.comment, r.author_name, r.created_at from ${reviews} r
    where r.target_id = ${productId} and not r.hidden
    order by r.created_at desc nulls last, r.id desc nulls last limit ${sql.raw(String(Math.trunc(n)))}) p), '[]'::json)`;
