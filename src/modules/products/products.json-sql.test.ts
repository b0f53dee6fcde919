import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productFavorites, productImages } from '../../db/schema/products.js';
import { reviews, reviewSummaries } from '../../db/schema/reviews.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { Ok } from '../../shared/schemas.js';
import { uuidv7 } from '../../shared/ids.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createStore, createSupplier, createUser } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import * as arb from '../../../test/helpers/json-sql.js';
import { findStoresByIds } from '../stores/stores.repository.js';
import { toStoreView } from '../stores/stores.service.js';
import { findLiveProfile } from '../suppliers/suppliers.repository.js';
import { toRatingDetail } from '../reviews/reviews.views.js';
import { ALLERGENS, DIETARY_TAGS, PRODUCT_CATEGORIES } from './product-catalog.js';
import { findProduct, insertProduct, type ImageRecord } from './products.repository.js';
import { ProductDetailSchema } from './products.schemas.js';
import { productFieldsView, toImageView } from './products.views.js';

// The product page as PostgreSQL writes it (products.json-sql.ts, with the store's, the supplier's and the
// reviews' parts) against the TypeScript views of the same rows, and the answer of GET /products/:id.

let t: TestApp;
let supplier: Awaited<ReturnType<typeof createSupplier>>;
let viewer: Awaited<ReturnType<typeof createSignedIn>>;
let authors: { id: string }[];
beforeAll(async () => {
  t = await buildTestApp();
  supplier = await createSupplier(t.app);
  viewer = await createSignedIn(t.app);
  authors = await Promise.all([0, 1, 2, 3, 4].map(() => createUser(t.app)));
});
afterAll(() => t.close());

