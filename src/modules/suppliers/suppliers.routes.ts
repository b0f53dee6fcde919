import type { App } from '../../http/types.js';
import { readUploads } from '../../http/uploads.js';
import { IdParamsSchema, Ok, ok } from '../../shared/schemas.js';
import { ChangePlanBodySchema, LimitsSchema } from '../subscriptions/index.js';
import { OkListing, okListing, sendJsonListing, SUPPLIER_LISTINGS } from '../../listings/index.js';
import * as S from './suppliers.schemas.js';
import type { SuppliersService } from './suppliers.service.js';

const tags = ['suppliers'];
// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const sup = { access: 'SUP' } as const;

export function suppliersRoutes(suppliers: SuppliersService) {
  return async (app: App) => {
    app.get(
      '/suppliers/search',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Search verified suppliers by words (typos tolerated), city, category, open now',
          querystring: S.SearchQuerySchema,
          response: { 200: OkListing(S.PublicSupplierSchema) },
        },
      },
      async (req) => {
        const r = await suppliers.search(req.query);
        return okListing(r.items, r.meta);
      },
    );

    app.get(
      '/suppliers/nearby',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Verified suppliers within a radius, nearest first',
          querystring: S.NearbyQuerySchema,
          response: { 200: OkListing(S.NearbySupplierSchema) },
        },
      },
      async (req, reply) => {
        const r = await suppliers.nearby(req.query);
        return sendJsonListing(reply, r.items, r.meta);
      },
    );

    app.post(
      '/suppliers/profile',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Create the supplier profile (submitted for verification)',
          body: S.CreateProfileBodySchema,
          errors: [409],
          response: { 201: Ok(S.OwnSupplierSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await suppliers.create(req.user, req.body))),
    );

    app.get(
      '/suppliers/profile',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Own profile, in any verification state',
          errors: [404],
          response: { 200: Ok(S.OwnSupplierSchema) },
        },
      },
      async (req) => ok(await suppliers.getOwn(req.user)),
    );

    app.put(
      '/suppliers/profile',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Change the profile (a rejected profile goes back to review)',
          body: S.UpdateProfileBodySchema,
          errors: [404],
          response: { 200: Ok(S.OwnSupplierSchema) },
        },
      },
      async (req) => ok(await suppliers.update(req.user, req.body)),
    );

    app.delete(
      '/suppliers/profile',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Delete the profile (refused while work is in progress)',
          errors: [404, 409],
          response: { 200: Ok(S.DeletedSchema) },
        },
      },
      async (req) => ok(await suppliers.remove(req.user)),
    );

    app.post(
      '/suppliers/profile/logo',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary:
            'Upload the logo: multipart/form-data with one image in the field "logo" (JPEG, PNG or WebP, at most 5 MB)',
          consumes: ['multipart/form-data'],
          form: S.LogoFormSchema,
          errors: [404],
          response: { 200: Ok(S.OwnSupplierSchema) },
        },
      },
      async (req) => ok(await suppliers.setLogo(req.user, await readUploads(req, { kind: 'logo', maxFiles: 1 }))),
    );

    app.delete(
      '/suppliers/profile/logo',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: { tags, summary: 'Remove the logo', errors: [404], response: { 200: Ok(S.OwnSupplierSchema) } },
      },
      async (req) => ok(await suppliers.removeLogo(req.user)),
    );

    app.get(
      '/suppliers/statistics',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Own verification, KYC, commission, plan usage and store counts',
          errors: [404],
          response: { 200: Ok(S.StatisticsSchema) },
        },
      },
      async (req) => ok(await suppliers.statistics(req.user)),
    );

    app.post(
      '/suppliers/subscription',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Switch to another subscription plan (free plans only for now)',
          body: ChangePlanBodySchema,
          errors: [404, 409],
          response: { 200: Ok(LimitsSchema) },
        },
      },
      async (req) => ok(await suppliers.changeSubscription(req.user, req.body.planCode)),
    );

    app.get(
      '/suppliers/can-create-products',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Whether the plan allows one more product',
          errors: [404],
          response: { 200: Ok(LimitsSchema) },
        },
      },
      async (req) => ok(await suppliers.canCreateProducts(req.user)),
    );

    app.get(
      '/suppliers/:id',
      {
        config: pub,
        schema: {
          tags,
          summary: 'One verified supplier',
          params: IdParamsSchema,
          response: { 200: Ok(S.PublicSupplierSchema) },
        },
      },
      async (req) => ok(await suppliers.getPublic(req.params.id)),
    );
  };
}
