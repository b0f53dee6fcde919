import { Type, type Static } from 'typebox';
import { ROLES } from '../users/index.js';
import { IdSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

const opt = Type.Optional;
const UNITS = ['day', 'week', 'month'] as const;
const currency = opt(
  Type.String({
    pattern: '^[A-Z]{3}$',
    default: 'XOF',
    description: 'ISO 4217 code of the money figures (default XOF)',
  }),
);
const range = {
  from: opt(Type.String({ format: 'date-time', description: 'start, included (default: 30 days before `to`)' })),
  to: opt(Type.String({ format: 'date-time', description: 'end, excluded (default: now)' })),
};
const groupBy = opt(StringEnum(UNITS, { default: 'day', description: 'UTC periods; weeks start on Monday' }));

export const StatsQuerySchema = Type.Object({ currency }, { additionalProperties: false });
export type StatsQuery = Static<typeof StatsQuerySchema>;

export const ImpactQuerySchema = Type.Object({ ...range, groupBy, currency }, { additionalProperties: false });
export type ImpactQuery = Static<typeof ImpactQuerySchema>;

export const UserGrowthQuerySchema = Type.Object(
  { ...range, groupBy, role: opt(StringEnum(ROLES, { description: 'only accounts of this role' })) },
  { additionalProperties: false },
);
export type UserGrowthQuery = Static<typeof UserGrowthQuerySchema>;

export const SupplierPerformanceQuerySchema = Type.Object(range, { additionalProperties: false });
export type SupplierPerformanceQuery = Static<typeof SupplierPerformanceQuerySchema>;
export const SupplierParamsSchema = Type.Object({ supplierId: IdSchema }, { additionalProperties: false });

const Num = Type.Union([Type.Number(), Type.Null()]);
const Figure = Type.Union([Num, Type.Record(Type.String(), Type.Union([Num, Type.Record(Type.String(), Num)]))], {
  description: 'a number (a count, or money in minor units), null when unknown, or named sub-figures',
});
const WindowSchema = Type.Object({ from: TimestampSchema, to: TimestampSchema });

export const DashboardStatsSchema = Type.Object(
  {
    generatedAt: TimestampSchema,
    cachedForSeconds: Type.Integer({
      description: 'the answer may be this old (it is computed at most once in that time)',
    }),
    currency: Type.String(),
    windows: Type.Object(
      { today: WindowSchema, last7Days: WindowSchema, last30Days: WindowSchema },
      { description: 'UTC days: today, the last 7 and the last 30 days, each up to now' },
    ),
    sections: Type.Record(Type.String(), Type.Record(Type.String(), Figure), {
      description:
        'figures by section (users, suppliers, catalog, orders, money, moderation...), each given by the module owning them; see docs/analytics.md',
    }),
  },
  { title: 'DashboardStats' },
);
export type DashboardStats = Static<typeof DashboardStatsSchema>;

const Impact = {
  foodKg: Type.Number({ description: 'food that found an eater, kg' }),
  meals: Type.Integer({ description: 'meal equivalents (factors.gramsPerMeal)' }),
  co2eKg: Type.Number({ description: 'greenhouse gas avoided, kg CO2e (factors.co2eKgPerKgFood)' }),
  moneyDonated: Type.Integer({ description: 'money given, minor units of `currency`' }),
};
const BySource = Type.Record(
  Type.String(),
  Type.Object({ count: Type.Integer(), foodKg: Type.Number(), moneyDonated: Type.Integer() }),
  {
    description: 'per activity (orders collected; bookings and donations once they exist)',
  },
);

export const ImpactSchema = Type.Object(
  {
    from: TimestampSchema,
    to: TimestampSchema,
    groupBy: Type.String(),
    currency: Type.String(),
    factors: Type.Object({ gramsPerMeal: Type.Integer(), co2eKgPerKgFood: Type.Number() }),
    sources: Type.Array(Type.String()),
    totals: Type.Object({ ...Impact, bySource: BySource }),
    periods: Type.Array(
      Type.Object({
        period: Type.String({ description: 'first day of the period (UTC), YYYY-MM-DD' }),
        ...Impact,
        bySource: BySource,
      }),
    ),
  },
  { title: 'ImpactReport' },
);

const ByRole = Type.Record(Type.String(), Type.Integer(), { description: 'new accounts by role' });
export const UserGrowthSchema = Type.Object(
  {
    from: TimestampSchema,
    to: TimestampSchema,
    groupBy: Type.String(),
    role: Type.Union([Type.String(), Type.Null()]),
    totals: Type.Object({ total: Type.Integer(), byRole: ByRole }),
    periods: Type.Array(
      Type.Object({
        period: Type.String({ description: 'first day of the period (UTC), YYYY-MM-DD' }),
        total: Type.Integer(),
        byRole: ByRole,
      }),
    ),
  },
  { title: 'UserGrowth' },
);

const Seconds = Type.Union([Type.Integer(), Type.Null()]);
export const SupplierPerformanceSchema = Type.Object(
  {
    supplier: Type.Object({
      id: IdSchema,
      businessName: Type.String(),
      verificationStatus: Type.String(),
      commissionRateBps: Type.Integer(),
    }),
    from: TimestampSchema,
    to: TimestampSchema,
    orders: Type.Object({
      placed: Type.Integer({ description: 'orders placed in the range' }),
      completed: Type.Integer({ description: 'orders collected in the range' }),
      cancelled: Type.Integer({ description: 'orders cancelled in the range' }),
    }),
    cancellations: Type.Object({
      total: Type.Integer(),
      supplier: Type.Integer({ description: 'by the supplier or its staff' }),
      client: Type.Integer(),
      admin: Type.Integer(),
      system: Type.Integer({ description: 'payment never received' }),
    }),
    sales: Type.Object({
      unitsSold: Type.Integer(),
      revenueGross: Type.Integer({
        description: 'what clients paid for the orders collected in the range, minor units',
      }),
      commission: Type.Integer({ description: "the platform's commission on them, at each order's frozen rate" }),
      revenueNet: Type.Integer({ description: 'gross less commission' }),
    }),
    rating: Type.Union([Type.Object({ average: Type.Number(), count: Type.Integer() }), Type.Null()], {
      description: 'from reviews; null while there are none',
    }),
    responseTime: Type.Object(
      {
        confirmedOrders: Type.Integer({ description: 'paid orders confirmed in the range' }),
        averageSeconds: Seconds,
        medianSeconds: Seconds,
      },
      { description: 'from payment received to CONFIRMED, from the order status history' },
    ),
  },
  { title: 'SupplierPerformance' },
);