const HOUR = 3_600_000;
/** The largest price the API accepts (products.schemas.ts): the stored discount is computed in 64 bits (0040). */
const MAX_STORED_PRICE = 100_000_000;
const hhmm = fc
  .tuple(fc.nat({ max: 23 }), fc.nat({ max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const prices = fc
  .integer({ min: 1, max: MAX_STORED_PRICE })
  .chain((original) =>
    fc.record({ originalPrice: fc.constant(original), discountedPrice: fc.integer({ min: 0, max: original - 1 }) }),
  );
const product = fc.record({
  name: arb.text(1, 120),
  description: arb.text(0, 200),
  category: fc.constantFrom(...PRODUCT_CATEGORIES),
  prices: fc.oneof(
    fc.constant({ originalPrice: 1, discountedPrice: 0 }),
    fc.constant({ originalPrice: MAX_STORED_PRICE, discountedPrice: 0 }),
    prices,
  ),
  quantity: fc.nat({ max: 100_000 }),
  unitWeightGrams: fc.integer({ min: 1, max: 100_000 }),
  expiresIn: fc.integer({ min: HOUR, max: 1_000_000 * HOUR }),
  pickupStart: hhmm,
  pickupEnd: hhmm,
  dietaryTags: fc.subarray([...DIETARY_TAGS]),
  allergens: fc.subarray([...ALLERGENS]),
  viewsCount: fc.nat(),
  favoritesCount: fc.nat(),
  salesCount: fc.nat(),
  // Stored as log2 of the score at the popularity epoch (popularityAt): far below 2^1024.
  popularityScore: fc.double({ min: 0, max: 100, noNaN: true }),
  ratingAverage: fc.double({ min: 0, max: 5, noNaN: true }),
  publishedAt: fc.option(arb.instant),
  createdAt: arb.instant,
  updatedAt: arb.instant,
});
const store = fc.record({
  name: arb.text(1, 60),
  description: arb.text(0, 80),
  city: arb.text(0, 20),
  latitude: arb.latitude,
  longitude: arb.longitude,
  phone: fc.option(arb.text(0, 20)),
  openingHours: arb.openingHours,
  timezone: arb.timezone,
  pickupInstructions: fc.option(arb.text(0, 40)),
  // A closure yet to come shows on the page (one in effect hides the product).
  closure: fc.option(
    fc.tuple(
      fc.integer({ min: HOUR, max: 1000 * HOUR }),
      fc.integer({ min: 1, max: 1000 * HOUR }),
      fc.option(arb.text(0, 40)),
    ),
  ),
});
const review = fc.record({
  rating: fc.integer({ min: 1, max: 5 }),
  comment: fc.option(arb.text(0, 80)),
  authorName: arb.text(1, 40),
  hidden: fc.boolean(),
  createdAt: arb.instant,
});
const stars = fc.nat({ max: 1_000_000 });
const page = fc.record({
  product,
  store,
  supplier: fc.record({ businessName: arb.text(1, 60), city: arb.text(0, 20), logoKey: fc.option(arb.fileKey) }),
  images: fc.uniqueArray(fc.nat({ max: 10 }), { maxLength: 3 }),
  reviews: fc.array(review, { maxLength: 5 }),
  summary: fc.option(fc.tuple(stars, stars, stars, stars, stars)),
  favourite: fc.option(fc.boolean()),
});
type Page = typeof page extends fc.Arbitrary<infer P> ? P : never;

/** Writes the rows of a random page; returns the product's id and the viewer (null: anonymous). */
async function writePage(p: Page) {
  const db = t.app.ctx.db;
  const now = t.clock.now();
  await db.update(supplierProfiles).set(p.supplier).where(eq(supplierProfiles.id, supplier.profile.id));
  const [startIn, lasts, reason] = p.store.closure ?? [];
  const s = await createStore(t.app, supplier, {
    ...p.store,
    closureStartsAt: startIn ? new Date(now.getTime() + startIn) : null,
    closureEndsAt: startIn ? new Date(now.getTime() + startIn + lasts!) : null,
    closureReason: reason ?? null,
  });
  const { prices, expiresIn, ...fields } = p.product;
  const created = await insertProduct(
    db,
    {
      ...fields,
      ...prices,
      id: uuidv7(),
      supplierId: supplier.profile.id,
      storeId: s.id,
      status: 'ACTIVE',
      expiresAt: new Date(now.getTime() + expiresIn),
    },
    s,
  );
  for (const position of p.images)
    await db.insert(productImages).values({
      id: uuidv7(),
      productId: created.id,
      position,
      thumbnailKey: `t${position}.webp`,
      largeKey: `l${position}.webp`,
      createdAt: now,
    });
  for (const [i, r] of p.reviews.entries())
    await db.insert(reviews).values({
      ...r,
      id: uuidv7(),
      authorId: authors[i]!.id,
      targetType: 'PRODUCT',
      targetId: created.id,
      productId: created.id,
      supplierId: supplier.profile.id,
      updatedAt: r.createdAt,
    });
  if (p.summary) {
    const [stars1, stars2, stars3, stars4, stars5] = p.summary;
    const reviewCount = stars1 + stars2 + stars3 + stars4 + stars5;
    const ratingSum = stars1 + 2 * stars2 + 3 * stars3 + 4 * stars4 + 5 * stars5;
    await db
      .insert(reviewSummaries)
      .values({ targetId: created.id, reviewCount, ratingSum, stars1, stars2, stars3, stars4, stars5 });
  }
  if (p.favourite)
    await db.insert(productFavorites).values({ userId: viewer.user.id, productId: created.id, createdAt: now });
  return { id: created.id, userId: p.favourite === null ? null : viewer.user.id };
}

/** The page as the TypeScript views show the same rows. */
async function viewOf(p: Page, id: string, userId: string | null) {
  const db = t.app.ctx.db;
  const now = t.clock.now();
  const record = (await findProduct(db, id))!;
  const [s] = await findStoresByIds(db, [record.storeId]);
  const sp = (await findLiveProfile(db, record.supplierId))!;
  const images = [...p.images]
    .sort((a, b) => a - b)
    .map(
      (position) =>
        ({ id: '', position, thumbnailKey: `t${position}.webp`, largeKey: `l${position}.webp` }) as ImageRecord,
    );
  const { popularityScore: _, ...fields } = productFieldsView(
    record,
    images.map((i) => toImageView(i, t.app.ctx.links)),
    now,
  );
  const [summary] = await db.select().from(reviewSummaries).where(eq(reviewSummaries.targetId, id));
  const latest = p.reviews
    .map((r, i) => ({ ...r, i }))
    .filter((r) => !r.hidden)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.i - a.i) // ties: the later id first
    .slice(0, 3);
  return {
    ...fields,
    store: toStoreView(s!, now),
    supplier: {
      id: sp.id,
      businessName: sp.businessName,
      city: sp.city,
      logoUrl: sp.logoKey ? t.app.ctx.links.publicUrl(sp.logoKey) : null,
      verified: sp.verificationStatus === 'VERIFIED',
    },
    rating: toRatingDetail(summary),
    latestReviews: latest.map((r) => ({
      rating: r.rating,
      comment: r.comment,
      authorName: r.authorName,
      createdAt: r.createdAt.toISOString(),
    })),
    isFavorite: userId !== null && p.favourite === true,
  };
}

describe('The product page PostgreSQL writes', () => {
  it('is what the TypeScript views show of the same rows, and matches ProductDetailSchema', async () => {
    await arb.checkRows(
      page,
      async (p) => {
        const { id, userId } = await writePage(p);
        const written = JSON.parse(await t.app.services.products.getPublic(id, userId)) as Record<string, any>;
        const expected = await viewOf(p, id, userId);
        // Picture and review ids are made by the database's rows: compared by what they show.
        // The decayed popularity is the application's (popularityAt, at its own instant), not the database's.
        const { images, latestReviews, popularityScore: _, ...rest } = written;
        const { images: wantImages, latestReviews: wantLatest, ...wantRest } = expected;
        expect(rest).toStrictEqual(wantRest);
        expect(images.map(({ id: _, ...i }: { id: string }) => i)).toStrictEqual(
          wantImages.map(({ id: _, ...i }) => i),
        );
        expect(latestReviews.map(({ id: _, ...r }: { id: string }) => r)).toStrictEqual(wantLatest);
        arb.expectSchema(ProductDetailSchema, written, 'product page');
      },
      25,
    );
  });

  it('answers GET /products/:id as its response schema says', async () => {
    const [p] = fc.sample(page, { seed: arb.SEED, numRuns: 1 });
    const { id } = await writePage(p!);
    const res = await call(t.app, 'GET', `/products/${id}`, { token: viewer.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    arb.expectSchema(Ok(ProductDetailSchema), res.body, 'GET /products/:id');
  });
});
