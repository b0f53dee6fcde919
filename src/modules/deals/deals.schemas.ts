import { Type, type Static } from 'typebox';
import { BOOKING_PAYMENT_STATUSES, BOOKING_STATUSES, DEAL_KINDS, DEAL_PAYMENT_MODES } from '../../db/schema/deals.js';
import { PAYMENT_METHODS } from '../../shared/payment-methods.js';
import { IdSchema, Nullable, PageQuerySchema, PhoneSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { PaymentSchema } from '../payments/index.js';
import { PRODUCT_CATEGORIES } from '../products/index.js';
import { DEAL_VIEW_STATUSES } from './deal-status.js';

const opt = Type.Optional;
const LocalTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$',
  description: 'HH:MM, local time of the store',
});
const Money = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'XOF (no minor unit)' });

/** At most this many pictures per deal (the products' limit). */
export const MAX_DEAL_IMAGES = 5;
export const DEAL_SORTS = ['relevance', 'distance', 'price', '-price', 'ending_soon', 'newest'] as const;
export type DealSort = (typeof DEAL_SORTS)[number];

export const DealParamsSchema = Type.Object({ dealId: IdSchema }, { additionalProperties: false });
export const BookingParamsSchema = Type.Object({ bookingId: IdSchema }, { additionalProperties: false });

const writable = {
  title: Type.String({ minLength: 3, maxLength: 120 }),
  description: Type.String({ maxLength: 2000 }),
  kind: StringEnum(DEAL_KINDS, {
    description: 'SURPRISE_BAG and FIXED_PRICE take price; PERCENTAGE_OFF takes discountPercent',
  }),
  category: StringEnum(PRODUCT_CATEGORIES),
  price: Type.Integer({
    minimum: 0,
    maximum: 100_000_000,
    description: 'per place, below originalValue (not with PERCENTAGE_OFF)',
  }),
  discountPercent: Type.Integer({
    minimum: 1,
    maximum: 99,
    description: 'PERCENTAGE_OFF only; the price is computed from it',
  }),
  originalValue: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    description: 'what a place is worth at the usual price, XOF',
  }),
  totalPlaces: Type.Integer({ minimum: 1, maximum: 10_000 }),
  placesPerClient: Type.Integer({ minimum: 1, maximum: 100, description: 'default 1' }),
  validFrom: TimestampSchema,
  validUntil: TimestampSchema,
  pickupStart: LocalTime,
  pickupEnd: LocalTime,
  terms: Type.String({ maxLength: 2000 }),
  paymentMode: StringEnum(DEAL_PAYMENT_MODES, {
    description:
      'AT_COUNTER: paid when collected; IN_APP: paid when booked, held in escrow until collected. Default: the setting business.dealsPaidInAppByDefault',
  }),
};

export const CreateDealBodySchema = Type.Object(
  {
    storeId: IdSchema,
    title: writable.title,
    description: opt(writable.description),
    kind: writable.kind,
    category: writable.category,
    price: opt(writable.price),
    discountPercent: opt(writable.discountPercent),
    originalValue: writable.originalValue,
    totalPlaces: writable.totalPlaces,
    placesPerClient: opt(writable.placesPerClient),
    validFrom: opt(Type.String({ format: 'date-time', description: 'default now' })),
    validUntil: writable.validUntil,
    pickupStart: writable.pickupStart,
    pickupEnd: writable.pickupEnd,
    terms: opt(writable.terms),
    paymentMode: opt(writable.paymentMode),
  },
  { additionalProperties: false },
);
export type CreateDealBody = Static<typeof CreateDealBodySchema>;

