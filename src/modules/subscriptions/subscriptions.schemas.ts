import { Type, type Static } from 'typebox';
import { SUBSCRIPTION_STATUSES } from '../../db/schema/subscriptions.js';
import { Nullable, StringEnum, TimestampSchema } from '../../shared/schemas.js';

export const PlanSchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  maxProducts: Type.Integer(),
  priceAmount: Type.Integer({ description: 'price per period in minor units of the currency (XOF has none); 0 for free plans' }),
  currency: Type.String(),
  periodDays: Nullable(Type.Integer()),
}, { title: 'Plan' });
export type PlanView = Static<typeof PlanSchema>;

export const LimitsSchema = Type.Object({
  allowed: Type.Boolean({ description: 'whether one more product may be created under the current plan' }),
  maxProducts: Type.Integer(),
  currentProducts: Type.Integer(),
  remaining: Type.Integer(),
  plan: PlanSchema,
  subscription: Nullable(
    Type.Object({
      status: StringEnum(SUBSCRIPTION_STATUSES),
      startedAt: TimestampSchema,
      endsAt: Nullable(TimestampSchema),
    }),
    // null: no subscription was ever taken, the supplier is on the FREE plan.
  ),
}, { title: 'PlanLimits' });
export type LimitsView = Static<typeof LimitsSchema>;

export const ChangePlanBodySchema = Type.Object(
  { planCode: Type.String({ pattern: '^[A-Za-z0-9_-]{2,32}$', description: 'code of the plan, e.g. FREE' }) },
  { additionalProperties: false },
);
