import { Type, type Static } from 'typebox';
import { DIETARY_TAGS, PRODUCT_CATEGORIES, productCardFields } from '../products/index.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum } from '../../shared/schemas.js';

const opt = Type.Optional;
const Latitude = Type.Number({ minimum: -90, maximum: 90 });
const Longitude = Type.Number({ minimum: -180, maximum: 180 });
const RadiusKm = Type.Number({ minimum: 0.1, maximum: 50, description: 'with latitude and longitude; default 5' });

export const PRODUCT_SORTS = [
  'relevance',
  'price',
  '-price',
  'newest',
  'expiry',
  'popularity',
  'distance',
  'discount',
] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export const ProductSearchQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: opt(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'words (accents and case ignored, a typo per word tolerated, the last word as a prefix)',
      }),
    ),
    category: opt(StringEnum(PRODUCT_CATEGORIES)),
    minPrice: opt(Type.Integer({ minimum: 0, description: 'discounted price, XOF' })),
    maxPrice: opt(Type.Integer({ minimum: 0, description: 'discounted price, XOF' })),
    storeId: opt(IdSchema),
    supplierId: opt(IdSchema),
    city: opt(Type.String({ minLength: 1, maxLength: 100, description: "the store's city, any case" })),
    dietaryTags: opt(
      Type.String({
        maxLength: 100,
        pattern: '^[A-Z_]+(,[A-Z_]+)*$',
        description: `comma-separated, every one required: ${DIETARY_TAGS.join(', ')}`,
      }),
    ),
    minDiscount: opt(Type.Integer({ minimum: 0, maximum: 100, description: 'discount percentage at least' })),
    expiresBefore: opt(Type.String({ format: 'date-time' })),
    inStock: opt(Type.Boolean()),
    openNow: opt(Type.Boolean({ description: 'the store is open at this moment in its time zone' })),
    latitude: opt(Latitude),
    longitude: opt(Longitude),
    radiusKm: opt(RadiusKm),
    sort: opt(
      StringEnum(PRODUCT_SORTS, { description: 'default: relevance with q, distance with a point, newest otherwise' }),
    ),
  },
  { additionalProperties: false },
);
export type ProductSearchQuery = Static<typeof ProductSearchQuerySchema>;

export const ExpiringSoonQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, latitude: opt(Latitude), longitude: opt(Longitude), radiusKm: opt(RadiusKm) },
  { additionalProperties: false },
);
export type ExpiringSoonQuery = Static<typeof ExpiringSoonQuerySchema>;

/** What a list card shows; the product page (`GET /products/:id`) carries the rest. */
export const ProductCardSchema = Type.Object(
  {
    ...productCardFields,
    distanceKm: Nullable(Type.Number({ description: 'from the given point; null without one' })),
  },
  { title: 'ProductCard' },
);
export type ProductCardView = Static<typeof ProductCardSchema>;

export const TOP_SEARCH_PERIODS = ['day', 'week', 'month'] as const;

export const TopSearchesQuerySchema = Type.Object(
  {
    period: opt(
      StringEnum(TOP_SEARCH_PERIODS, {
        description: 'the last day, 7 days or 30 days up to today (UTC); default week; or from and to',
      }),
    ),
    from: opt(Type.String({ format: 'date', description: 'first UTC day, with to' })),
    to: opt(Type.String({ format: 'date', description: 'last UTC day (inclusive), with from' })),
    limit: opt(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);
export type TopSearchesQuery = Static<typeof TopSearchesQuerySchema>;

const TopSearchSchema = Type.Object(
  {
    query: Type.String({ description: 'the folded words as searched' }),
    searches: Type.Integer(),
    zeroResultSearches: Type.Integer({ description: 'of which found nothing' }),
  },
  { title: 'TopSearch' },
);

export const TopSearchesSchema = Type.Object(
  {
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    top: Type.Array(TopSearchSchema, { description: 'most searched first' }),
    zeroResults: Type.Array(
      Type.Object({ query: Type.String(), searches: Type.Integer({ description: 'searches that found nothing' }) }),
      { description: 'most searched of those that found nothing first' },
    ),
  },
  { title: 'TopSearches' },
);
export type TopSearchesView = Static<typeof TopSearchesSchema>;