export const UpdateDealBodySchema = Type.Object(
  {
    title: opt(writable.title),
    description: opt(writable.description),
    kind: opt(writable.kind),
    category: opt(writable.category),
    price: opt(writable.price),
    discountPercent: opt(writable.discountPercent),
    originalValue: opt(writable.originalValue),
    totalPlaces: opt(writable.totalPlaces),
    placesPerClient: opt(writable.placesPerClient),
    validFrom: opt(writable.validFrom),
    validUntil: opt(writable.validUntil),
    pickupStart: opt(writable.pickupStart),
    pickupEnd: opt(writable.pickupEnd),
    terms: opt(writable.terms),
    paymentMode: opt(writable.paymentMode),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateDealBody = Static<typeof UpdateDealBodySchema>;

export const DealImageSchema = Type.Object(
  { id: IdSchema, thumbnailUrl: Type.String(), url: Type.String() },
  { title: 'DealImage' },
);

export const DealSchema = Type.Object(
  {
    id: IdSchema,
    supplierId: IdSchema,
    storeId: IdSchema,
    title: Type.String(),
    description: Type.String(),
    kind: StringEnum(DEAL_KINDS),
    category: StringEnum(PRODUCT_CATEGORIES),
    price: Money,
    originalValue: Money,
    discountPercent: Type.Integer(),
    currency: Type.String(),
    totalPlaces: Type.Integer(),
    placesLeft: Type.Integer(),
    placesPerClient: Type.Integer(),
    validFrom: TimestampSchema,
    validUntil: TimestampSchema,
    pickupStart: Type.String(),
    pickupEnd: Type.String(),
    terms: Type.String(),
    images: Type.Array(DealImageSchema),
    status: StringEnum(DEAL_VIEW_STATUSES, { description: 'SOLD_OUT and EXPIRED are derived from places and time' }),
    rejectionReason: Nullable(Type.String()),
    paymentMode: StringEnum(DEAL_PAYMENT_MODES, {
      description:
        'AT_COUNTER: bookings are paid when collected; IN_APP: paid when booked (see POST /deals/:dealId/book)',
    }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'Deal' },
);
export type DealView = Static<typeof DealSchema>;

export const DealStoreSchema = Type.Object(
  {
    id: IdSchema,
    name: Type.String(),
    address: Type.String(),
    city: Type.String(),
    latitude: Type.Number(),
    longitude: Type.Number(),
    timezone: Type.String(),
    openNow: Type.Boolean(),
  },
  { title: 'DealStore' },
);
export const DealDetailSchema = Type.Object(
  { ...DealSchema.properties, store: DealStoreSchema },
  { title: 'DealDetail' },
);
export type DealDetailView = Static<typeof DealDetailSchema>;

export const DealCardSchema = Type.Object(
  {
    id: IdSchema,
    title: Type.String(),
    kind: StringEnum(DEAL_KINDS),
    category: StringEnum(PRODUCT_CATEGORIES),
    price: Money,
    originalValue: Money,
    discountPercent: Type.Integer(),
    currency: Type.String(),
    placesLeft: Type.Integer(),
    validUntil: TimestampSchema,
    pickupStart: Type.String(),
    pickupEnd: Type.String(),
    storeId: IdSchema,
    storeName: Type.String(),
    thumbnailUrl: Nullable(Type.String()),
    distanceKm: Nullable(Type.Number({ description: 'from the given point; null without one' })),
  },
  { title: 'DealCard' },
);
export type DealCardView = Static<typeof DealCardSchema>;

export const DealSearchQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: opt(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'words of the title, description and terms (accents and case ignored, a typo per word tolerated, the last word as a prefix)',
      }),
    ),
    category: opt(StringEnum(PRODUCT_CATEGORIES)),
    kind: opt(StringEnum(DEAL_KINDS)),
    maxPrice: opt(Type.Integer({ minimum: 0, description: 'XOF' })),
    storeId: opt(IdSchema),
    openNow: opt(Type.Boolean({ description: 'the store is open at this moment in its time zone' })),
    latitude: opt(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: opt(Type.Number({ minimum: -180, maximum: 180 })),
    radiusKm: opt(Type.Number({ minimum: 0.1, maximum: 50, description: 'with latitude and longitude; default 5' })),
    sort: opt(
      StringEnum(DEAL_SORTS, { description: 'default: relevance with q, distance with a point, newest otherwise' }),
    ),
  },
  { additionalProperties: false },
);
export type DealSearchQuery = Static<typeof DealSearchQuerySchema>;

