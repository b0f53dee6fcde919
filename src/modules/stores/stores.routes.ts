import type { App } from '../../http/types.js';
import { IdParamsSchema, MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import { OkListing, okListing, sendJsonListing, SUPPLIER_LISTINGS } from '../../listings/index.js';
import * as S from './stores.schemas.js';
import type { StoresService } from './stores.service.js';

// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const sup = { access: 'SUP' } as const;

export function storesRoutes(stores: StoresService) {
  return async (app: App) => {
    const tags = ['stores'];
    app.get(
      '/stores',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Search stores (text with typo tolerance, city, supplier, open now)',
          querystring: S.SearchStoresQuerySchema,
          response: { 200: OkListing(S.StoreSchema) },
        },
      },
      async (req) => {
        const r = await stores.search(req.query);
        return okListing(r.items, r.meta);
      },
    );

    app.get(
      '/stores/nearby',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Stores within radiusKm of a point, nearest first',
          querystring: S.NearbyQuerySchema,
          response: { 200: OkListing(S.NearbyStoreSchema) },
        },
      },
      async (req, reply) => {
        const r = await stores.nearby(req.query);
        return sendJsonListing(reply, r.items, r.meta);
      },
    );

    app.get(
      '/stores/:storeId',
      {
        config: pub,
        schema: { tags, summary: 'One store', params: S.StoreParamsSchema, response: { 200: Ok(S.StoreSchema) } },
      },
      async (req) => ok(await stores.getPublic(req.params.storeId)),
    );

    // Administrators review a supplier with its stores, whatever their state or the supplier's.
    app.get(
      '/admin/suppliers/:id/stores',
      {
        config: { access: 'ADM' },
        schema: {
          tags: ['admin: suppliers'],
          summary: "A supplier's stores in every state except deleted (newest first)",
          params: IdParamsSchema,
          querystring: S.OwnStoresQuerySchema,
          response: { 200: OkPage(S.StoreSchema) },
        },
      },
      async (req) => {
        const r = await stores.listOfSupplier(req.params.id, req.query);
        return okPage(r.items, r.meta);
      },
    );

    const own = ['supplier: stores'];
    app.get(
      '/supplier/stores',
      {
        config: sup,
        schema: {
          tags: own,
          summary: 'Own stores, in every state except deleted',
          querystring: S.OwnStoresQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.StoreSchema) },
        },
      },
      async (req) => {
        const r = await stores.listOwn(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/supplier/stores',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: own,
          summary: 'Create a store',
          body: S.CreateStoreBodySchema,
          errors: [404],
          response: { 201: Ok(S.StoreSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await stores.create(req.user, req.body))),
    );

    app.put(
      '/supplier/stores/:storeId',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: own,
          summary: 'Update a store (only the given fields)',
          params: S.StoreParamsSchema,
          body: S.UpdateStoreBodySchema,
          response: { 200: Ok(S.StoreSchema) },
        },
      },
      async (req) => ok(await stores.update(req.user, req.params.storeId, req.body)),
    );

    app.delete(
      '/supplier/stores/:storeId',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: own,
          summary: 'Delete a store (kept for the records; refused while work is in progress)',
          params: S.StoreParamsSchema,
          errors: [409],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await stores.remove(req.user, req.params.storeId)),
    );

    app.get(
      '/supplier/stores/:storeId/statistics',
      {
        config: sup,
        schema: {
          tags: own,
          summary: 'Store statistics (owner or manager)',
          params: S.StoreParamsSchema,
          response: { 200: Ok(S.StoreStatisticsSchema) },
        },
      },
      async (req) => ok(await stores.statistics(req.user, req.params.storeId)),
    );

    app.post(
      '/supplier/stores/:storeId/temporary-closure',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: own,
          summary: 'Set or clear a temporary closure (owner or manager)',
          params: S.StoreParamsSchema,
          body: S.ClosureBodySchema,
          response: { 200: Ok(S.StoreSchema) },
        },
      },
      async (req) => ok(await stores.setClosure(req.user, req.params.storeId, req.body)),
    );

    app.post(
      '/supplier/stores/:storeId/toggle-active',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: own,
          summary: 'Activate or deactivate a store',
          params: S.StoreParamsSchema,
          response: { 200: Ok(S.StoreSchema) },
        },
      },
      async (req) => ok(await stores.toggleActive(req.user, req.params.storeId)),
    );
  };
}
