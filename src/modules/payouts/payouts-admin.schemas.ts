import { Type, type Static } from 'typebox';
import { PAYOUT_STATES } from '../../db/schema/payouts.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

const opt = Type.Optional;
const PAYEES = ['supplier', 'association'] as const;

export const PayoutListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    state: opt(StringEnum(PAYOUT_STATES)),
    payee: opt(
      StringEnum(PAYEES, { description: 'suppliers (released escrows) or associations (financial donations)' }),
    ),
    supplierId: opt(IdSchema),
    associationId: opt(IdSchema),
    waiting: opt(Type.Boolean({ description: 'true: PENDING payouts waiting for a payout number' })),
    from: opt(Type.String({ format: 'date-time', description: 'created at or after (included)' })),
    to: opt(Type.String({ format: 'date-time', description: 'created before (excluded)' })),
  },
  { additionalProperties: false },
);
export type PayoutListQuery = Static<typeof PayoutListQuerySchema>;

export const AdminPayoutSchema = Type.Object(
  {
    id: IdSchema,
    state: StringEnum(PAYOUT_STATES),
    amount: Type.Integer({ description: 'paid out, in minor units' }),
    currency: Type.String(),
    payee: Type.Object({ type: StringEnum(PAYEES), id: IdSchema, name: Type.String() }),
    orderId: Nullable(IdSchema),
    bookingId: Nullable(IdSchema),
    donationId: Nullable(IdSchema),
    mobile: Nullable(Type.String({ description: 'the wallet the last try was sent to' })),
    waitingReason: Nullable(Type.String({ description: 'NO_PAYOUT_PHONE while the payee has no payout number' })),
    providerPayoutId: Nullable(Type.String()),
    attempts: Type.Integer(),
    lastError: Nullable(Type.String()),
    createdAt: TimestampSchema,
    sentAt: Nullable(TimestampSchema),
    succeededAt: Nullable(TimestampSchema),
    failedAt: Nullable(TimestampSchema),
  },
  { title: 'AdminPayout' },
);
