// The data of the review scenarios, made by the benchmark server before it listens: 200 reviews
// (some with an answer, a few with pictures) of each of 50 seeded products by 200 clients, with
// their rating summaries, written directly as the seed writes the catalogue.
import { sql } from 'drizzle-orm';
import type { App } from '../src/http/types.js';
import { rows } from '../src/db/client.js';
import { reviewImages, reviews, reviewSummaries } from '../src/db/schema/reviews.js';
import { users } from '../src/db/schema/users.js';
import { uuidv7 } from '../src/shared/ids.js';

export const REVIEWED_PRODUCTS = 50;
export const REVIEWS_PER_PRODUCT = 200;
const COMMENTS = [
  'Pain encore chaud, merci !',
  'Panier généreux pour le prix.',
  'Un peu sec le lendemain.',
  'Accueil parfait, je reviendrai.',
  'Très bon rapport qualité-prix.',
];

export async function prepareReviews(app: App): Promise<{ reviewedProductIds: string[] }> {
  const { db } = app.ctx;
  const products = await rows<{ id: string; supplier_id: string }>(
    db,
    sql`select id, supplier_id from products where status = 'ACTIVE' order by id desc limit ${REVIEWED_PRODUCTS}`,
  );
  const start = Date.now() - REVIEWS_PER_PRODUCT * 3_600_000;
  const authors = Array.from({ length: REVIEWS_PER_PRODUCT }, (_, i) => ({
    id: uuidv7(),
    phoneNumber: `+22178${String(i).padStart(7, '0')}`,
    role: 'CLIENT' as const,
    firstName: `Client${i}`,
    lastName: 'Bench',
    verifiedAt: new Date(),
    createdAt: new Date(),
    updatedAt: new Date(),
  }));
  await db.insert(users).values(authors);
  for (const p of products) {
    const made = authors.map((a, i) => {
      const at = new Date(start + i * 3_600_000);
      return {
        id: uuidv7(at.getTime()),
        authorId: a.id,
        authorName: `${a.firstName} B.`,
        targetType: 'PRODUCT' as const,
        targetId: p.id,
        productId: p.id,
        supplierId: p.supplier_id,
        rating: 1 + ((i * 7) % 5),
        title: i % 3 ? null : 'Avis du soir',
        comment: COMMENTS[i % COMMENTS.length]!,
        helpfulCount: (i * 13) % 40,
        reply: i % 4 ? null : 'Merci pour votre retour !',
        repliedAt: i % 4 ? null : at,
        createdAt: at,
        updatedAt: at,
      };
    });
    await db.insert(reviews).values(made);
    await db.insert(reviewImages).values(
      made
        .filter((_, i) => i % 10 === 0)
        .map((r) => ({
          id: uuidv7(),
          reviewId: r.id,
          position: 1,
          thumbnailKey: `reviews/${r.id}/a-thumb.jpg`,
          largeKey: `reviews/${r.id}/a-large.jpg`,
          createdAt: r.createdAt,
        })),
    );
    const stars = [1, 2, 3, 4, 5].map((n) => made.filter((r) => r.rating === n).length);
    const sum = made.reduce((s, r) => s + r.rating, 0);
    await db.insert(reviewSummaries).values({
      targetId: p.id,
      reviewCount: made.length,
      ratingSum: sum,
      stars1: stars[0]!,
      stars2: stars[1]!,
      stars3: stars[2]!,
      stars4: stars[3]!,
      stars5: stars[4]!,
    });
    await db.execute(
      sql`update products set rating_average = ${Math.round((sum / made.length) * 100) / 100}, rating_count = ${made.length} where id = ${p.id}`,
    );
  }
  await db.execute(sql`analyze reviews`);
  return { reviewedProductIds: products.map((p) => p.id) };
}
