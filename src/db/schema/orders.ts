import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { PaymentMethod } from '../../shared/payment-methods.js';
import { products } from './products.js';
import { stores } from './stores.js';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const ORDER_STATUSES = ['PENDING', 'CONFIRMED', 'PREPARING', 'READY', 'COMPLETED', 'CANCELLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Where the client's money stands; the refund states are set by the escrow work. */
export const ORDER_PAYMENT_STATUSES = ['UNPAID', 'PAID', 'REFUND_PENDING', 'REFUNDED'] as const;
export type OrderPaymentStatus = (typeof ORDER_PAYMENT_STATUSES)[number];
/** Who moved an order: its client, the supplier or a store member, an administrator, or the platform (timeouts). */
export const ORDER_ACTOR_ROLES = ['CLIENT', 'SUPPLIER', 'STAFF', 'ADMIN', 'SYSTEM'] as const;
export type OrderActorRole = (typeof ORDER_ACTOR_ROLES)[number];

export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => users.id),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    status: text('status').$type<OrderStatus>().notNull().default('PENDING'),
    paymentStatus: text('payment_status').$type<OrderPaymentStatus>().notNull().default('UNPAID'),
    currency: text('currency').notNull(),
    // What the client pays (sum of discounted prices), and what the same items cost at full price.
    itemsTotal: integer('items_total').notNull(),
    originalTotal: integer('original_total').notNull(),
    // Weight of the food in the order (each product's unit weight x quantity), frozen like the
    // prices: the impact figures count the food saved from it.
    itemsWeightGrams: integer('items_weight_grams').notNull().default(0),
    // The supplier's commission rate when the order was made: later changes do not reach it.
    commissionBps: integer('commission_bps').notNull(),
    pickupStartsAt: ts('pickup_starts_at').notNull(),
    pickupEndsAt: ts('pickup_ends_at').notNull(),
    pickupCode: text('pickup_code').notNull(),
    paymentMethod: text('payment_method').$type<PaymentMethod>().notNull(),
    payerPhone: text('payer_phone'),
    note: text('note'),
    cancelReason: text('cancel_reason'),
    idempotencyKey: text('idempotency_key'),
    paymentDeadline: ts('payment_deadline').notNull(),
    paidAt: ts('paid_at'),
    confirmedAt: ts('confirmed_at'),
    completedAt: ts('completed_at'),
    cancelledAt: ts('cancelled_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    check(
      'orders_amounts',
      sql`items_total >= 0 and original_total >= items_total and commission_bps between 0 and 10000`,
    ),
    uniqueIndex('orders_client_idempotency_key')
      .on(t.clientId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    index('orders_client_idx').on(t.clientId, t.createdAt),
    index('orders_supplier_idx').on(t.supplierId, t.createdAt),
    index('orders_store_idx').on(t.storeId, t.createdAt),
    // Work-in-progress checks and the payment-timeout sweep read open orders only.
    index('orders_open_idx').on(t.supplierId, t.storeId).where(sql`status not in ('COMPLETED', 'CANCELLED')`),
  ],
);

export const orderItems = pgTable(
  'order_items',
  {
    id: uuid('id').primaryKey(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id),
    // Snapshots: what the client saw and paid, whatever the product becomes.
    productName: text('product_name').notNull(),
    unitPrice: integer('unit_price').notNull(),
    originalUnitPrice: integer('original_unit_price').notNull(),
    quantity: integer('quantity').notNull(),
  },
  (t) => [
    check(
      'order_items_quantity',
      sql`quantity between 1 and 100 and unit_price >= 0 and original_unit_price >= unit_price`,
    ),
    uniqueIndex('order_items_order_product_key').on(t.orderId, t.productId),
    index('order_items_product_idx').on(t.productId),
  ],
);

/** Every change of an order (creation, payment, status), append-only. */
export const orderStatusHistory = pgTable(
  'order_status_history',
  {
    id: uuid('id').primaryKey(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id),
    // Null on the creation entry.
    fromStatus: text('from_status').$type<OrderStatus>(),
    toStatus: text('to_status').$type<OrderStatus>().notNull(),
    // Null for the platform's own changes (payment timeout, payment received).
    byUserId: uuid('by_user_id').references(() => users.id),
    byRole: text('by_role').$type<OrderActorRole>().notNull(),
    reason: text('reason'),
    at: ts('at').notNull(),
  },
  (t) => [index('order_status_history_order_idx').on(t.orderId, t.at)],
);

/**
 * Food collected per UTC day (orders that became COMPLETED that day, and their frozen weight), kept
 * by a trigger on orders (migration 0030) in the transaction of the pickup, so the impact report
 * reads days, not orders, over long ranges. Sixteen rows a day (by a hash of the order id), so
 * pickups at the same time rarely wait for one another; the upsert is the transaction's last lock.
 */
export const orderDailyCollected = pgTable(
  'order_daily_collected',
  {
    day: date('day', { mode: 'string' }).notNull(),
    shard: smallint('shard').notNull(),
    orders: integer('orders').notNull(),
    weightGrams: bigint('weight_grams', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.shard] })],
);
