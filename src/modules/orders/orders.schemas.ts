import { Type, type Static } from 'typebox';
import { ORDER_ACTOR_ROLES, ORDER_PAYMENT_STATUSES, ORDER_STATUSES } from '../../db/schema/orders.js';
import { PAYMENT_METHODS } from '../../providers/payments/types.js';
import { IdSchema, Nullable, PageQuerySchema, PhoneSchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { PaymentSchema } from '../payments/index.js';
import { PERIODS } from './orders-statistics.repository.js';

export const MAX_ORDER_ITEMS = 20;
export const MAX_ITEM_QUANTITY = 100;
/** The most one order may come to, in XOF: the ceiling of one payment on the platform, as a financial donation's. */
export const MAX_ORDER_AMOUNT = 5_000_000;
/** Amounts are recorded in 32-bit columns: the value before discounts must fit too. */
const MAX_RECORDED_AMOUNT = 2_147_483_647;
export const orderAmountTooLarge = (itemsTotal: number, originalTotal: number) =>
  itemsTotal > MAX_ORDER_AMOUNT || originalTotal > MAX_RECORDED_AMOUNT;

const Status = StringEnum(ORDER_STATUSES);
const Method = StringEnum(PAYMENT_METHODS, {
  description: 'wave, orangeMoney, freeMoney or card; must be enabled in the settings',
});
const strict = { additionalProperties: false } as const;

export const OrderParamsSchema = Type.Object({ id: IdSchema }, strict);
export const OrderIdParamsSchema = Type.Object({ orderId: IdSchema }, strict);
export const TransactionParamsSchema = Type.Object({ transactionId: IdSchema }, strict);

export const CreateOrderBodySchema = Type.Object(
  {
    items: Type.Array(
      Type.Object({ productId: IdSchema, quantity: Type.Integer({ minimum: 1, maximum: MAX_ITEM_QUANTITY }) }, strict),
      {
        minItems: 1,
        maxItems: MAX_ORDER_ITEMS,
        description: `1 to ${MAX_ORDER_ITEMS} products, all of one store, each once`,
      },
    ),
    paymentMethod: Method,
    payerPhone: Type.Optional(PhoneSchema),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  strict,
);
export type CreateOrderBody = Static<typeof CreateOrderBodySchema>;

export const StatusBodySchema = Type.Object(
  {
    status: StringEnum(['CONFIRMED', 'PREPARING', 'READY', 'COMPLETED', 'CANCELLED'] as const),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'required to cancel' })),
    pickupCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 600,
        description: 'the code the client shows, or the token of its QR code (to complete)',
      }),
    ),
  },
  strict,
);
export type StatusBody = Static<typeof StatusBodySchema>;

export const CancelBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
  strict,
);

export const MyOrdersQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: Type.Optional(Status) },
  strict,
);
export type MyOrdersQuery = Static<typeof MyOrdersQuerySchema>;

export const SupplierOrdersQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: Type.Optional(Status),
    storeId: Type.Optional(IdSchema),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
  },
  strict,
);
export type SupplierOrdersQuery = Static<typeof SupplierOrdersQuerySchema>;

export const SupplierStatisticsQuerySchema = Type.Object(
  {
    period: Type.Optional(
      StringEnum(Object.keys(PERIODS) as (keyof typeof PERIODS)[], {
        default: 'day',
        description: 'day (last 30), week (last 12) or month (last 12), UTC',
      }),
    ),
    storeId: Type.Optional(IdSchema),
  },
  strict,
);
export type SupplierStatisticsQuery = Static<typeof SupplierStatisticsQuerySchema>;

const ItemSchema = Type.Object(
  {
    productId: IdSchema,
    name: Type.String(),
    unitPrice: Type.Integer(),
    originalUnitPrice: Type.Integer(),
    quantity: Type.Integer(),
    lineTotal: Type.Integer(),
  },
  { title: 'OrderItem' },
);

