import { Type, type Static } from 'typebox';
import { PRODUCT_STATUSES } from '../../db/schema/products.js';
import { VERIFICATION_STATUSES } from '../suppliers/index.js';
import {
  IdSchema,
  Nullable,
  PageQuerySchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { StoreSchema } from '../stores/index.js';
import { ALLERGENS, DIETARY_TAGS, MAX_PRODUCT_IMAGES, PRODUCT_CATEGORIES } from './product-catalog.js';
import { ADMIN_SETTABLE_STATUSES } from './product-status.js';

export const ProductParamsSchema = Type.Object({ id: IdSchema }, { additionalProperties: false });
export const FollowParamsSchema = Type.Object({ storeId: IdSchema }, { additionalProperties: false });

const Category = StringEnum(PRODUCT_CATEGORIES, {
  description: 'BAKERY, PREPARED_MEALS, FRUITS_VEGETABLES, DAIRY, MEAT_FISH, GROCERIES, DRINKS, OTHER',
});
const Status = StringEnum(PRODUCT_STATUSES);
const DietaryTags = Type.Array(StringEnum(DIETARY_TAGS), { maxItems: DIETARY_TAGS.length, uniqueItems: true });
const Allergens = Type.Array(StringEnum(ALLERGENS), { maxItems: ALLERGENS.length, uniqueItems: true });
const Price = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'whole XOF' });
const LocalTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$',
  description: 'HH:MM, local time of the store',
});

export const ImageSchema = Type.Object(
  { id: IdSchema, position: Type.Integer(), thumbnailUrl: Type.String(), largeUrl: Type.String() },
  { title: 'ProductImage' },
);
export type ImageView = Static<typeof ImageSchema>;

const productFields = {
  id: IdSchema,
  supplierId: IdSchema,
  storeId: IdSchema,
  name: Type.String(),
  description: Type.String(),
  category: Category,
  originalPrice: Type.Integer(),
  discountedPrice: Type.Integer(),
  discountPercent: Type.Integer({ description: 'derived: (original - discounted) * 100 / original, rounded down' }),
  currency: Type.String(),
  quantity: Type.Integer({ description: 'available stock' }),
  unitWeightGrams: Type.Integer(),
  expiresAt: TimestampSchema,
  pickupStart: Type.String(),
  pickupEnd: Type.String(),
  dietaryTags: Type.Array(Type.String()),
  allergens: Type.Array(Type.String()),
  images: Type.Array(ImageSchema),
  viewsCount: Type.Integer(),
  favoritesCount: Type.Integer(),
  salesCount: Type.Integer(),
  popularityScore: Type.Number(),
  rating: Type.Object({ average: Type.Number(), count: Type.Integer() }, { title: 'RatingSummary' }),
  publishedAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
};

/** A product as its supplier and administrators see it, in any state. */
export const ProductSchema = Type.Object(
  {
    ...productFields,
    status: Status,
    rejectionReason: Nullable(Type.String()),
    sales: Type.Object(
      { unitsSold: Type.Integer(), orders: Type.Integer(), revenue: Type.Integer({ description: 'XOF' }) },
      { title: 'ProductSales', description: 'filled by orders; zero until then' },
    ),
  },
  { title: 'Product' },
);
export type ProductView = Static<typeof ProductSchema>;

export const SupplierSummarySchema = Type.Object(
  {
    id: IdSchema,
    businessName: Type.String(),
    city: Type.String(),
    logoUrl: Nullable(Type.String()),
    verified: Type.Boolean(),
  },
  { title: 'ProductSupplier' },
);

export const ReviewSummarySchema = Type.Object(
  {
    id: IdSchema,
    rating: Type.Integer(),
    comment: Nullable(Type.String()),
    authorName: Type.String(),
    createdAt: TimestampSchema,
  },
  { title: 'ProductReview' },
);

