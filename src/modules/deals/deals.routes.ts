import { Type } from 'typebox';
import type { Authenticate } from '../../http/access.js';
import { transactionalKey } from '../../http/idempotency.js';
import type { App } from '../../http/types.js';
import { viewerOf } from '../products/index.js';
import { readUploads } from '../../http/uploads.js';
import { OkListing, okListing, SUPPLIER_LISTINGS } from '../../listings/index.js';
import { MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import type { BookingsService } from './bookings.service.js';
import type { DealsSearchService } from './deals-search.service.js';
import * as S from './deals.schemas.js';
import type { DealsService } from './deals.service.js';

// Public reads of stock, prices and expiry: kept by clients a few seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'live' } as const;
// The deal page answers a booking holder what it answers nobody else: private when a token is sent.
const page = { ...pub, perViewer: true } as const;
const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;
const adm = { access: 'ADM' } as const;
const Png = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

export function dealsRoutes(
  deals: DealsService,
  bookings: BookingsService,
  search: DealsSearchService,
  authenticate: Authenticate,
) {
  const viewer = viewerOf(authenticate);
  return async (app: App) => {
    const tags = ['deals'];
    app.get(
      '/deals',
      {
        config: pub,
        schema: {
          tags,
          summary:
            'Search public deals: words (typos, prefixes), category, kind, price, open now, a point and radius; sorted by relevance, distance, price or ending soon',
          querystring: S.DealSearchQuerySchema,
          response: { 200: OkListing(S.DealCardSchema) },
        },
      },
      async (req) => {
        const r = await search.search(req.query);
        return okListing(r.items, r.meta);
      },
    );

    app.get(
      '/deals/bookings/my-bookings',
      {
        config: auth,
        schema: {
          tags,
          summary: "The caller's bookings, newest first",
          querystring: S.MyBookingsQuerySchema,
          response: { 200: OkPage(S.BookingSchema) },
        },
      },
      async (req) => {
        const r = await bookings.listMine(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/deals/bookings/:bookingId/cancel',
      {
        config: { ...auth, listings: ['deals.'] },
        schema: {
          tags,
          summary:
            'Cancel an own booking until its pickup window starts (its places come back; paid in the app, it is refunded)',
          params: S.BookingParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.BookingSchema) },
        },
      },
      async (req) => ok(await bookings.cancel(req.user, req.params.bookingId)),
    );

    app.get(
      '/deals/bookings/:bookingId/qr-code',
      {
        config: auth,
        schema: {
          tags,
          summary: 'QR code (PNG) of an own booking: a signed token the store scans once',
          params: S.BookingParamsSchema,
          errors: [404],
          response: { 200: { description: 'PNG image', content: { 'image/png': { schema: Png } } } },
        },
      },
      async (req, reply) => reply.type('image/png').send(await bookings.qr(req.user, req.params.bookingId)),
    );

    app.get(
      '/deals/:dealId',
      {
        config: page,
        schema: {
          tags,
          summary:
            'A public deal with its store (sold-out deals included); with the token of a client holding a booking of it, also once paused or expired',
          params: S.DealParamsSchema,
          response: { 200: Ok(S.DealDetailSchema) },
        },
      },
      async (req) => ok(await deals.getPublic(req.params.dealId, await viewer(req))),
    );

    app.post(
      '/deals/:dealId/book',
      {
        config: { ...auth, listings: ['deals.'], idempotency: 'in-transaction' },
        schema: {
          tags,
          summary:
            'Book places of a deal; answers the booking with its short code. A deal paid IN_APP takes paymentMethod: pay at payment.redirectUrl before paymentDeadline (Idempotency-Key honoured)',
          params: S.DealParamsSchema,
          body: S.BookBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.BookingSchema) },
        },
      },
      async (req, reply) =>
        reply
          .code(201)
          .send(ok(await bookings.book(req.user, req.params.dealId, req.body, transactionalKey(req, reply)))),
    );

    app.get(
      '/supplier/deals',
      {
        config: sup,
        schema: {
          tags,
          summary: "Deals of the caller's stores (owned, or managed as staff), newest first",
          querystring: S.OwnDealsQuerySchema,
          response: { 200: OkPage(S.DealSchema) },
        },
      },
      async (req) => {
        const r = await deals.listOwn(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/supplier/deals',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Create a deal in an active store (PENDING_REVIEW, or ACTIVE with auto-approval)',
          body: S.CreateDealBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.DealSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await deals.create(req.user, req.body))),
    );

    app.get(
      '/supplier/deals/bookings',
      {
        config: sup,
        schema: {
          tags,
          summary: "Bookings of the caller's stores (owned, or validated for as staff), newest first",
          querystring: S.StoreBookingsQuerySchema,
          response: { 200: OkPage(S.BookingSchema) },
        },
      },
      async (req) => {
        const r = await bookings.listForStores(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/supplier/deals/bookings/validate',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary:
            'Validate a booking at the counter by its QR token or short code: once only (paid in the app, its money goes to the shop)',
          body: S.ValidateBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.BookingSchema) },
        },
      },
      async (req) => ok(await bookings.validate(req.user, req.body)),
    );

    app.put(
      '/supplier/deals/:dealId',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Update a deal (back to review unless auto-approval applies)',
          params: S.DealParamsSchema,
          body: S.UpdateDealBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) => ok(await deals.update(req.user, req.params.dealId, req.body)),
    );

    app.post(
      '/supplier/deals/:dealId/toggle-pause',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Pause an ACTIVE deal or resume a PAUSED one',
          params: S.DealParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) => ok(await deals.togglePause(req.user, req.params.dealId)),
    );

    app.delete(
      '/supplier/deals/:dealId',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Delete a deal (refused while bookings are to be collected)',
          params: S.DealParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await deals.remove(req.user, req.params.dealId)),
    );

    app.post(
      '/supplier/deals/:dealId/images',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: `Add pictures: multipart/form-data, files in the field "images" (JPEG, PNG or WebP; at most ${S.MAX_DEAL_IMAGES} per deal)`,
          consumes: ['multipart/form-data'],
          form: S.ImagesFormSchema,
          params: S.DealParamsSchema,
          errors: [404, 415, 422],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) =>
        ok(
          await deals.addImages(
            req.user,
            req.params.dealId,
            await readUploads(req, { kind: 'deal', maxFiles: S.MAX_DEAL_IMAGES, tooManyCode: 'TOO_MANY_IMAGES' }),
          ),
        ),
    );

    app.delete(
      '/supplier/deals/:dealId/images',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Delete one picture (its id in imageId)',
          params: S.DealParamsSchema,
          querystring: S.DeleteImageQuerySchema,
          errors: [404],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) => ok(await deals.removeImage(req.user, req.params.dealId, req.query.imageId)),
    );

    const atags = ['admin: deals'];
    app.get(
      '/admin/deals/pending',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Deals waiting for review, oldest first',
          querystring: S.PendingDealsQuerySchema,
          response: { 200: OkPage(S.DealSchema) },
        },
      },
      async (req) => {
        const r = await deals.pending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/admin/deals/:dealId/approve',
      {
        config: { ...adm, listings: ['deals.'] },
        schema: {
          tags: atags,
          summary: 'Approve a deal waiting for review (it becomes ACTIVE); the supplier is told',
          params: S.DealParamsSchema,
          errors: [404, 409],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) => ok(await deals.approve(req.user, req.params.dealId)),
    );

    app.post(
      '/admin/deals/:dealId/reject',
      {
        config: { ...adm, listings: ['deals.'] },
        schema: {
          tags: atags,
          summary: 'Reject a deal waiting for review, with the reason the supplier sees',
          params: S.DealParamsSchema,
          body: S.RejectDealBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.DealSchema) },
        },
      },
      async (req) => ok(await deals.reject(req.user, req.params.dealId, req.body.reason)),
    );
  };
}
