import { Type, type Static } from 'typebox';
import { PAYMENT_STATUSES } from '../payments/index.js';
import { IdSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

const opt = Type.Optional;
const UNITS = ['day', 'week', 'month'] as const;
const range = {
  from: opt(Type.String({ format: 'date-time', description: 'start, included (default: 30 days before `to`)' })),
  to: opt(Type.String({ format: 'date-time', description: 'end, excluded (default: now)' })),
  currency: opt(Type.String({ pattern: '^[A-Z]{3}$', default: 'XOF', description: 'ISO 4217 code (default XOF)' })),
};

export const StatisticsQuerySchema = Type.Object(
  { ...range, period: opt(StringEnum(UNITS, { default: 'day', description: 'UTC periods; weeks start on Monday' })) },
  { additionalProperties: false },
);
export type StatisticsQuery = Static<typeof StatisticsQuerySchema>;

export const FinancialQuerySchema = Type.Object(
  {
    ...range,
    groupBy: opt(StringEnum(UNITS, { default: 'day', description: 'UTC periods; weeks start on Monday' })),
    format: opt(StringEnum(['json', 'csv'] as const, { default: 'json' })),
  },
  { additionalProperties: false },
);
export type FinancialQuery = Static<typeof FinancialQuerySchema>;

export const TopProductsQuerySchema = Type.Object(
  {
    period: opt(
      StringEnum(['day', 'week', 'month', 'year'] as const, {
        default: 'month',
        description: 'the last 1, 7, 30 or 365 days (unless from/to are given)',
      }),
    ),
    from: range.from,
    to: range.to,
    limit: opt(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  },
  { additionalProperties: false },
);
export type TopProductsQuery = Static<typeof TopProductsQuerySchema>;

const Figure = Type.Object({
  count: Type.Integer(),
  volume: Type.Integer({ description: 'sum of amounts, minor units' }),
});

export const PaymentStatisticsSchema = Type.Object(
  {
    from: TimestampSchema,
    to: TimestampSchema,
    period: Type.String(),
    currency: Type.String(),
    totals: Figure,
    byStatus: Type.Array(Type.Object({ status: StringEnum(PAYMENT_STATUSES), ...Figure.properties })),
    byMethod: Type.Array(Type.Object({ method: Type.String(), ...Figure.properties, succeeded: Figure })),
    perPeriod: Type.Array(
      Type.Object({
        period: Type.String({ description: 'first day of the period (UTC), YYYY-MM-DD' }),
        ...Figure.properties,
        succeeded: Figure,
      }),
    ),
  },
  { title: 'PaymentStatistics' },
);

const Money = Type.Object({
  gmv: Type.Integer({ description: 'payments received into escrow' }),
  commission: Type.Integer({ description: 'commission earned at releases' }),
  refunds: Type.Integer({ description: 'refunds decided (escrow sent back to clients)' }),
  payouts: Type.Integer({ description: 'paid out to suppliers (confirmed by the provider)' }),
  advertising: Type.Integer({
    description: "advertising revenue: advertisers' spend paid from their prepaid balances",
  }),
  heldInEscrow: Type.Integer({ description: 'held in escrow at the end of the period' }),
});

export const FinancialReportSchema = Type.Object(
  {
    from: TimestampSchema,
    to: TimestampSchema,
    groupBy: Type.String(),
    currency: Type.String(),
    periods: Type.Array(
      Type.Object({
        period: Type.String({ description: 'first day of the period (UTC), YYYY-MM-DD' }),
        ...Money.properties,
      }),
    ),
    totals: Money,
  },
  { title: 'FinancialReport' },
);
export type FinancialReport = Static<typeof FinancialReportSchema>;

const ProductFigure = Type.Object({
  productId: IdSchema,
  name: Type.String(),
  storeId: IdSchema,
  storeName: Type.String(),
  supplierId: IdSchema,
  unitsSold: Type.Integer(),
  revenue: Type.Integer({ description: 'what clients paid for it, minor units' }),
  orders: Type.Integer(),
});

export const TopProductsSchema = Type.Object(
  {
    from: TimestampSchema,
    to: TimestampSchema,
    byUnits: Type.Array(ProductFigure),
    byRevenue: Type.Array(ProductFigure),
  },
  { title: 'TopProducts' },
);