const stars = Type.Integer({ minimum: 0 });
/** A rating summary with how many reviews gave each number of stars (product and review pages). */
export const RatingDetailSchema = Type.Object(
  {
    average: Type.Number({ description: 'mean of the visible reviews, two decimals; 0 without reviews' }),
    count: Type.Integer(),
    distribution: Type.Object(
      { '1': stars, '2': stars, '3': stars, '4': stars, '5': stars },
      { description: 'reviews per number of stars' },
    ),
  },
  { title: 'RatingDetail' },
);
export type RatingDetail = Static<typeof RatingDetailSchema>;

/** The public page of a product. */
export const ProductDetailSchema = Type.Object(
  {
    ...productFields,
    rating: RatingDetailSchema,
    supplier: SupplierSummarySchema,
    store: StoreSchema,
    latestReviews: Type.Array(ReviewSummarySchema, {
      description: 'the latest visible reviews of the product, newest first (at most 3)',
    }),
    isFavorite: Type.Boolean({ description: 'false when not signed in' }),
  },
  { title: 'ProductDetail' },
);
export type ProductDetailView = Static<typeof ProductDetailSchema>;

/** What every product card shows (favourites here, the public lists of product search). */
export const productCardFields = {
  id: IdSchema,
  name: Type.String(),
  thumbnailUrl: Nullable(Type.String()),
  originalPrice: Type.Integer(),
  discountedPrice: Type.Integer(),
  discountPercent: Type.Integer(),
  currency: Type.String(),
  expiresAt: TimestampSchema,
  storeId: IdSchema,
  storeName: Type.String(),
};

export const FavoriteProductSchema = Type.Object(
  {
    ...productCardFields,
    available: Type.Boolean({ description: 'the public can see and order it now' }),
    favoritedAt: TimestampSchema,
  },
  { title: 'FavoriteProduct' },
);
export type FavoriteProductView = Static<typeof FavoriteProductSchema>;

export const FavoriteStateSchema = Type.Object(
  { productId: IdSchema, isFavorite: Type.Boolean() },
  { title: 'FavoriteState' },
);
export const FollowStateSchema = Type.Object(
  { storeId: IdSchema, following: Type.Boolean() },
  { title: 'FollowState' },
);

const writable = {
  storeId: IdSchema,
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.String({ maxLength: 2000 }),
  category: Category,
  originalPrice: Price,
  discountedPrice: Price,
  quantity: Type.Integer({ minimum: 0, maximum: 100_000 }),
  unitWeightGrams: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    description: 'default: a typical unit of the category',
  }),
  expiresAt: Type.String({ format: 'date-time', description: 'must be in the future' }),
  pickupStart: LocalTime,
  pickupEnd: LocalTime,
  dietaryTags: DietaryTags,
  allergens: Allergens,
};

export const CreateProductBodySchema = Type.Object(
  {
    ...writable,
    description: Type.Optional(writable.description),
    unitWeightGrams: Type.Optional(writable.unitWeightGrams),
    dietaryTags: Type.Optional(DietaryTags),
    allergens: Type.Optional(Allergens),
  },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBodySchema>;

const opt = Type.Optional;
export const UpdateProductBodySchema = Type.Object(
  {
    storeId: opt(writable.storeId),
    name: opt(writable.name),
    description: opt(writable.description),
    category: opt(writable.category),
    originalPrice: opt(writable.originalPrice),
    discountedPrice: opt(writable.discountedPrice),
    quantity: opt(writable.quantity),
    unitWeightGrams: opt(writable.unitWeightGrams),
    expiresAt: opt(writable.expiresAt),
    pickupStart: opt(writable.pickupStart),
    pickupEnd: opt(writable.pickupEnd),
    dietaryTags: opt(writable.dietaryTags),
    allergens: opt(writable.allergens),
    status: opt(
      StringEnum(ADMIN_SETTABLE_STATUSES, {
        description: 'INACTIVE takes an ACTIVE product off the shelves; ACTIVE puts an INACTIVE one back',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Only the given fields change. Changing the store, name, description, category, dietary tags or allergens sends an approved product back to review.',
  },
);
export type UpdateProductBody = Static<typeof UpdateProductBodySchema>;

export const StockBodySchema = Type.Union(
  [
    Type.Object({ quantity: Type.Integer({ minimum: 0, maximum: 100_000 }) }, { additionalProperties: false }),
    Type.Object({ delta: Type.Integer({ minimum: -100_000, maximum: 100_000 }) }, { additionalProperties: false }),
  ],
  { description: '{quantity} sets the stock; {delta} adds to it (negative removes); the stock never goes below zero' },
);
export type StockBody = Static<typeof StockBodySchema>;

export const ImagesFormSchema = Type.Object({
  images: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    maxItems: MAX_PRODUCT_IMAGES,
    description: 'JPEG, PNG or WebP',
  }),
});
export const DeleteImageQuerySchema = Type.Object({ imageId: IdSchema }, { additionalProperties: false });

export const OwnProductsQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: Type.Optional(Status), storeId: Type.Optional(IdSchema) },
  { additionalProperties: false },
);
export type OwnProductsQuery = Static<typeof OwnProductsQuerySchema>;

