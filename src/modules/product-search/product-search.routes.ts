import type { App } from '../../http/types.js';
import { OkListing, sendJsonListing } from '../../listings/index.js';
import { Ok, ok } from '../../shared/schemas.js';
import * as S from './product-search.schemas.js';
import type { ProductSearchService } from './product-search.service.js';

// Public reads of stock, prices and expiry: kept by clients a few seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'live' } as const;
const adm = { access: 'ADM' } as const;

export function productSearchRoutes(search: ProductSearchService) {
  return async (app: App) => {
    const tags = ['products'];
    app.get(
      '/products/search',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Search public products: words (typos, prefixes), filters, a point and radius, eight sorts',
          querystring: S.ProductSearchQuerySchema,
          response: { 200: OkListing(S.ProductCardSchema) },
        },
      },
      async (req, reply) => {
        const r = await search.search(req.query);
        return sendJsonListing(reply, r.items, r.meta);
      },
    );

    app.get(
      '/products/expiring-soon',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Public products expiring within 48 hours, soonest first, optionally near a point',
          querystring: S.ExpiringSoonQuerySchema,
          response: { 200: OkListing(S.ProductCardSchema) },
        },
      },
      async (req, reply) => {
        const r = await search.expiringSoon(req.query);
        return sendJsonListing(reply, r.items, r.meta);
      },
    );

    app.get(
      '/products/trending',
      {
        config: pub,
        schema: {
          tags,
          summary:
            'Public products by popularity score (recent sales, views and favourites, decaying), optionally near a point',
          querystring: S.ExpiringSoonQuerySchema,
          response: { 200: OkListing(S.ProductCardSchema) },
        },
      },
      async (req, reply) => {
        const r = await search.trending(req.query);
        return sendJsonListing(reply, r.items, r.meta);
      },
    );

    app.get(
      '/admin/analytics/top-searches',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary: 'Top product searches of a period, and the top searches that found nothing',
          querystring: S.TopSearchesQuerySchema,
          response: { 200: Ok(S.TopSearchesSchema) },
        },
      },
      async (req) => ok(await search.topSearches(req.query)),
    );
  };
}