export const OwnDealsQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: opt(StringEnum(DEAL_VIEW_STATUSES)), storeId: opt(IdSchema) },
  { additionalProperties: false },
);
export type OwnDealsQuery = Static<typeof OwnDealsQuerySchema>;
export const PendingDealsQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export type PendingDealsQuery = Static<typeof PendingDealsQuerySchema>;

export const RejectDealBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 500 }) },
  { additionalProperties: false },
);

export const ImagesFormSchema = Type.Object({
  images: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    maxItems: MAX_DEAL_IMAGES,
    description: 'JPEG, PNG or WebP',
  }),
});
export const DeleteImageQuerySchema = Type.Object({ imageId: IdSchema }, { additionalProperties: false });

// ---- bookings

export const BookBodySchema = Type.Object(
  {
    quantity: Type.Integer({ minimum: 1, maximum: 100 }),
    pickupDate: opt(
      Type.String({
        format: 'date',
        description: "the store's local day; default the first day whose pickup window has not ended",
      }),
    ),
    paymentMethod: opt(
      StringEnum(PAYMENT_METHODS, {
        description:
          'a deal paid IN_APP only, and required then: wave, orangeMoney, freeMoney or card (enabled in the settings)',
      }),
    ),
    payerPhone: opt(PhoneSchema),
  },
  { additionalProperties: false },
);
export type BookBody = Static<typeof BookBodySchema>;

export const BookingSchema = Type.Object(
  {
    id: IdSchema,
    dealId: IdSchema,
    dealTitle: Type.String(),
    storeId: IdSchema,
    storeName: Type.String(),
    quantity: Type.Integer(),
    unitPrice: Money,
    totalPrice: Money,
    currency: Type.String(),
    paymentMode: StringEnum(DEAL_PAYMENT_MODES, { description: "the deal's mode when booked" }),
    paymentStatus: Nullable(
      StringEnum(BOOKING_PAYMENT_STATUSES, {
        description:
          'IN_APP only: UNPAID, PAID (held in escrow), RELEASED (to the shop), REFUND_PENDING, REFUNDED; null at the counter',
      }),
    ),
    paymentDeadline: Nullable(
      Type.String({
        format: 'date-time',
        description: 'IN_APP only: the places are held until then while the payment is awaited',
      }),
    ),
    payment: opt(
      Type.Union([PaymentSchema, Type.Null()], {
        description:
          "to the booking's client, IN_APP only: the latest payment attempt (open redirectUrl to pay while PENDING)",
      }),
    ),
    pickupDate: Type.String({ format: 'date' }),
    pickupStartsAt: TimestampSchema,
    pickupEndsAt: TimestampSchema,
    code: Type.String({ description: 'the short code to show or say at the counter' }),
    qrToken: Type.Optional(
      Type.String({
        description:
          "to the booking's client only: the signed token its QR code encodes, for the app to draw the QR itself (offline); the counter validates it as a scan",
      }),
    ),
    status: StringEnum(BOOKING_STATUSES),
    usedAt: Nullable(TimestampSchema),
    cancelledAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
  },
  { title: 'Booking' },
);
export type BookingView = Static<typeof BookingSchema>;

export const MyBookingsQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: opt(StringEnum(BOOKING_STATUSES)) },
  { additionalProperties: false },
);
export type MyBookingsQuery = Static<typeof MyBookingsQuerySchema>;

export const StoreBookingsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: opt(StringEnum(BOOKING_STATUSES)),
    storeId: opt(IdSchema),
    dealId: opt(IdSchema),
  },
  { additionalProperties: false },
);
export type StoreBookingsQuery = Static<typeof StoreBookingsQuerySchema>;

export const ValidateBodySchema = Type.Object(
  {
    token: opt(Type.String({ minLength: 1, maxLength: 600, description: "the content of the booking's QR code" })),
    code: opt(Type.String({ minLength: 4, maxLength: 20, description: 'the short code the client shows or says' })),
    storeId: opt(IdSchema),
  },
  { additionalProperties: false },
);
export type ValidateBody = Static<typeof ValidateBodySchema>;