export const FavoritesQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export type FavoritesQuery = Static<typeof FavoritesQuerySchema>;

export const PRODUCT_SORT_FIELDS = [
  'createdAt',
  'updatedAt',
  'publishedAt',
  'expiresAt',
  'name',
  'status',
  'category',
  'originalPrice',
  'discountedPrice',
  'discountPercent',
  'quantity',
  'salesCount',
  'viewsCount',
  'favoritesCount',
] as const;
export type ProductSortField = (typeof PRODUCT_SORT_FIELDS)[number];

export const AdminProductsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    sort: SortQuerySchema('AdminProductSort', PRODUCT_SORT_FIELDS, '-createdAt (newest first)'),
    status: Type.Optional(Status),
    supplierId: Type.Optional(IdSchema),
    storeId: Type.Optional(IdSchema),
    category: Type.Optional(Category),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'words of the name or description, accents and case ignored',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AdminProductsQuery = Static<typeof AdminProductsQuerySchema>;

/** A product as administrators list it: who sells it and where, so a moderator needs no other lookup. */
export const AdminProductSchema = Type.Object(
  {
    ...ProductSchema.properties,
    supplier: Type.Object({
      id: IdSchema,
      businessName: Nullable(Type.String()),
      verificationStatus: Nullable(StringEnum(VERIFICATION_STATUSES)),
      deleted: Type.Boolean({ description: 'the supplier deleted its profile' }),
    }),
    store: Type.Object({ id: IdSchema, name: Nullable(Type.String()), city: Nullable(Type.String()) }),
  },
  { title: 'AdminProduct' },
);
export type AdminProductView = Static<typeof AdminProductSchema>;

export const ModerationQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export type ModerationQuery = Static<typeof ModerationQuerySchema>;

export const RejectBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 500 }) },
  { additionalProperties: false },
);
export const AdminStatusBodySchema = Type.Object(
  { status: StringEnum(ADMIN_SETTABLE_STATUSES), reason: Type.Optional(Type.String({ minLength: 3, maxLength: 500 })) },
  { additionalProperties: false },
);
export type AdminStatusBody = Static<typeof AdminStatusBodySchema>;
export const AdminDeleteQuerySchema = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 3, maxLength: 500 })) },
  { additionalProperties: false },
);
export const BulkApproveBodySchema = Type.Object(
  {
    ids: Type.Array(IdSchema, { minItems: 1, maxItems: 100, uniqueItems: true }),
    reason: Type.Optional(Type.String({ minLength: 3, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type BulkApproveBody = Static<typeof BulkApproveBodySchema>;
export const BulkApproveResultSchema = Type.Object(
  { approved: Type.Integer(), ids: Type.Array(IdSchema) },
  { title: 'BulkApproveResult' },
);
