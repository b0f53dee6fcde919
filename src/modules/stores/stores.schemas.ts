import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, PhoneSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { OpeningHoursSchema } from '../../shared/opening-hours.js';
import { TimezoneSchema as Timezone } from '../../shared/time-zones.js';

export const StoreParamsSchema = Type.Object({ storeId: IdSchema }, { additionalProperties: false });

export const ClosureSchema = Type.Object(
  {
    startsAt: TimestampSchema,
    endsAt: TimestampSchema,
    reason: Nullable(Type.String()),
    inEffect: Type.Boolean({ description: 'true while startsAt <= now < endsAt' }),
  },
  { title: 'StoreClosure' },
);

export const StoreSchema = Type.Object(
  {
    id: IdSchema,
    supplierId: IdSchema,
    name: Type.String(),
    description: Type.String(),
    address: Type.String(),
    city: Type.String(),
    latitude: Type.Number(),
    longitude: Type.Number(),
    phone: Nullable(Type.String()),
    openingHours: OpeningHoursSchema,
    timezone: Type.String(),
    pickupInstructions: Nullable(Type.String()),
    isActive: Type.Boolean(),
    isOpenNow: Type.Boolean({ description: "active, not temporarily closed, and within today's opening hours" }),
    closure: Nullable(ClosureSchema),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'Store' },
);
export type StoreView = Static<typeof StoreSchema>;

export const NearbyStoreSchema = Type.Object(
  { ...StoreSchema.properties, distanceKm: Type.Number() },
  { title: 'NearbyStore' },
);
export type NearbyStoreView = Static<typeof NearbyStoreSchema>;

const Latitude = Type.Number({ minimum: -90, maximum: 90 });
const Longitude = Type.Number({ minimum: -180, maximum: 180 });

const storeFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.String({ maxLength: 2000 }),
  address: Type.String({ minLength: 1, maxLength: 300 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  latitude: Latitude,
  longitude: Longitude,
  phone: PhoneSchema,
  openingHours: OpeningHoursSchema,
  timezone: Timezone,
  pickupInstructions: Type.String({ maxLength: 1000 }),
};

export const CreateStoreBodySchema = Type.Object(
  {
    name: storeFields.name,
    description: Type.Optional(storeFields.description),
    address: storeFields.address,
    city: storeFields.city,
    latitude: Latitude,
    longitude: Longitude,
    phone: Type.Optional(PhoneSchema),
    openingHours: Type.Optional(OpeningHoursSchema),
    timezone: Type.Optional(Timezone),
    pickupInstructions: Type.Optional(storeFields.pickupInstructions),
  },
  { additionalProperties: false },
);
export type CreateStoreBody = Static<typeof CreateStoreBodySchema>;

export const UpdateStoreBodySchema = Type.Object(
  {
    name: Type.Optional(storeFields.name),
    description: Type.Optional(storeFields.description),
    address: Type.Optional(storeFields.address),
    city: Type.Optional(storeFields.city),
    latitude: Type.Optional(Latitude),
    longitude: Type.Optional(Longitude),
    phone: Type.Optional(Nullable(PhoneSchema)),
    openingHours: Type.Optional(OpeningHoursSchema),
    timezone: Type.Optional(Timezone),
    pickupInstructions: Type.Optional(Nullable(storeFields.pickupInstructions)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Only the given fields change; null clears phone or pickupInstructions',
  },
);
export type UpdateStoreBody = Static<typeof UpdateStoreBodySchema>;

export const ClosureBodySchema = Type.Object(
  {
    startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'default: now' })),
    endsAt: Type.Optional(Type.String({ format: 'date-time', description: 'required unless clear is true' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    clear: Type.Optional(Type.Boolean({ description: 'true removes the closure (alone)' })),
  },
  { additionalProperties: false },
);
export type ClosureBody = Static<typeof ClosureBodySchema>;

export const STORE_SORTS = ['relevance', 'name', 'newest'] as const;
export type StoreSort = (typeof STORE_SORTS)[number];

export const SearchStoresQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'words of the name, description or city; typos are tolerated',
      }),
    ),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'exact city, any case' })),
    supplierId: Type.Optional(IdSchema),
    openNow: Type.Optional(Type.Boolean()),
    sort: Type.Optional(StringEnum(STORE_SORTS, { description: 'default: relevance with q, newest without' })),
  },
  { additionalProperties: false },
);
export type SearchStoresQuery = Static<typeof SearchStoresQuerySchema>;

export const NEARBY_RADIUS_KM = { min: 0.1, max: 50, default: 5 } as const;

export const NearbyQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    latitude: Latitude,
    longitude: Longitude,
    radiusKm: Type.Number({
      minimum: NEARBY_RADIUS_KM.min,
      maximum: NEARBY_RADIUS_KM.max,
      default: NEARBY_RADIUS_KM.default,
    }),
    openNow: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type NearbyQuery = Static<typeof NearbyQuerySchema>;

export const OwnStoresQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, isActive: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type OwnStoresQuery = Static<typeof OwnStoresQuerySchema>;

/**
 * Sections of numbers per store. `store` and `staff` come from this module and the staff module;
 * other modules add their own section (e.g. `orders`, `products`) with `registerStatistics`.
 */
export const StoreStatisticsSchema = Type.Object(
  {
    storeId: IdSchema,
    generatedAt: TimestampSchema,
    store: Type.Object({
      isActive: Type.Boolean(),
      isOpenNow: Type.Boolean(),
      closure: Nullable(ClosureSchema),
      createdAt: TimestampSchema,
      daysActive: Type.Integer({ description: 'whole days since the store was created' }),
    }),
    staff: Type.Object({
      members: Type.Integer(),
      managers: Type.Integer(),
      staff: Type.Integer(),
      pendingInvitations: Type.Integer({ description: 'pending and not yet expired' }),
    }),
  },
  { title: 'StoreStatistics', additionalProperties: Type.Record(Type.String(), Type.Number()) },
);
export type StoreStatistics = Static<typeof StoreStatisticsSchema>;