const orderFields = {
  id: IdSchema,
  status: Status,
  paymentStatus: StringEnum(ORDER_PAYMENT_STATUSES),
  clientId: IdSchema,
  supplierId: IdSchema,
  storeId: IdSchema,
  storeName: Nullable(Type.String()),
  items: Type.Array(ItemSchema),
  currency: Type.String(),
  itemsTotal: Type.Integer({ description: 'what the client pays' }),
  originalTotal: Type.Integer({ description: 'the same items at full price' }),
  savings: Type.Integer(),
  pickup: Type.Object(
    {
      startsAt: TimestampSchema,
      endsAt: TimestampSchema,
      code: Nullable(Type.String({ description: 'shown to the client only' })),
    },
    { title: 'OrderPickup' },
  ),
  paymentMethod: Type.String(),
  payerPhone: Nullable(Type.String()),
  note: Nullable(Type.String()),
  cancelReason: Nullable(Type.String()),
  paymentDeadline: TimestampSchema,
  payment: Nullable(PaymentSchema),
  paidAt: Nullable(TimestampSchema),
  completedAt: Nullable(TimestampSchema),
  cancelledAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
};

export const OrderSchema = Type.Object(orderFields, { title: 'Order' });
export type OrderView = Static<typeof OrderSchema>;

export const CreatedOrderSchema = Type.Object(
  { ...orderFields, message: Type.String({ description: 'what the client does next' }) },
  { title: 'CreatedOrder' },
);

export const HistorySchema = Type.Object(
  {
    fromStatus: Nullable(Status),
    toStatus: Status,
    byUserId: Nullable(IdSchema),
    byRole: StringEnum(ORDER_ACTOR_ROLES),
    reason: Nullable(Type.String()),
    at: TimestampSchema,
  },
  { title: 'OrderHistoryEntry' },
);

export const OrderDetailSchema = Type.Object(
  {
    ...orderFields,
    client: Type.Object({ id: IdSchema, firstName: Nullable(Type.String()), lastName: Nullable(Type.String()) }),
    supplier: Type.Object({ id: IdSchema, businessName: Nullable(Type.String()) }),
    store: Type.Object({
      id: IdSchema,
      name: Nullable(Type.String()),
      address: Nullable(Type.String()),
      city: Nullable(Type.String()),
      timezone: Nullable(Type.String()),
    }),
    payments: Type.Array(PaymentSchema, { description: 'every attempt, latest first' }),
    history: Type.Array(HistorySchema),
  },
  { title: 'OrderDetail' },
);
export type OrderDetailView = Static<typeof OrderDetailSchema>;

const StatusCounts = Type.Record(Type.String(), Type.Integer(), {
  description: 'orders per status (statuses with none are 0)',
});

export const ClientStatisticsSchema = Type.Object({
  currency: Type.String(),
  totalOrders: Type.Integer(),
  ordersByStatus: StatusCounts,
  paidOrders: Type.Integer({ description: 'paid and not cancelled' }),
  totalSpent: Type.Integer({ description: 'what paid, not cancelled orders cost' }),
  savings: Type.Integer({ description: 'full price minus price paid, over the same orders' }),
});

export const SupplierStatisticsSchema = Type.Object({
  currency: Type.String(),
  period: Type.String(),
  totalOrders: Type.Integer(),
  ordersByStatus: StatusCounts,
  sales: Type.Object({
    completedOrders: Type.Integer(),
    unitsSold: Type.Integer(),
    revenueGross: Type.Integer({ description: 'what clients paid for completed orders' }),
    commission: Type.Integer({
      description: "the platform commission of those orders, at each order's frozen rate, half up",
    }),
    revenueNet: Type.Integer(),
  }),
  ordersPerPeriod: Type.Array(
    Type.Object({
      periodStart: Type.String({ format: 'date' }),
      orders: Type.Integer(),
      completedOrders: Type.Integer(),
      revenueGross: Type.Integer(),
    }),
  ),
  popularProducts: Type.Array(
    Type.Object({
      productId: IdSchema,
      name: Type.String(),
      unitsSold: Type.Integer(),
      orders: Type.Integer(),
      revenue: Type.Integer(),
    }),
  ),
  balances: Nullable(
    Type.Object(
      { escrowHeld: Type.Integer(), released: Type.Integer(), paidOut: Type.Integer() },
      { description: 'from the ledger; null until it reports' },
    ),
  ),
});

export const PaymentMethodSchema = Type.Object(
  {
    method: Type.String(),
    displayName: Type.String(),
    kind: StringEnum(['mobile_money', 'card'] as const),
    feeBps: Type.Integer(),
  },
  { title: 'PaymentMethodOffer' },
);

export const PaymentStatusSchema = Type.Object(
  {
    orderId: IdSchema,
    orderStatus: Status,
    paymentStatus: StringEnum(ORDER_PAYMENT_STATUSES),
    payment: Nullable(PaymentSchema),
    attempts: Type.Integer(),
  },
  { title: 'OrderPaymentStatus' },
);
