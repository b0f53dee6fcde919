import type { FastifyRequest } from 'fastify';
import type { Authenticate } from '../../http/access.js';
import type { App } from '../../http/types.js';
import { readUploads } from '../../http/uploads.js';
import { sendJsonData } from '../../listings/index.js';
import { MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import { MAX_PRODUCT_IMAGES } from './product-catalog.js';
import type { ProductsAdminService } from './products-admin.service.js';
import * as S from './products.schemas.js';
import type { ProductsService } from './products.service.js';

// The product page: public stock and price, and the caller's favourite flag when a token is sent.
const pub = { access: 'Public', cache: 'live', perViewer: true } as const;
const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;
const adm = { access: 'ADM' } as const;

/**
 * The signed-in caller of a public route, or null. A missing, expired or revoked token reads as
 * anonymous: the page is public, only the favourite flag depends on who asks.
 */
export const viewerOf =
  (authenticate: Authenticate) =>
  async (req: FastifyRequest): Promise<string | null> => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1]) return null;
    return authenticate(match[1]).then(
      (u) => u.id,
      () => null,
    );
  };

export function productsRoutes(products: ProductsService, admin: ProductsAdminService, authenticate: Authenticate) {
  const viewer = viewerOf(authenticate);
  return async (app: App) => {
    const tags = ['products'];
    app.get(
      '/products/my-products',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Own products in every state, with sales figures',
          querystring: S.OwnProductsQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.ProductSchema) },
        },
      },
      async (req) => {
        const r = await products.listOwn(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/products/favorites',
      {
        config: auth,
        schema: {
          tags,
          summary: "The caller's favourite products, newest first",
          querystring: S.FavoritesQuerySchema,
          response: { 200: OkPage(S.FavoriteProductSchema) },
        },
      },
      async (req) => {
        const r = await products.listFavorites(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/products/:id',
      {
        config: pub,
        schema: {
          tags,
          summary: 'A public product with its supplier, store, pictures, rating and latest reviews',
          params: S.ProductParamsSchema,
          response: { 200: Ok(S.ProductDetailSchema) },
        },
      },
      async (req, reply) => sendJsonData(reply, await products.getPublic(req.params.id, await viewer(req))),
    );

    app.post(
      '/products',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: 'Create a product (PENDING_REVIEW, or ACTIVE with auto-approval); limited by the plan',
          body: S.CreateProductBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.ProductSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await products.create(req.user, req.body))),
    );

    app.put(
      '/products/:id',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: 'Update a product (the owner, or store staff allowed to manage products)',
          params: S.ProductParamsSchema,
          body: S.UpdateProductBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await products.update(req.user, req.params.id, req.body)),
    );

    app.delete(
      '/products/:id',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: 'Delete a product for good (refused while orders on it are in progress)',
          params: S.ProductParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await products.remove(req.user, req.params.id)),
    );

    app.patch(
      '/products/:id/stock',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: 'Set ({quantity}) or correct ({delta}) the available stock; never below zero',
          params: S.ProductParamsSchema,
          body: S.StockBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await products.changeStock(req.user, req.params.id, req.body)),
    );

    app.post(
      '/products/:id/images',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: `Add pictures: multipart/form-data, files in the field "images" (JPEG, PNG or WebP; at most ${MAX_PRODUCT_IMAGES} per product)`,
          consumes: ['multipart/form-data'],
          form: S.ImagesFormSchema,
          params: S.ProductParamsSchema,
          errors: [404, 415, 422],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) =>
        ok(
          await products.addImages(
            req.user,
            req.params.id,
            await readUploads(req, { kind: 'product', maxFiles: MAX_PRODUCT_IMAGES, tooManyCode: 'TOO_MANY_IMAGES' }),
          ),
        ),
    );

    app.delete(
      '/products/:id/images',
      {
        config: { ...sup, listings: ['products.'] },
        schema: {
          tags,
          summary: 'Delete one picture (its id in imageId)',
          params: S.ProductParamsSchema,
          querystring: S.DeleteImageQuerySchema,
          errors: [404],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await products.removeImage(req.user, req.params.id, req.query.imageId)),
    );

    app.post(
      '/products/:id/favorite',
      {
        config: { ...auth, listings: ['products.'] },
        schema: {
          tags,
          summary: "Add a public product to the caller's favourites (idempotent)",
          params: S.ProductParamsSchema,
          errors: [404],
          response: { 200: Ok(S.FavoriteStateSchema) },
        },
      },
      async (req) => ok(await products.addFavorite(req.user, req.params.id)),
    );

    app.delete(
      '/products/:id/favorite',
      {
        config: { ...auth, listings: ['products.'] },
        schema: {
          tags,
          summary: "Remove a product from the caller's favourites (idempotent)",
          params: S.ProductParamsSchema,
          response: { 200: Ok(S.FavoriteStateSchema) },
        },
      },
      async (req) => ok(await products.removeFavorite(req.user, req.params.id)),
    );

    app.post(
      '/stores/:storeId/follow',
      {
        config: { ...auth, listings: ['stores.', 'products.', 'deals.'] },
        schema: {
          tags: ['stores'],
          summary: 'Follow a public store: hear when it publishes a product (idempotent)',
          params: S.FollowParamsSchema,
          errors: [404],
          response: { 200: Ok(S.FollowStateSchema) },
        },
      },
      async (req) => ok(await products.follow(req.user, req.params.storeId)),
    );

    app.delete(
      '/stores/:storeId/follow',
      {
        config: { ...auth, listings: ['stores.', 'products.', 'deals.'] },
        schema: {
          tags: ['stores'],
          summary: 'Stop following a store (idempotent)',
          params: S.FollowParamsSchema,
          response: { 200: Ok(S.FollowStateSchema) },
        },
      },
      async (req) => ok(await products.unfollow(req.user, req.params.storeId)),
    );

    const atags = ['admin: products'];
    app.get(
      '/admin/products',
      {
        config: adm,
        schema: {
          tags: atags,
          summary:
            'Products in every state, filtered by status, supplier, store, category or words, newest first unless sorted',
          querystring: S.AdminProductsQuerySchema,
          response: { 200: OkPage(S.AdminProductSchema) },
        },
      },
      async (req) => {
        const r = await admin.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/products/moderation',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Products waiting for review, oldest first',
          querystring: S.ModerationQuerySchema,
          response: { 200: OkPage(S.AdminProductSchema) },
        },
      },
      async (req) => {
        const r = await admin.moderationQueue(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.patch(
      '/admin/products/:id/approve',
      {
        config: { ...adm, listings: ['products.'] },
        schema: {
          tags: atags,
          summary: 'Approve a product waiting for review (it becomes ACTIVE)',
          params: S.ProductParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await admin.approve(req.user, req.params.id)),
    );

    app.patch(
      '/admin/products/:id/reject',
      {
        config: { ...adm, listings: ['products.'] },
        schema: {
          tags: atags,
          summary: 'Reject a product waiting for review, with the reason the supplier sees',
          params: S.ProductParamsSchema,
          body: S.RejectBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await admin.reject(req.user, req.params.id, req.body.reason)),
    );

    app.patch(
      '/admin/products/:id/status',
      {
        config: { ...adm, listings: ['products.'] },
        schema: {
          tags: atags,
          summary: 'Deactivate an ACTIVE product or reactivate an INACTIVE one',
          params: S.ProductParamsSchema,
          body: S.AdminStatusBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.ProductSchema) },
        },
      },
      async (req) => ok(await admin.setStatus(req.user, req.params.id, req.body)),
    );

    app.delete(
      '/admin/products/:id',
      {
        config: { ...adm, listings: ['products.'] },
        schema: {
          tags: atags,
          summary:
            'Delete a product, with an optional reason for the audit (refused while orders on it are in progress)',
          params: S.ProductParamsSchema,
          querystring: S.AdminDeleteQuerySchema,
          errors: [404, 409],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await admin.remove(req.user, req.params.id, req.query.reason)),
    );

    app.post(
      '/admin/products/bulk-approve',
      {
        config: { ...adm, listings: ['products.'] },
        schema: {
          tags: atags,
          summary: 'Approve up to 100 products waiting for review: all or none',
          body: S.BulkApproveBodySchema,
          errors: [409],
          response: { 200: Ok(S.BulkApproveResultSchema) },
        },
      },
      async (req) => ok(await admin.bulkApprove(req.user, req.body)),
    );
  };
}
