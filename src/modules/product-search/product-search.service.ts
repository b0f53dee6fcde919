import type { AppContext } from '../../context.js';
import { validationError } from '../../shared/errors.js';
import { RANKED_CANDIDATES_CAP, assertListingPage, searchTerms, type ListingMeta } from '../../shared/listing-page.js';
import { DIETARY_TAGS, type DietaryTag } from '../products/product-catalog.js';
import { recomputePopularity } from '../products/products.repository.js';
import * as repo from './product-search.repository.js';
import type { ExpiringSoonQuery, ProductCardView, ProductSearchQuery } from './product-search.schemas.js';

/** What "expiring soon" means: within this many hours. */
export const EXPIRING_SOON_HOURS = 48;
const DEFAULT_RADIUS_KM = 5;

type Page = { items: ProductCardView[]; meta: ListingMeta };

/** The point of a query, both coordinates or neither (400 naming the missing one). */
function pointOf(q: { latitude?: number; longitude?: number; radiusKm?: number }) {
  if (q.latitude === undefined && q.longitude === undefined) {
    if (q.radiusKm !== undefined) throw validationError('query.radiusKm', 'needs latitude and longitude');
    return undefined;
  }
  if (q.latitude === undefined) throw validationError('query.latitude', 'must come with longitude');
  if (q.longitude === undefined) throw validationError('query.longitude', 'must come with latitude');
  return { latitude: q.latitude, longitude: q.longitude, radiusM: (q.radiusKm ?? DEFAULT_RADIUS_KM) * 1000 };
}

/** Recomputes the stored popularity score that trending reads; never computed per request. */
export const TRENDING_JOB = 'products.trending';

export function createProductSearchService(ctx: AppContext) {
  ctx.jobs.work(TRENDING_JOB, async () => {
    await ctx.db.transaction((tx) => recomputePopularity(tx, ctx.clock.now()));
    ctx.listings.changed(['products.trending', 'products.search']);
  });
  ctx.jobs.schedule(TRENDING_JOB, '*/10 * * * *');

  const toCard = (r: repo.CardRow): ProductCardView => ({
    id: r.id,
    name: r.name,
    thumbnailUrl: r.thumbnailKey ? ctx.links.publicUrl(r.thumbnailKey) : null,
    originalPrice: r.originalPrice,
    discountedPrice: r.discountedPrice,
    discountPercent: r.discountPercent,
    currency: r.currency,
    expiresAt: r.expiresAt.toISOString(),
    storeId: r.storeId,
    storeName: r.storeName,
    distanceKm: r.distanceM === undefined ? null : Math.round(r.distanceM) / 1000,
  });

  return {
    search(q: ProductSearchQuery): Promise<Page> {
      const point = pointOf(q);
      const sort = q.sort ?? (q.q ? 'relevance' : point ? 'distance' : 'newest');
      if (sort === 'distance' && !point) throw validationError('query.sort', 'distance needs latitude and longitude');
      if (sort === 'relevance' && !q.q) throw validationError('query.sort', 'relevance needs q');
      if (q.minPrice !== undefined && q.maxPrice !== undefined && q.minPrice > q.maxPrice) throw validationError('query.maxPrice', 'must be at least minPrice');
      const dietaryTags = q.dietaryTags?.split(',');
      const unknown = dietaryTags?.find((tag) => !(DIETARY_TAGS as readonly string[]).includes(tag));
      if (unknown) throw validationError('query.dietaryTags', `${unknown} is not one of ${DIETARY_TAGS.join(', ')}`);
      assertListingPage(q, sort === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get('products.search', q, async () => {
        const terms = q.q === undefined ? null : searchTerms(q.q);
        if (q.q !== undefined && !terms) return { items: [], meta: { page: q.page, limit: q.limit, total: 0, totalPages: 0, hasMore: false, totalIsEstimate: false } };
        const { items, meta } = await repo.searchProducts(
          ctx.db,
          { ...q, terms, point, sort, dietaryTags: dietaryTags as DietaryTag[] | undefined, expiresBefore: q.expiresBefore ? new Date(q.expiresBefore) : undefined },
          ctx.clock.now(),
          q,
        );
        return { items: items.map(toCard), meta };
      });
    },

    expiringSoon(q: ExpiringSoonQuery): Promise<Page> {
      const point = pointOf(q);
      assertListingPage(q);
      return ctx.listings.get('products.expiring', q, async () => {
        const now = ctx.clock.now();
        const until = new Date(now.getTime() + EXPIRING_SOON_HOURS * 3_600_000);
        const { items, meta } = await repo.expiringSoon(ctx.db, now, until, point, q);
        return { items: items.map(toCard), meta };
      });
    },

    /** By the stored popularity score, which the `products.trending` job keeps fresh. */
    trending(q: ExpiringSoonQuery): Promise<Page> {
      const point = pointOf(q);
      assertListingPage(q);
      return ctx.listings.get('products.trending', q, async () => {
        const { items, meta } = await repo.searchProducts(ctx.db, { terms: null, point, sort: 'popularity' }, ctx.clock.now(), q);
        return { items: items.map(toCard), meta };
      });
    },
  };
}
export type ProductSearchService = ReturnType<typeof createProductSearchService>;
