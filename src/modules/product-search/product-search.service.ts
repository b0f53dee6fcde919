import type { AppContext } from '../../context.js';
import { validationError } from '../../shared/errors.js';
import {
  JsonItems,
  RANKED_CANDIDATES_CAP,
  assertListingPage,
  searchTerms,
  type ListingMeta,
} from '../../listings/index.js';
import { DIETARY_TAGS, type DietaryTag, recomputePopularity, utcDay } from '../products/index.js';
import * as repo from './product-search.repository.js';
import type {
  ExpiringSoonQuery,
  ProductSearchQuery,
  TopSearchesQuery,
  TopSearchesView,
} from './product-search.schemas.js';

/** What "expiring soon" means: within this many hours. */
export const EXPIRING_SOON_HOURS = 48;
const DEFAULT_RADIUS_KM = 5;

/** A page of product cards (`ProductCardSchema`), as the database wrote them. */
type Page = { items: JsonItems; meta: ListingMeta };

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

const SEARCH_FLUSH_MS = 10_000;
const MAX_PENDING_SEARCHES = 10_000;
const PERIOD_DAYS = { day: 1, week: 7, month: 30 } as const;
const DAY_MS = 86_400_000;

export function createProductSearchService(ctx: AppContext) {
  // ---- searches, counted in memory per day and words, written in batches (no user is kept).
  let pendingSearches = new Map<string, repo.SearchCount>();
  async function flushSearches(): Promise<void> {
    if (!pendingSearches.size) return;
    const batch = [...pendingSearches.values()];
    pendingSearches = new Map();
    await repo.addSearches(ctx.db, batch).catch((err: unknown) => ctx.log.warn({ err }, 'product search counts lost'));
  }
  const timer = setInterval(() => void flushSearches(), SEARCH_FLUSH_MS);
  timer.unref();
  function record(query: string, found: number): void {
    const day = utcDay(ctx.clock.now());
    const key = `${day} ${query}`;
    const row = pendingSearches.get(key) ?? { day, query, searches: 0, zeroResultSearches: 0 };
    row.searches += 1;
    if (found === 0) row.zeroResultSearches += 1;
    pendingSearches.set(key, row);
    if (pendingSearches.size >= MAX_PENDING_SEARCHES) void flushSearches();
  }

  ctx.jobs.work(TRENDING_JOB, async () => {
    await ctx.db.transaction((tx) => recomputePopularity(tx, ctx.clock.now()));
    await ctx.listings.changed(['products.trending', 'products.search']);
  });
  ctx.jobs.schedule(TRENDING_JOB, '*/10 * * * *');

  // The public files' URL prefix the database puts before a thumbnail's key.
  const files = ctx.links.publicPrefix;
  const page = (found: repo.CardPage): Page => ({
    items: found.items instanceof JsonItems ? found.items : JsonItems.of(found.items),
    meta: found.meta,
  });
  // A cached page is served until its first product expires, not a second longer.
  const until = (p: Page) => p.items.earliest('expiresAt');

  const service = {
    flushSearches,
    async close() {
      clearInterval(timer);
      await flushSearches();
    },

    async search(q: ProductSearchQuery): Promise<Page> {
      const page = await service.find(q);
      const terms = q.q === undefined ? null : searchTerms(q.q);
      if (terms) record(terms.normalised, page.meta.total);
      return page;
    },

    /** The admin's top searches of a period: `period`, or `from` and `to` (UTC days, inclusive). */
    async topSearches(q: TopSearchesQuery): Promise<TopSearchesView> {
      let from: string;
      let to: string;
      if (q.from !== undefined || q.to !== undefined) {
        if (q.period !== undefined) throw validationError('query.period', 'give either period or from and to');
        if (q.from === undefined) throw validationError('query.from', 'must come with to');
        if (q.to === undefined) throw validationError('query.to', 'must come with from');
        if (q.from > q.to) throw validationError('query.to', 'must not be before from');
        ({ from, to } = q as { from: string; to: string });
      } else {
        const today = ctx.clock.now().getTime();
        to = utcDay(new Date(today));
        from = utcDay(new Date(today - (PERIOD_DAYS[q.period ?? 'week'] - 1) * DAY_MS));
      }
      await flushSearches();
      const { top, nothing } = await repo.topSearches(ctx.db, from, to, q.limit ?? 20);
      return { from, to, top, zeroResults: nothing };
    },

    find(q: ProductSearchQuery): Promise<Page> {
      const point = pointOf(q);
      const sort = q.sort ?? (q.q ? 'relevance' : point ? 'distance' : 'newest');
      if (sort === 'distance' && !point) throw validationError('query.sort', 'distance needs latitude and longitude');
      if (sort === 'relevance' && !q.q) throw validationError('query.sort', 'relevance needs q');
      if (q.minPrice !== undefined && q.maxPrice !== undefined && q.minPrice > q.maxPrice)
        throw validationError('query.maxPrice', 'must be at least minPrice');
      const dietaryTags = q.dietaryTags?.split(',');
      const unknown = dietaryTags?.find((tag) => !(DIETARY_TAGS as readonly string[]).includes(tag));
      if (unknown) throw validationError('query.dietaryTags', `${unknown} is not one of ${DIETARY_TAGS.join(', ')}`);
      assertListingPage(q, sort === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get(
        'products.search',
        q,
        async () => {
          const terms = q.q === undefined ? null : searchTerms(q.q);
          if (q.q !== undefined && !terms)
            return {
              items: JsonItems.none,
              meta: { page: q.page, limit: q.limit, total: 0, totalPages: 0, hasMore: false, totalIsEstimate: false },
            };
          return page(
            await repo.searchProducts(
              ctx.db,
              {
                ...q,
                terms,
                point,
                sort,
                dietaryTags: dietaryTags as DietaryTag[] | undefined,
                expiresBefore: q.expiresBefore ? new Date(q.expiresBefore) : undefined,
              },
              ctx.clock.now(),
              q,
              files,
            ),
          );
        },
        until,
      );
    },

    expiringSoon(q: ExpiringSoonQuery): Promise<Page> {
      const point = pointOf(q);
      assertListingPage(q);
      return ctx.listings.get(
        'products.expiring',
        q,
        async () => {
          const now = ctx.clock.now();
          const soon = new Date(now.getTime() + EXPIRING_SOON_HOURS * 3_600_000);
          return page(await repo.expiringSoon(ctx.db, now, soon, point, q, files));
        },
        until,
      );
    },

    /** By the stored popularity score, which the `products.trending` job keeps fresh. */
    trending(q: ExpiringSoonQuery): Promise<Page> {
      const point = pointOf(q);
      assertListingPage(q);
      return ctx.listings.get(
        'products.trending',
        q,
        async () => {
          return page(
            await repo.searchProducts(ctx.db, { terms: null, point, sort: 'popularity' }, ctx.clock.now(), q, files),
          );
        },
        until,
      );
    },
  };
  return service;
}
export type ProductSearchService = ReturnType<typeof createProductSearchService>;
