import type { AppContext } from '../../context.js';
import { validationError } from '../../shared/errors.js';
import {
  RANKED_CANDIDATES_CAP,
  assertListingPage,
  earliestOf,
  searchTerms,
  type ListingMeta,
} from '../../listings/index.js';
import * as repo from './deals-search.repository.js';
import type { DealCardView, DealSearchQuery } from './deals.schemas.js';

const DEFAULT_RADIUS_KM = 5;

export type DealsSearchService = ReturnType<typeof createDealsSearchService>;

/** GET /deals: the public list (docs/deals.md), cached for the minute under `deals.search`. */
export function createDealsSearchService(ctx: AppContext) {
  const toCard = (r: repo.DealCardRow): DealCardView => ({
    id: r.id,
    title: r.title,
    kind: r.kind,
    category: r.category,
    price: r.price,
    originalValue: r.originalValue,
    discountPercent: r.discountPercent,
    currency: r.currency,
    placesLeft: Math.max(0, r.totalPlaces - r.placesTaken),
    validUntil: r.validUntil.toISOString(),
    pickupStart: r.pickupStart,
    pickupEnd: r.pickupEnd,
    storeId: r.storeId,
    storeName: r.storeName,
    thumbnailUrl: r.thumbnailKey ? ctx.links.publicUrl(r.thumbnailKey) : null,
    distanceKm: r.distanceM === undefined ? null : Math.round(r.distanceM) / 1000,
  });

  return {
    search(q: DealSearchQuery): Promise<{ items: DealCardView[]; meta: ListingMeta }> {
      if (q.latitude === undefined && q.longitude === undefined && q.radiusKm !== undefined)
        throw validationError('query.radiusKm', 'needs latitude and longitude');
      if (q.latitude !== undefined && q.longitude === undefined)
        throw validationError('query.longitude', 'must come with latitude');
      if (q.longitude !== undefined && q.latitude === undefined)
        throw validationError('query.latitude', 'must come with longitude');
      const point =
        q.latitude !== undefined && q.longitude !== undefined
          ? { latitude: q.latitude, longitude: q.longitude, radiusM: (q.radiusKm ?? DEFAULT_RADIUS_KM) * 1000 }
          : undefined;
      const sort = q.sort ?? (q.q ? 'relevance' : point ? 'distance' : 'newest');
      if (sort === 'distance' && !point) throw validationError('query.sort', 'distance needs latitude and longitude');
      if (sort === 'relevance' && !q.q) throw validationError('query.sort', 'relevance needs q');
      assertListingPage(q, sort === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get(
        'deals.search',
        q,
        async () => {
          const terms = q.q === undefined ? null : searchTerms(q.q);
          if (q.q !== undefined && !terms)
            return {
              items: [],
              meta: { page: q.page, limit: q.limit, total: 0, totalPages: 0, hasMore: false, totalIsEstimate: false },
            };
          const { items, meta } = await repo.searchDeals(ctx.db, { ...q, terms, point, sort }, ctx.clock.now(), q);
          return { items: items.map(toCard), meta };
        },
        (page) => earliestOf(page.items, 'validUntil'),
      );
    },
  };
}
