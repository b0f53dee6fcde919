import { Type, type Static } from 'typebox';
import { ESCROW_STATES } from '../escrow/index.js';
import { PAYOUT_STATES } from '../payouts/index.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

const opt = Type.Optional;
const currency = opt(
  Type.String({ pattern: '^[A-Z]{3}$', default: 'XOF', description: 'ISO 4217 code (default XOF)' }),
);

export const BalanceQuerySchema = Type.Object({ currency }, { additionalProperties: false });
export type BalanceQuery = Static<typeof BalanceQuerySchema>;

export const SupplierBalanceSchema = Type.Object(
  {
    currency: Type.String(),
    heldInEscrow: Type.Integer({
      description: 'paid by clients, held in the escrow of your orders until released or refunded',
    }),
    payable: Type.Integer({ description: 'released to you (net of commission), not paid out yet' }),
    paidOut: Type.Integer({ description: 'paid out to your wallet (payouts the provider confirmed)' }),
    released: Type.Integer({ description: 'released to you in all, net of commission (payable + paidOut)' }),
  },
  { title: 'SupplierBalance' },
);

export const PayoutsQuerySchema = PageQuerySchema;

export const SupplierPayoutSchema = Type.Object(
  {
    id: IdSchema,
    orderId: Nullable(IdSchema),
    bookingId: Nullable(IdSchema),
    amount: Type.Integer(),
    currency: Type.String(),
    state: StringEnum(PAYOUT_STATES),
    mobile: Nullable(Type.String()),
    waitingReason: Nullable(Type.String({ description: 'NO_PAYOUT_PHONE: set a payout number in the profile' })),
    lastError: Nullable(Type.String()),
    createdAt: TimestampSchema,
    sentAt: Nullable(TimestampSchema),
    succeededAt: Nullable(TimestampSchema),
    failedAt: Nullable(TimestampSchema),
  },
  { title: 'SupplierPayout' },
);

export const StatementQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    from: opt(
      Type.String({ format: 'date-time', description: 'orders paid from, included (default: 30 days before `to`)' }),
    ),
    to: opt(Type.String({ format: 'date-time', description: 'orders paid before, excluded (default: now)' })),
    currency,
    format: opt(
      StringEnum(['json', 'csv'] as const, {
        default: 'json',
        description: 'csv: every line of the range as a file (page and limit ignored)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuerySchema>;

export const SettlementLineSchema = Type.Object(
  {
    orderId: IdSchema,
    orderStatus: Type.String(),
    paidAt: TimestampSchema,
    currency: Type.String(),
    gross: Type.Integer({ description: "the client's payment, credited to the order's escrow" }),
    commission: Nullable(Type.Integer({ description: 'taken at the release; null until released' })),
    net: Nullable(
      Type.Integer({ description: 'credited to you at the release (gross - commission); null until released' }),
    ),
    escrowState: StringEnum(ESCROW_STATES),
    releaseDate: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'when the money was released, or when it will be (order collected, no dispute); null before the order is collected',
      }),
    ),
    refundedAt: Nullable(TimestampSchema),
    payout: Nullable(
      Type.Object(
        { id: IdSchema, state: StringEnum(PAYOUT_STATES), succeededAt: Nullable(TimestampSchema) },
        { title: 'SettlementPayout' },
      ),
    ),
  },
  { title: 'SettlementLine' },
);
export type SettlementLine = Static<typeof SettlementLineSchema>;
