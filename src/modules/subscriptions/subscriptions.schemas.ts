import { Type, type Static } from 'typebox';
import { CHARGE_KINDS, CHARGE_STATUSES, SUBSCRIPTION_STATUSES } from '../../db/schema/subscriptions.js';
import { PAYMENT_METHODS } from '../../providers/payments/types.js';
import {
  IdSchema,
  Nullable,
  PageQuerySchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { PaymentSchema } from '../payments/index.js';

const MAX_PRICE = 100_000_000;

export const PlanSchema = Type.Object(
  {
    id: IdSchema,
    code: Type.String(),
    name: Type.String(),
    description: Type.String(),
    maxProducts: Nullable(Type.Integer({ description: 'products the plan allows; null: unlimited' })),
    priceAmount: Type.Integer({
      description: 'price per period in minor units of the currency (XOF has none); 0 for free plans',
    }),
    currency: Type.String(),
    periodDays: Nullable(Type.Integer({ description: 'billing period in days; null for a free plan without end' })),
    commissionDiscountBps: Type.Integer({
      description: "taken off the supplier's commission rate while subscribed, in basis points",
    }),
    features: Type.Array(Type.String()),
    sortOrder: Type.Integer(),
  },
  { title: 'Plan' },
);
export type PlanView = Static<typeof PlanSchema>;

export const AdminPlanSchema = Type.Intersect(
  [
    PlanSchema,
    Type.Object({
      isPublic: Type.Boolean(),
      isActive: Type.Boolean(),
      subscriberCount: Type.Integer({ description: 'suppliers whose running subscription is on this plan' }),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
  ],
  { title: 'AdminPlan' },
);
export type AdminPlanView = Static<typeof AdminPlanSchema>;

const SubscriptionSummarySchema = Type.Object(
  {
    id: IdSchema,
    status: StringEnum(SUBSCRIPTION_STATUSES),
    startedAt: TimestampSchema,
    endsAt: Nullable(TimestampSchema),
    cancelAtPeriodEnd: Type.Boolean({
      description: 'cancelled by the supplier: the plan stays until endsAt, then FREE',
    }),
  },
  { title: 'SubscriptionSummary' },
);

export const LimitsSchema = Type.Object(
  {
    allowed: Type.Boolean({ description: 'whether one more product may be created under the current plan' }),
    maxProducts: Nullable(Type.Integer({ description: 'null: unlimited' })),
    currentProducts: Type.Integer(),
    remaining: Nullable(Type.Integer({ description: 'null: unlimited' })),
    plan: PlanSchema,
    // null: no subscription is running, the supplier is on the FREE plan.
    subscription: Nullable(SubscriptionSummarySchema),
  },
  { title: 'PlanLimits' },
);
export type LimitsView = Static<typeof LimitsSchema>;

export const ChangePlanBodySchema = Type.Object(
  { planCode: Type.String({ pattern: '^[A-Za-z0-9_-]{2,32}$', description: 'code of the plan, e.g. FREE' }) },
  { additionalProperties: false },
);

// --- admin plans -----------------------------------------------------------------------------

const planFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.String({ maxLength: 1000 }),
  priceAmount: Type.Integer({
    minimum: 0,
    maximum: MAX_PRICE,
    description: 'per period, minor units; 0 for a free plan',
  }),
  periodDays: Type.Integer({ minimum: 1, maximum: 366, description: 'billing period in days (default 30)' }),
  maxProducts: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'null: unlimited' })),
  commissionDiscountBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
  features: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 30 }),
  isPublic: Type.Boolean(),
  sortOrder: Type.Integer({ minimum: -1000, maximum: 1000 }),
  isActive: Type.Boolean(),
};

export const CreatePlanBodySchema = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Za-z0-9_-]{2,32}$', description: 'stored upper-case, unique, never reused' }),
    name: planFields.name,
    description: Type.Optional(planFields.description),
    priceAmount: planFields.priceAmount,
    currency: Type.Optional(Type.Literal('XOF')),
    periodDays: Type.Optional(planFields.periodDays),
    maxProducts: planFields.maxProducts,
    commissionDiscountBps: Type.Optional(planFields.commissionDiscountBps),
    features: Type.Optional(planFields.features),
    isPublic: Type.Optional(planFields.isPublic),
    sortOrder: Type.Optional(planFields.sortOrder),
    isActive: Type.Optional(planFields.isActive),
  },
  { additionalProperties: false },
);
export type CreatePlanBody = Static<typeof CreatePlanBodySchema>;

