import { Type, type Static } from 'typebox';
import { DONATION_KINDS, DONATION_STATUSES } from '../../db/schema/donations.js';
import { PAYMENT_METHODS } from '../../providers/payments/types.js';
import { PaymentSchema } from '../payments/index.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

/** Bounds of a financial donation, in XOF (no minor unit). */
export const MIN_DONATION_AMOUNT = 100;
export const MAX_DONATION_AMOUNT = 5_000_000;

const opt = Type.Optional;

export const FoodItemBodySchema = Type.Object(
  {
    productId: opt({ ...IdSchema, description: 'a product of your catalog: its units are taken from stock' }),
    name: opt(
      Type.String({
        minLength: 2,
        maxLength: 120,
        description: 'a free-form item (with unitWeightGrams), instead of productId',
      }),
    ),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
    unitWeightGrams: opt(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'free-form items only: the weight of one unit' }),
    ),
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

export const CreateFinancialBodySchema = Type.Object(
  {
    associationId: IdSchema,
    amount: Type.Integer({
      minimum: MIN_DONATION_AMOUNT,
      maximum: MAX_DONATION_AMOUNT,
      description: `XOF, ${MIN_DONATION_AMOUNT} to ${MAX_DONATION_AMOUNT}`,
    }),
    paymentMethod: StringEnum(PAYMENT_METHODS, { description: 'must be enabled in the settings' }),
    payerPhone: opt(
      Type.String({
        pattern: '^\\+[1-9][0-9]{7,14}$',
        description: 'E.164; the provider then accepts payment only from this wallet',
      }),
    ),
    anonymous: opt(Type.Boolean({ description: 'the association and the receipt do not name the donor' })),
    message: opt(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type CreateFinancialBody = Static<typeof CreateFinancialBodySchema>;

export const DonationIdParamsSchema = Type.Object({ donationId: IdSchema }, { additionalProperties: false });

export const SchedulePickupBodySchema = Type.Object(
  {
    pickupAt: { ...TimestampSchema, description: 'within the pickup window' },
    note: opt(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type SchedulePickupBody = Static<typeof SchedulePickupBodySchema>;

export const ReasonBodySchema = Type.Object(
  { reason: opt(Type.String({ minLength: 1, maxLength: 500 })) },
  { additionalProperties: false },
);

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
  { ...PageQuerySchema.properties, status: opt(StringEnum(DONATION_STATUSES)), kind: opt(StringEnum(DONATION_KINDS)) },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;
export const PageOnlyQuerySchema = Type.Object(PageQuerySchema.properties, { additionalProperties: false });
export const StatsQuerySchema = Type.Object(
  { months: Type.Integer({ minimum: 1, maximum: 24, default: 12 }) },
  { additionalProperties: false },
);

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
  status: StringEnum(DONATION_STATUSES, {
    description:
      'FOOD: PENDING, ACCEPTED, DECLINED, PICKUP_SCHEDULED, COLLECTED, CANCELLED; FINANCIAL: PENDING_PAYMENT, PAID, FAILED, EXPIRED, CANCELLED',
  }),
  donorUserId: Type.Union([IdSchema, Type.Null()], {
    description: 'null to the association when the donor gave anonymously',
  }),
  anonymous: Type.Boolean(),
  supplierId: Nullable(IdSchema),
  associationId: IdSchema,
  items: Type.Array(ItemSchema),
  totalWeightGrams: Type.Integer({ description: 'FOOD; 0 for FINANCIAL' }),
  amount: Nullable(Type.Integer({ description: 'FINANCIAL: in currency' })),
  currency: Nullable(Type.String()),
  paidAt: Nullable(TimestampSchema),
  message: Nullable(Type.String()),
  pickupWindowStart: Nullable(TimestampSchema),
  pickupWindowEnd: Nullable(TimestampSchema),
  scheduledPickupAt: Nullable(TimestampSchema),
  pickupNote: Nullable(Type.String()),
  closingReason: Nullable(Type.String({ description: 'why it was declined or cancelled' })),
  collectedAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
};
export const DonationSchema = Type.Object(donationFields, { title: 'Donation' });
export type DonationView = Static<typeof DonationSchema>;

export const DonationDetailSchema = Type.Object(
  {
    ...donationFields,
    payment: Type.Union([PaymentSchema, Type.Null()], {
      description: 'FINANCIAL, to the donor: the latest payment attempt',
    }),
    history: Type.Array(
      Type.Object({
        from: Nullable(Type.String()),
        to: Type.String(),
        actorId: Nullable(IdSchema),
        reason: Nullable(Type.String()),
        at: TimestampSchema,
      }),
    ),
  },
  { title: 'DonationDetail' },
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
    financial: Type.Object({
      count: Type.Integer({ description: 'financial donations paid' }),
      amount: Type.Integer(),
      currency: Type.String(),
    }),
    byStatus: Type.Record(Type.String(), Type.Integer()),
    collected: Type.Object({ count: Type.Integer(), kg: Type.Number() }),
    byMonth: Type.Array(
      Type.Object({
        month: Type.String({ description: 'YYYY-MM (UTC)' }),
        received: Type.Integer(),
        collected: Type.Integer(),
        kgCollected: Type.Number(),
        amountReceived: Type.Integer({ description: 'financial donations paid that month' }),
      }),
    ),
    impact: Impact,
    generatedAt: TimestampSchema,
  },
  { title: 'AssociationDonationStats' },
);
export type AssociationStatsView = Static<typeof AssociationStatsSchema>;

export const FinancialAnswerSchema = Type.Object(
  {
    donation: DonationDetailSchema,
    payment: Type.Union([PaymentSchema, Type.Null()], { description: 'pay at payment.redirectUrl' }),
  },
  { title: 'FinancialDonationAnswer' },
);

export const MyStatsSchema = Type.Object(
  {
    donations: Type.Integer({ description: 'donations made, any kind and state' }),
    food: Type.Object({ collected: Type.Integer({ description: 'food donations collected' }), kg: Type.Number() }),
    financial: Type.Array(
      Type.Object({
        currency: Type.String(),
        count: Type.Integer({ description: 'financial donations paid' }),
        amount: Type.Integer(),
      }),
    ),
    impact: Type.Object({
      kgSaved: Type.Number({ description: 'kg of food collected' }),
      mealsEquivalent: Type.Integer({ description: 'kg saved / 0.42 kg per meal, rounded down' }),
      co2eAvoidedKg: Type.Number({ description: 'kg saved x 2.5 kg CO2e per kg of food not wasted' }),
    }),
    generatedAt: TimestampSchema,
  },
  { title: 'DonorStats' },
);
export type MyStatsView = Static<typeof MyStatsSchema>;

export const DocumentSchema = Type.Object(
  {
    number: Type.String({
      description: 'REC-YYYY-NNNNNN (receipt) or CERT-YYYY-NNNNNN (certificate), without gaps per kind and year',
    }),
    kind: StringEnum(['RECEIPT', 'CERTIFICATE'] as const),
    verificationCode: Type.String({ description: 'GET /donations/verify/{code} confirms the document' }),
    donationId: IdSchema,
    issuedAt: TimestampSchema,
    url: Type.String({ description: 'the PDF, a signed link valid 5 minutes' }),
    expiresAt: TimestampSchema,
    sizeBytes: Type.Integer(),
  },
  { title: 'DonationDocument' },
);

export const VerifyParamsSchema = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const VerificationSchema = Type.Object(
  {
    valid: Type.Literal(true),
    number: Type.String(),
    kind: StringEnum(['RECEIPT', 'CERTIFICATE'] as const),
    issuedAt: TimestampSchema,
    donatedAt: TimestampSchema,
    association: Type.Object({ id: IdSchema, name: Type.String() }),
    donor: Type.String({ description: '"anonymous" when the donor asked not to be named' }),
    amount: Nullable(Type.Integer()),
    currency: Nullable(Type.String()),
    weightKg: Nullable(Type.Number()),
  },
  { title: 'DonationDocumentVerification' },
);
