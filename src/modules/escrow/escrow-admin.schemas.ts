import { Type, type Static } from 'typebox';
import { ESCROW_STATES } from '../../db/schema/escrow.js';
import { PAYOUT_STATES } from '../payouts/index.js';
import {
  IdSchema,
  Nullable,
  PageQuerySchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';

const opt = Type.Optional;

export const OrderIdParamsSchema = Type.Object({ orderId: IdSchema }, { additionalProperties: false });

export const ReasonBodySchema = Type.Object(
  {
    reason: Type.String({
      minLength: 3,
      maxLength: 1000,
      description: 'why: kept in the audit log and told to the parties',
    }),
  },
  { additionalProperties: false },
);
export type ReasonBody = Static<typeof ReasonBodySchema>;

export const ESCROW_SORT_FIELDS = [
  'heldAt',
  'amount',
  'state',
  'releaseAfter',
  'releasedAt',
  'refundedAt',
  'updatedAt',
] as const;
export type EscrowSortField = (typeof ESCROW_SORT_FIELDS)[number];

export const EscrowListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    sort: SortQuerySchema('EscrowSort', ESCROW_SORT_FIELDS, '-heldAt (newest held first)'),
    state: opt(StringEnum(ESCROW_STATES)),
    supplierId: opt(IdSchema),
    storeId: opt(IdSchema),
    from: opt(Type.String({ format: 'date-time', description: 'held at or after (included)' })),
    to: opt(Type.String({ format: 'date-time', description: 'held before (excluded)' })),
    payout: opt(
      StringEnum([...PAYOUT_STATES.map((s) => s.toLowerCase()), 'none'] as const, {
        description: "the state of the order's payout (`failed`: payouts refused for good); `none`: no payout yet",
      }),
    ),
  },
  { additionalProperties: false },
);
export type EscrowListQuery = Static<typeof EscrowListQuerySchema>;

export const PayoutSchema = Type.Object(
  {
    id: IdSchema,
    supplierId: IdSchema,
    orderId: IdSchema,
    amount: Type.Integer(),
    currency: Type.String(),
    mobile: Nullable(Type.String()),
    state: StringEnum(PAYOUT_STATES),
    waitingReason: Nullable(Type.String({ description: 'NO_PAYOUT_PHONE while the supplier has no payout number' })),
    providerPayoutId: Nullable(Type.String()),
    attempts: Type.Integer(),
    lastError: Nullable(Type.String()),
    releaseTransactionId: IdSchema,
    createdAt: TimestampSchema,
    sentAt: Nullable(TimestampSchema),
    succeededAt: Nullable(TimestampSchema),
    failedAt: Nullable(TimestampSchema),
  },
  { title: 'Payout' },
);

export const EscrowSchema = Type.Object(
  {
    orderId: IdSchema,
    paymentId: IdSchema,
    state: StringEnum(ESCROW_STATES),
    amount: Type.Integer({ description: 'held, in minor units' }),
    currency: Type.String(),
    commissionBps: Type.Integer({ description: "the order's frozen commission rate" }),
    commission: Type.Integer({ description: 'what the platform keeps at release (half up)' }),
    net: Type.Integer({ description: 'what the supplier receives at release' }),
    heldAt: TimestampSchema,
    releaseAfter: Nullable(TimestampSchema),
    releasedAt: Nullable(TimestampSchema),
    refundedAt: Nullable(TimestampSchema),
    refundReason: Nullable(Type.String()),
    dispute: Nullable(
      Type.Object({
        reason: Nullable(Type.String()),
        openedAt: Nullable(TimestampSchema),
        resolvedAt: Nullable(TimestampSchema),
      }),
    ),
    order: Type.Object({
      status: Type.String(),
      createdAt: TimestampSchema,
      completedAt: Nullable(TimestampSchema),
      client: Type.Object({ id: IdSchema, firstName: Type.String(), lastName: Type.String() }),
      supplier: Type.Object({ id: IdSchema, businessName: Type.String() }),
      store: Type.Object({ id: IdSchema, name: Type.String() }),
    }),
    payout: Nullable(PayoutSchema),
    updatedAt: TimestampSchema,
  },
  { title: 'Escrow' },
);

const LedgerTransactionSchema = Type.Object({
  id: IdSchema,
  kind: Type.String(),
  reference: Type.Object({ type: Type.String(), id: IdSchema }),
  memo: Nullable(Type.String()),
  currency: Type.String(),
  createdAt: TimestampSchema,
  lines: Type.Array(
    Type.Object({ account: Type.String(), amount: Type.Integer({ description: '> 0 debit, < 0 credit' }) }),
  ),
});

export const EscrowDetailSchema = Type.Object(
  {
    escrow: EscrowSchema,
    payments: Type.Array(
      Type.Object({
        transactionId: IdSchema,
        attempt: Type.Integer(),
        method: Type.String(),
        status: Type.String(),
        amount: Type.Integer(),
        currency: Type.String(),
        providerSessionId: Nullable(Type.String()),
        paidAt: Nullable(TimestampSchema),
        refundedAt: Nullable(TimestampSchema),
        refundFailedAt: Nullable(TimestampSchema),
        refundFailureReason: Nullable(Type.String()),
      }),
    ),
    ledger: Type.Array(LedgerTransactionSchema),
    providerEvents: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.String(),
        paymentId: Nullable(IdSchema),
        outcome: Type.String(),
        receivedAt: TimestampSchema,
      }),
    ),
    payouts: Type.Array(PayoutSchema),
    audit: Type.Array(
      Type.Object({ action: Type.String(), actorId: IdSchema, reason: Nullable(Type.String()), at: TimestampSchema }),
    ),
  },
  { title: 'EscrowDetail' },
);