export const UpdatePlanBodySchema = Type.Object(
  {
    name: Type.Optional(planFields.name),
    description: Type.Optional(planFields.description),
    priceAmount: Type.Optional(planFields.priceAmount),
    periodDays: Type.Optional(planFields.periodDays),
    maxProducts: Type.Optional(planFields.maxProducts),
    commissionDiscountBps: Type.Optional(planFields.commissionDiscountBps),
    features: Type.Optional(planFields.features),
    isPublic: Type.Optional(planFields.isPublic),
    sortOrder: Type.Optional(planFields.sortOrder),
    isActive: Type.Optional(planFields.isActive),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePlanBody = Static<typeof UpdatePlanBodySchema>;

export const PlanIdParamsSchema = Type.Object({ planId: IdSchema }, { additionalProperties: false });

// --- subscribe, renew, cancel ---------------------------------------------------------------------

const PromoCodeInput = Type.String({ minLength: 3, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' });

export const SubscribeBodySchema = Type.Object(
  {
    planId: IdSchema,
    paymentMethod: Type.Optional(StringEnum(PAYMENT_METHODS, { description: 'required for a paid plan' })),
    promoCode: Type.Optional(PromoCodeInput),
  },
  { additionalProperties: false },
);
export type SubscribeBody = Static<typeof SubscribeBodySchema>;

export const RenewBodySchema = Type.Object(
  {
    paymentMethod: StringEnum(PAYMENT_METHODS),
    promoCode: Type.Optional(PromoCodeInput),
  },
  { additionalProperties: false },
);
export type RenewBody = Static<typeof RenewBodySchema>;

export const ChargeSchema = Type.Object(
  {
    id: IdSchema,
    kind: StringEnum(CHARGE_KINDS),
    status: StringEnum(CHARGE_STATUSES),
    planId: IdSchema,
    listPrice: Type.Integer(),
    discountAmount: Type.Integer(),
    amount: Type.Integer({ description: 'what is paid: listPrice - discountAmount' }),
    currency: Type.String(),
    periodDays: Type.Integer(),
    promoCode: Nullable(Type.String()),
    expiresAt: TimestampSchema,
    paidAt: Nullable(TimestampSchema),
    refundedAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
  },
  { title: 'SubscriptionCharge' },
);

export const SubscribeAnswerSchema = Type.Object(
  {
    status: StringEnum(['ACTIVE', 'PAYMENT_PENDING'] as const, {
      description: 'ACTIVE: the plan applies now; PAYMENT_PENDING: it applies once payment.redirectUrl is paid',
    }),
    charge: Nullable(ChargeSchema),
    payment: Nullable(PaymentSchema),
    limits: LimitsSchema,
  },
  { title: 'SubscribeAnswer' },
);

export const PaymentIdParamsSchema = Type.Object({ paymentId: IdSchema }, { additionalProperties: false });
export const RefundBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 1000, description: 'why: kept in the audit log' }) },
  { additionalProperties: false },
);
export const SubscriptionRefundSchema = Type.Object(
  {
    charge: ChargeSchema,
    payment: PaymentSchema,
    limits: LimitsSchema,
  },
  { title: 'SubscriptionRefund' },
);

// --- promo codes -------------------------------------------------------------------------------------

export const PROMO_REASONS = [
  'PROMO_NOT_FOUND',
  'PROMO_DISABLED',
  'PROMO_NOT_STARTED',
  'PROMO_EXPIRED',
  'PROMO_NOT_APPLICABLE',
  'PROMO_FIRST_SUBSCRIPTION_ONLY',
  'PROMO_EXHAUSTED',
  'PROMO_SUPPLIER_LIMIT_REACHED',
] as const;
export type PromoReason = (typeof PROMO_REASONS)[number];

export const ValidatePromoBodySchema = Type.Object(
  { code: PromoCodeInput, planId: IdSchema },
  { additionalProperties: false },
);

export const PromoQuoteSchema = Type.Object(
  {
    valid: Type.Boolean(),
    reason: Nullable(StringEnum(PROMO_REASONS, { description: 'why the code does not apply (null when valid)' })),
    planId: IdSchema,
    listPrice: Type.Integer(),
    discountAmount: Type.Integer(),
    price: Type.Integer({ description: 'what the supplier would pay for the next period' }),
    currency: Type.String(),
  },
  { title: 'PromoQuote' },
);

