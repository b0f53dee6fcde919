import { Type, type Static } from 'typebox';
import { TOPUP_STATUSES } from '../../db/schema/advertising.js';
import { PAYMENT_METHODS } from '../../providers/payments/types.js';
import { IdSchema, Nullable, PageQuerySchema, PhoneSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { PaymentSchema } from '../payments/index.js';

const opt = Type.Optional;
const advertiserId = opt(
  Type.String({
    format: 'uuid',
    description: "administrators: the advertiser to read (others read their own; another's is 404)",
  }),
);

export const AdvertiserQuerySchema = Type.Object({ advertiserId }, { additionalProperties: false });
export type AdvertiserQuery = Static<typeof AdvertiserQuerySchema>;

export const TopUpBodySchema = Type.Object(
  {
    amount: Type.Integer({ minimum: 100, maximum: 10_000_000, description: 'whole XOF added to the balance' }),
    paymentMethod: StringEnum(PAYMENT_METHODS),
    payerPhone: opt(PhoneSchema),
  },
  { additionalProperties: false },
);
export type TopUpBody = Static<typeof TopUpBodySchema>;

export const TopUpSchema = Type.Object(
  {
    id: IdSchema,
    advertiserId: IdSchema,
    status: StringEnum(TOPUP_STATUSES, {
      description: 'PENDING until paid; PAID once on the balance; EXPIRED when not paid in time',
    }),
    amount: Type.Integer(),
    currency: Type.String(),
    method: Type.String(),
    expiresAt: TimestampSchema,
    paidAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
  },
  { title: 'AdTopUp' },
);
export type TopUpView = Static<typeof TopUpSchema>;

export const TopUpStartedSchema = Type.Object(
  { topUp: TopUpSchema, payment: Nullable(PaymentSchema) },
  { title: 'AdTopUpStarted' },
);

export const TopUpsQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: opt(StringEnum(TOPUP_STATUSES)), advertiserId },
  { additionalProperties: false },
);
export type TopUpsQuery = Static<typeof TopUpsQuerySchema>;

export const BalanceSchema = Type.Object(
  {
    advertiserId: IdSchema,
    currency: Type.String(),
    balance: Type.Integer({ description: 'what campaigns may still spend' }),
    toppedUp: Type.Integer({ description: 'every paid top-up, in total' }),
    spent: Type.Integer({ description: 'every click and thousand impressions paid, in total' }),
    pendingTopUps: Type.Object({ count: Type.Integer(), amount: Type.Integer() }, { description: 'not paid yet' }),
  },
  { title: 'AdBalance' },
);
export type BalanceView = Static<typeof BalanceSchema>;

const MOVEMENT_TYPES = ['TOP_UP', 'SPEND', 'OTHER'] as const;
export const MovementSchema = Type.Object(
  {
    transactionId: IdSchema,
    at: TimestampSchema,
    type: StringEnum(MOVEMENT_TYPES, { description: 'TOP_UP: a paid top-up; SPEND: a click or impressions paid' }),
    amount: Type.Integer({ description: 'added to the balance (> 0) or taken from it (< 0)' }),
    campaignId: Nullable(IdSchema),
    topUpId: Nullable(IdSchema),
    memo: Nullable(Type.String()),
  },
  { title: 'AdBalanceMovement' },
);
export type MovementView = Static<typeof MovementSchema>;

export const HistoryQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    from: opt(Type.String({ format: 'date-time', description: 'included' })),
    to: opt(Type.String({ format: 'date-time', description: 'excluded' })),
    advertiserId,
  },
  { additionalProperties: false },
);
export type HistoryQuery = Static<typeof HistoryQuerySchema>;

export const StatementParamsSchema = Type.Object(
  { month: Type.String({ pattern: '^2[0-9]{3}-(0[1-9]|1[0-2])$', description: 'YYYY-MM (years 2000 to 2999)' }) },
  { additionalProperties: false },
);
export const StatementQuerySchema = Type.Object(
  {
    format: opt(StringEnum(['pdf', 'json'] as const, { default: 'pdf', description: 'the PDF file, or its figures' })),
    advertiserId,
  },
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuerySchema>;

export const StatementSchema = Type.Object(
  {
    number: Type.String({ description: 'ADS-<YYYY-MM>-<first 8 characters of the advertiser id>' }),
    advertiser: Type.Object({
      id: IdSchema,
      companyName: Type.String(),
      billingAddress: Type.String(),
      billingTaxId: Nullable(Type.String()),
    }),
    month: Type.String(),
    from: TimestampSchema,
    to: TimestampSchema,
    complete: Type.Boolean({ description: 'false while the month is not over: the figures so far' }),
    currency: Type.String(),
    openingBalance: Type.Integer(),
    topUps: Type.Array(Type.Object({ topUpId: IdSchema, at: TimestampSchema, amount: Type.Integer() })),
    toppedUp: Type.Integer(),
    campaigns: Type.Array(
      Type.Object({
        campaignId: IdSchema,
        name: Type.String(),
        pricingModel: Type.String(),
        impressions: Type.Integer(),
        clicks: Type.Integer(),
        spent: Type.Integer(),
      }),
    ),
    spent: Type.Integer(),
    closingBalance: Type.Integer(),
  },
  { title: 'AdStatement' },
);
export type StatementView = Static<typeof StatementSchema>;
