import { Type } from 'typebox';
import { PAYMENT_STATUSES } from '../../db/schema/payments.js';
import { IdSchema, Nullable, StringEnum, TimestampSchema } from '../../shared/schemas.js';

/** A payment attempt as every payer reads it (`toPaymentView`): of an order, a subscription charge, a donation. */
export const PaymentSchema = Type.Object(
  {
    transactionId: IdSchema,
    method: Type.String(),
    status: StringEnum(PAYMENT_STATUSES),
    amount: Type.Integer(),
    currency: Type.String(),
    attempt: Type.Integer(),
    redirectUrl: Nullable(
      Type.String({
        description: 'the provider page the client opens to pay; null once closed or while it is being opened',
      }),
    ),
    retryAfterSeconds: Nullable(
      Type.Integer({
        description:
          'while PENDING without redirectUrl (the page is being opened): seconds after which to read the payment again; null otherwise',
      }),
    ),
    expiresAt: TimestampSchema,
    paidAt: Nullable(TimestampSchema),
    failureReason: Nullable(Type.String()),
  },
  { title: 'Payment' },
);