export const PublicPromoSchema = Type.Object(
  {
    code: Type.String(),
    description: Type.String(),
    discountBps: Nullable(Type.Integer()),
    discountAmount: Nullable(Type.Integer()),
    currency: Type.String(),
    planIds: Type.Array(IdSchema, { description: 'plans it applies to; empty: every paid plan' }),
    validUntil: Nullable(TimestampSchema),
    firstSubscriptionOnly: Type.Boolean(),
  },
  { title: 'AvailablePromoCode' },
);

export const PromoSchema = Type.Intersect(
  [
    PublicPromoSchema,
    Type.Object({
      id: IdSchema,
      validFrom: Nullable(TimestampSchema),
      maxUses: Nullable(Type.Integer()),
      maxUsesPerSupplier: Nullable(Type.Integer()),
      isPublic: Type.Boolean(),
      disabled: Type.Boolean(),
      disabledAt: Nullable(TimestampSchema),
      usesCount: Type.Integer({ description: 'paid subscriptions that used it' }),
      batchId: Nullable(IdSchema),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
  ],
  { title: 'PromoCode' },
);

const promoFields = {
  description: Type.String({ maxLength: 500 }),
  discountBps: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    description: 'percentage off, in basis points (give this or discountAmount)',
  }),
  discountAmount: Type.Integer({
    minimum: 1,
    maximum: MAX_PRICE,
    description: 'fixed amount off, minor units (give this or discountBps)',
  }),
  planIds: Type.Array(IdSchema, { maxItems: 50, uniqueItems: true, description: 'empty or absent: every paid plan' }),
  validFrom: Nullable(TimestampSchema),
  validUntil: Nullable(TimestampSchema),
  maxUses: Nullable(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
  maxUsesPerSupplier: Nullable(Type.Integer({ minimum: 1, maximum: 1000 })),
  firstSubscriptionOnly: Type.Boolean(),
  isPublic: Type.Boolean(),
};
const optionalPromoFields = Object.fromEntries(Object.entries(promoFields).map(([k, v]) => [k, Type.Optional(v)])) as {
  [K in keyof typeof promoFields]: ReturnType<typeof Type.Optional<(typeof promoFields)[K]>>;
};

export const CreatePromoBodySchema = Type.Object(
  { code: PromoCodeInput, ...optionalPromoFields },
  { additionalProperties: false },
);
export type CreatePromoBody = Static<typeof CreatePromoBodySchema>;

export const BulkPromoBodySchema = Type.Object(
  {
    prefix: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9]{1,12}$', description: 'common start of every code (followed by a dash)' }),
    ),
    count: Type.Integer({ minimum: 1, maximum: 1000 }),
    ...optionalPromoFields,
  },
  { additionalProperties: false },
);
export type BulkPromoBody = Static<typeof BulkPromoBodySchema>;

export const UpdatePromoBodySchema = Type.Object(
  { ...optionalPromoFields, disabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePromoBody = Static<typeof UpdatePromoBodySchema>;

export const PromoIdParamsSchema = Type.Object({ promoCodeId: IdSchema }, { additionalProperties: false });

export const PROMO_SORT_FIELDS = [
  'createdAt',
  'updatedAt',
  'code',
  'validFrom',
  'validUntil',
  'usesCount',
  'maxUses',
] as const;
export type PromoSortField = (typeof PROMO_SORT_FIELDS)[number];

export const PromoListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: 'codes starting with this (any case)' }),
    ),
    batchId: Type.Optional(IdSchema),
    status: Type.Optional(StringEnum(['active', 'disabled'] as const)),
    sort: SortQuerySchema('PromoCodeSort', PROMO_SORT_FIELDS, '-createdAt (newest first)'),
  },
  { additionalProperties: false },
);
export type PromoListQuery = Static<typeof PromoListQuerySchema>;

export const BulkAnswerSchema = Type.Object(
  { batchId: IdSchema, count: Type.Integer(), codes: Type.Array(Type.String()) },
  { title: 'PromoCodeBatch' },
);
export const DeletedSchema = Type.Object({ deleted: Type.Literal(true) }, { title: 'Deleted' });
