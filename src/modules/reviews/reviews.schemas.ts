import { Type, type Static } from 'typebox';
import { REPORT_REASONS, REVIEW_TARGETS } from '../../db/schema/reviews.js';
import { ListingMetaSchema } from '../../listings/index.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { RatingDetailSchema } from '../products/index.js';

const opt = Type.Optional;
export const TITLE_MAX = 120;
export const COMMENT_MAX = 2000;
export const REPLY_MAX = 1000;
/** Pictures a review may carry. */
export const MAX_REVIEW_IMAGES = 3;
export const REVIEW_SORTS = ['newest', 'highest', 'lowest', 'helpful'] as const;
export type ReviewSort = (typeof REVIEW_SORTS)[number];

const Rating = Type.Integer({ minimum: 1, maximum: 5, description: 'stars, 1 to 5' });
// Plain text: trimmed by the validator, control characters refused (the service checks), bounded.
const PLAIN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';
const plain = (maxLength: number) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: PLAIN,
    description: `plain text, at most ${maxLength} characters (no control characters; never interpreted as HTML)`,
  });
const Title = plain(TITLE_MAX);
const Comment = plain(COMMENT_MAX);

export const CreateReviewBodySchema = Type.Object(
  {
    productId: opt(IdSchema),
    supplierId: opt(IdSchema),
    rating: Rating,
    title: opt(Title),
    comment: opt(Comment),
  },
  { additionalProperties: false, description: 'exactly one of productId and supplierId' },
);
export type CreateReviewBody = Static<typeof CreateReviewBodySchema>;

export const UpdateReviewBodySchema = Type.Object(
  {
    rating: opt(Rating),
    title: opt(Nullable(Title)),
    comment: opt(Nullable(Comment)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateReviewBody = Static<typeof UpdateReviewBodySchema>;

export const ReplyBodySchema = Type.Object({ reply: plain(REPLY_MAX) }, { additionalProperties: false });
export const ReportBodySchema = Type.Object(
  { reason: StringEnum(REPORT_REASONS), comment: opt(plain(500)) },
  { additionalProperties: false },
);
export type ReportBody = Static<typeof ReportBodySchema>;

export const ReviewListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    sort: opt(
      StringEnum(REVIEW_SORTS, { description: 'newest (default), highest or lowest rating first, most helpful first' }),
    ),
    rating: opt(Type.Integer({ minimum: 1, maximum: 5, description: 'only reviews with this many stars' })),
  },
  { additionalProperties: false },
);
export type ReviewListQuery = Static<typeof ReviewListQuerySchema>;
export const MyReviewsQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export const ReportedQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export const AdminDeleteQuerySchema = Type.Object(
  { reason: opt(Type.String({ minLength: 1, maxLength: 500 })) },
  { additionalProperties: false },
);
export const ClearBodySchema = Type.Object(
  { reason: opt(Type.String({ minLength: 1, maxLength: 500 })) },
  { additionalProperties: false },
);
export const ProductParamsSchema = Type.Object({ productId: IdSchema }, { additionalProperties: false });
export const SupplierParamsSchema = Type.Object({ supplierId: IdSchema }, { additionalProperties: false });
export const DeleteImageQuerySchema = Type.Object({ imageId: IdSchema }, { additionalProperties: false });
export const ImagesFormSchema = Type.Object(
  {
    images: Type.Array(Type.String({ format: 'binary' }), {
      minItems: 1,
      maxItems: MAX_REVIEW_IMAGES,
      description: 'JPEG, PNG or WebP, at most 5 MB each',
    }),
  },
  { title: 'ReviewImagesForm' },
);

export const ReviewImageSchema = Type.Object(
  { id: IdSchema, position: Type.Integer(), thumbnailUrl: Type.String(), largeUrl: Type.String() },
  { title: 'ReviewImage' },
);

export const ReviewSchema = Type.Object(
  {
    id: IdSchema,
    targetType: StringEnum(REVIEW_TARGETS),
    productId: Nullable(IdSchema),
    supplierId: IdSchema,
    authorName: Type.String({ description: 'first name and initial' }),
    rating: Type.Integer(),
    title: Nullable(Type.String()),
    comment: Nullable(Type.String()),
    images: Type.Array(ReviewImageSchema),
    helpfulCount: Type.Integer(),
    reply: Nullable(Type.Object({ text: Type.String(), repliedAt: TimestampSchema }, { title: 'ReviewReply' })),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'Review' },
);
export type ReviewView = Static<typeof ReviewSchema>;

/** The author's own view: also whether the review is hidden by reports. */
export const OwnReviewSchema = Type.Object(
  {
    ...ReviewSchema.properties,
    hidden: Type.Boolean({ description: 'hidden from the public until an administrator decides on its reports' }),
  },
  { title: 'OwnReview' },
);
export type OwnReviewView = Static<typeof OwnReviewSchema>;

export const ReviewListingSchema = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(ReviewSchema),
    meta: Type.Object(
      { ...ListingMetaSchema.properties, rating: RatingDetailSchema },
      { title: 'ReviewListingMeta', description: 'the page, and the rating summary of the product or supplier' },
    ),
  },
  { title: 'ReviewListing' },
);

export const HelpfulSchema = Type.Object(
  {
    reviewId: IdSchema,
    helpfulCount: Type.Integer(),
    counted: Type.Boolean({ description: 'false when this user (or device, today) had already marked it' }),
  },
  { title: 'ReviewHelpful' },
);
export const ReportResultSchema = Type.Object(
  { reviewId: IdSchema, reason: StringEnum(REPORT_REASONS), createdAt: TimestampSchema },
  { title: 'ReviewReportReceipt' },
);

export const ReportSchema = Type.Object(
  {
    id: IdSchema,
    reporterId: IdSchema,
    reason: StringEnum(REPORT_REASONS),
    comment: Nullable(Type.String()),
    createdAt: TimestampSchema,
  },
  { title: 'ReviewReport' },
);
export const ReportedReviewSchema = Type.Object(
  { ...OwnReviewSchema.properties, authorId: IdSchema, openReports: Type.Integer(), reports: Type.Array(ReportSchema) },
  { title: 'ReportedReview' },
);
export type ReportedReviewView = Static<typeof ReportedReviewSchema>;
