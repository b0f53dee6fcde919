import { Type, type Static } from 'typebox';
import { DONATION_KINDS, FOOD_DONATION_STATUSES } from '../../db/schema/donations.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

const opt = Type.Optional;

export const FoodItemBodySchema = Type.Object(
  {
    productId: opt({ ...IdSchema, description: 'a product of your catalog: its units are taken from stock' }),
    name: opt(Type.String({ minLength: 2, maxLength: 120, description: 'a free-form item (with unitWeightGrams), instead of productId' })),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
    unitWeightGrams: opt(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'free-form items only: the weight of one unit' })),
  },
  { additionalProperties: false },
);

export const CreateFoodBodySchema = Type.Object(
  {
    associationId: IdSchema,
    items: Type.Array(FoodItemBodySchema, { minItems: 1, maxItems: 50 }),
    pickupWindowStart: TimestampSchema,
    pickupWindowEnd: TimestampSchema,
    message: opt(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type CreateFoodBody = Static<typeof CreateFoodBodySchema>;

export const DonationIdParamsSchema = Type.Object({ donationId: IdSchema }, { additionalProperties: false });

export const SchedulePickupBodySchema = Type.Object(
  { pickupAt: { ...TimestampSchema, description: 'within the pickup window' }, note: opt(Type.String({ minLength: 1, maxLength: 500 })) },
  { additionalProperties: false },
);
export type SchedulePickupBody = Static<typeof SchedulePickupBodySchema>;

export const ReasonBodySchema = Type.Object({ reason: opt(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });

export const StatusBodySchema = Type.Object(
  {
    status: StringEnum(['ACCEPTED', 'DECLINED', 'PICKUP_SCHEDULED', 'COLLECTED', 'CANCELLED'] as const),
    reason: opt(Type.String({ minLength: 1, maxLength: 500 })),
    pickupAt: opt({ ...TimestampSchema, description: 'required with PICKUP_SCHEDULED' }),
    note: opt(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type StatusBody = Static<typeof StatusBodySchema>;

export const ListQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: opt(StringEnum(FOOD_DONATION_STATUSES)) },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;
export const PageOnlyQuerySchema = Type.Object(PageQuerySchema.properties, { additionalProperties: false });
export const StatsQuerySchema = Type.Object({ months: Type.Integer({ minimum: 1, maximum: 24, default: 12 }) }, { additionalProperties: false });

const ItemSchema = Type.Object({
  productId: Nullable(IdSchema),
  name: Type.String(),
  quantity: Type.Integer(),
  unitWeightGrams: Type.Integer(),
  weightGrams: Type.Integer(),
});

const donationFields = {
  id: IdSchema,
  kind: StringEnum(DONATION_KINDS),
  status: StringEnum(FOOD_DONATION_STATUSES),
  donorUserId: IdSchema,
  supplierId: Nullable(IdSchema),
  associationId: IdSchema,
  items: Type.Array(ItemSchema),
  totalWeightGrams: Type.Integer(),
  message: Nullable(Type.String()),
  pickupWindowStart: TimestampSchema,
  pickupWindowEnd: TimestampSchema,
  scheduledPickupAt: Nullable(TimestampSchema),
  pickupNote: Nullable(Type.String()),
  closingReason: Nullable(Type.String({ description: 'why it was declined or cancelled' })),
  collectedAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
};
export const DonationSchema = Type.Object(donationFields, { title: 'FoodDonation' });
export type DonationView = Static<typeof DonationSchema>;

export const DonationDetailSchema = Type.Object(
  {
    ...donationFields,
    history: Type.Array(Type.Object({ from: Nullable(Type.String()), to: Type.String(), actorId: Nullable(IdSchema), reason: Nullable(Type.String()), at: TimestampSchema })),
  },
  { title: 'FoodDonationDetail' },
);
export type DonationDetailView = Static<typeof DonationDetailSchema>;

const Impact = Type.Object({
  kgCollected: Type.Number(),
  mealsEquivalent: Type.Integer({ description: 'kg collected / 0.42 kg per meal, rounded down' }),
  co2eAvoidedKg: Type.Number({ description: 'kg collected x 2.5 kg CO2e per kg of food not wasted' }),
});
export const AssociationStatsSchema = Type.Object(
  {
    associationId: IdSchema,
    received: Type.Integer({ description: 'food donations received, in any state' }),
    byStatus: Type.Record(Type.String(), Type.Integer()),
    collected: Type.Object({ count: Type.Integer(), kg: Type.Number() }),
    byMonth: Type.Array(Type.Object({ month: Type.String({ description: 'YYYY-MM (UTC)' }), received: Type.Integer(), collected: Type.Integer(), kgCollected: Type.Number() })),
    impact: Impact,
    generatedAt: TimestampSchema,
  },
  { title: 'AssociationDonationStats' },
);
export type AssociationStatsView = Static<typeof AssociationStatsSchema>;
