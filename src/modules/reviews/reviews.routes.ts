import type { Authenticate } from '../../http/access.js';
import { bodyMayBeEmpty } from '../../http/optional-body.js';
import type { App } from '../../http/types.js';
import { readUploads } from '../../http/uploads.js';
import { IdParamsSchema, MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import { viewerOf } from '../products/index.js';
import type { ReviewsModerationService } from './reviews-moderation.service.js';
import * as S from './reviews.schemas.js';
import type { ReviewsService } from './reviews.service.js';

// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;
const adm = { access: 'ADM' } as const;
// Reviews change the ratings product and supplier lists show; marks, answers and pictures do not.
const RATINGS = ['products.', 'suppliers.'] as const;
/** Marks per address and minute: the anonymous once-a-day rule is per device, which a client names itself. */
export const HELPFUL_RATE_LIMIT = { max: 20, timeWindow: '1 minute' };
const DEVICE_ID = /^[A-Za-z0-9_-]{8,64}$/;

export function reviewsRoutes(
  reviews: ReviewsService,
  moderation: ReviewsModerationService,
  authenticate: Authenticate,
) {
  const viewer = viewerOf(authenticate);
  return async (app: App) => {
    const tags = ['reviews'];
    app.get(
      '/reviews/product/:productId',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Visible reviews of a product, with its rating summary in meta',
          params: S.ProductParamsSchema,
          querystring: S.ReviewListQuerySchema,
          errors: [404],
          response: { 200: S.ReviewListingSchema },
        },
      },
      async (req) => {
        const r = await reviews.listOfProduct(req.params.productId, req.query);
        return { success: true as const, data: r.items, meta: r.meta };
      },
    );

    app.get(
      '/reviews/supplier/:supplierId',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Visible reviews of a supplier (not of its products), with its rating summary in meta',
          params: S.SupplierParamsSchema,
          querystring: S.ReviewListQuerySchema,
          errors: [404],
          response: { 200: S.ReviewListingSchema },
        },
      },
      async (req) => {
        const r = await reviews.listOfSupplier(req.params.supplierId, req.query);
        return { success: true as const, data: r.items, meta: r.meta };
      },
    );

    app.post(
      '/reviews/:id/helpful',
      {
        config: { ...pub, rateLimit: HELPFUL_RATE_LIMIT },
        schema: {
          tags,
          summary:
            'Mark a review helpful: once per signed-in user, or once a day per anonymous device (header X-Device-Id) or address',
          params: IdParamsSchema,
          errors: [403, 404],
          response: { 200: Ok(S.HelpfulSchema) },
        },
      },
      async (req) =>
        ok(
          await reviews.markHelpful(
            {
              userId: await viewer(req),
              deviceId: DEVICE_ID.exec(String(req.headers['x-device-id'] ?? ''))?.[0] ?? null,
              ip: req.ip,
            },
            req.params.id,
          ),
        ),
    );

    app.post(
      '/reviews',
      {
        config: { ...auth, listings: RATINGS },
        schema: {
          tags,
          summary:
            'Review a product or a supplier (a client with a completed order of it, unless the feature flag says otherwise); pictures go to POST /reviews/:id/images',
          body: S.CreateReviewBodySchema,
          errors: [403, 404, 409],
          response: { 201: Ok(S.OwnReviewSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await reviews.create(req.user, req.body))),
    );

    app.get(
      '/reviews/my',
      {
        config: auth,
        schema: {
          tags,
          summary: "The caller's reviews, newest first, hidden ones included",
          querystring: S.MyReviewsQuerySchema,
          response: { 200: OkPage(S.OwnReviewSchema) },
        },
      },
      async (req) => {
        const r = await reviews.mine(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.put(
      '/reviews/:id',
      {
        config: { ...auth, listings: RATINGS },
        schema: {
          tags,
          summary: "Edit one's review (rating, title, comment; null removes a text)",
          params: IdParamsSchema,
          body: S.UpdateReviewBodySchema,
          errors: [403, 404],
          response: { 200: Ok(S.OwnReviewSchema) },
        },
      },
      async (req) => ok(await reviews.update(req.user, req.params.id, req.body)),
    );

    app.delete(
      '/reviews/:id',
      {
        config: { ...auth, listings: RATINGS },
        schema: {
          tags,
          summary: "Delete one's review",
          params: IdParamsSchema,
          errors: [403, 404],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await reviews.remove(req.user, req.params.id)),
    );

    app.post(
      '/reviews/:id/report',
      {
        config: { ...auth, listings: RATINGS },
        schema: {
          tags,
          summary: `Report a review, once per user; ${3} different reporters hide it until an administrator decides`,
          params: IdParamsSchema,
          body: S.ReportBodySchema,
          errors: [403, 404, 409],
          response: { 200: Ok(S.ReportResultSchema) },
        },
      },
      async (req) => ok(await reviews.report(req.user, req.params.id, req.body)),
    );

    app.post(
      '/reviews/:id/reply',
      {
        config: sup,
        schema: {
          tags,
          summary: 'The supplier the review is about answers it, once',
          params: IdParamsSchema,
          body: S.ReplyBodySchema,
          errors: [403, 404, 409],
          response: { 200: Ok(S.OwnReviewSchema) },
        },
      },
      async (req) => ok(await reviews.reply(req.user, req.params.id, req.body.reply)),
    );

    app.post(
      '/reviews/:id/images',
      {
        config: auth,
        schema: {
          tags,
          summary: `Add pictures to one's review: multipart/form-data, files in the field "images" (JPEG, PNG or WebP; at most ${S.MAX_REVIEW_IMAGES} per review)`,
          consumes: ['multipart/form-data'],
          form: S.ImagesFormSchema,
          params: IdParamsSchema,
          errors: [403, 404, 415, 422],
          response: { 200: Ok(S.OwnReviewSchema) },
        },
      },
      async (req) =>
        ok(
          await reviews.addImages(
            req.user,
            req.params.id,
            await readUploads(req, { kind: 'review', maxFiles: S.MAX_REVIEW_IMAGES, tooManyCode: 'TOO_MANY_IMAGES' }),
          ),
        ),
    );

    app.delete(
      '/reviews/:id/images',
      {
        config: auth,
        schema: {
          tags,
          summary: "Delete one picture of one's review (its id in imageId)",
          params: IdParamsSchema,
          querystring: S.DeleteImageQuerySchema,
          errors: [403, 404],
          response: { 200: Ok(S.OwnReviewSchema) },
        },
      },
      async (req) => ok(await reviews.removeImage(req.user, req.params.id, req.query.imageId)),
    );

    const atags = ['admin: reviews'];
    app.get(
      '/admin/reviews/reported',
      {
        config: adm,
        schema: {
          tags: atags,
          summary: 'Reviews with open reports (hidden at three), most reported first, with the reports',
          querystring: S.ReportedQuerySchema,
          response: { 200: OkPage(S.ReportedReviewSchema) },
        },
      },
      async (req) => {
        const r = await moderation.reported(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.patch(
      '/admin/reviews/:id/clear-report',
      {
        config: { ...adm, listings: RATINGS },
        preValidation: bodyMayBeEmpty,
        schema: {
          tags: atags,
          summary: "Close a review's reports: it is visible again (audited)",
          params: IdParamsSchema,
          body: S.ClearBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.OwnReviewSchema) },
        },
      },
      async (req) => ok(await moderation.clear(req.user, req.params.id, req.body.reason)),
    );

    app.delete(
      '/admin/reviews/:id',
      {
        config: { ...adm, listings: RATINGS },
        schema: {
          tags: atags,
          summary: 'Delete a review, with an optional reason for the audit; the rating summary follows',
          params: IdParamsSchema,
          querystring: S.AdminDeleteQuerySchema,
          errors: [404],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await moderation.remove(req.user, req.params.id, req.query.reason)),
    );
  };
}
