import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { PaymentMethod } from '../../shared/payment-methods.js';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// ACTIVE until its end; CANCELLED when replaced or cancelled; EXPIRED when its period ended unpaid.
export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'CANCELLED', 'EXPIRED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** What a supplier may do on the platform. The FREE plan is seeded by the migration. */
export const subscriptionPlans = pgTable(
  'subscription_plans',
  {
    id: uuid('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    // null: unlimited.
    maxProducts: integer('max_products'),
    // Minor units of `currency` per period; 0 for free plans.
    priceAmount: integer('price_amount').notNull().default(0),
    currency: text('currency').notNull().default('XOF'),
    periodDays: integer('period_days'),
    // Taken off the supplier's commission rate while subscribed (basis points).
    commissionDiscountBps: integer('commission_discount_bps').notNull().default(0),
    features: jsonb('features').$type<string[]>().notNull().default([]),
    isPublic: boolean('is_public').notNull().default(true),
    sortOrder: integer('sort_order').notNull().default(0),
    isActive: boolean('is_active').notNull().default(true),
    // Deleted by an administrator: kept for the charges and subscriptions that name it; its code stays taken.
    deletedAt: ts('deleted_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('subscription_plans_code_key').on(t.code),
    check(
      'subscription_plans_values',
      sql`price_amount >= 0 and (max_products is null or max_products >= 0) and commission_discount_bps between 0 and 10000 and (price_amount = 0 or period_days > 0)`,
    ),
  ],
);

/** A supplier's plan over time. No ACTIVE row means the FREE plan. */
export const supplierSubscriptions = pgTable(
  'supplier_subscriptions',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    planId: uuid('plan_id')
      .notNull()
      .references(() => subscriptionPlans.id),
    status: text('status').$type<SubscriptionStatus>().notNull(),
    startedAt: ts('started_at').notNull(),
    endsAt: ts('ends_at'),
    cancelledAt: ts('cancelled_at'),
    // The supplier cancelled: the plan stays until endsAt, then FREE (the sweep job).
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    // The "ends in 3 days" notice went out for the current endsAt (cleared when a renewal moves it).
    expiryWarnedAt: ts('expiry_warned_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // At most one running subscription per supplier.
    uniqueIndex('supplier_subscriptions_active_key').on(t.supplierId).where(sql`status = 'ACTIVE'`),
    index('supplier_subscriptions_supplier_idx').on(t.supplierId, t.startedAt),
    // The sweep job reads running subscriptions by end date.
    index('supplier_subscriptions_ends_idx').on(t.endsAt).where(sql`status = 'ACTIVE' and ends_at is not null`),
  ],
);

export const CHARGE_KINDS = ['SUBSCRIBE', 'RENEW'] as const;
export type ChargeKind = (typeof CHARGE_KINDS)[number];
export const CHARGE_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'CANCELLED', 'REFUNDED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/**
 * One period of a paid plan to be paid for: the subject of its payments (`subject_type`
 * 'subscription'). Its price is frozen here when it is created (a plan's price change applies to
 * the next charge); a promo code's use is reserved by a PENDING charge and counted when it is PAID.
 */
export const subscriptionCharges = pgTable(
  'subscription_charges',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    // The supplier's account: who pays and is notified.
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    planId: uuid('plan_id')
      .notNull()
      .references(() => subscriptionPlans.id),
    kind: text('kind').$type<ChargeKind>().notNull(),
    // RENEW: the subscription whose period it extends.
    subscriptionId: uuid('subscription_id').references(() => supplierSubscriptions.id),
    status: text('status').$type<ChargeStatus>().notNull().default('PENDING'),
    method: text('method').$type<PaymentMethod>(),
    listPrice: integer('list_price').notNull(),
    discountAmount: integer('discount_amount').notNull().default(0),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    periodDays: integer('period_days').notNull(),
    promoCodeId: uuid('promo_code_id').references(() => promoCodes.id),
    expiresAt: ts('expires_at').notNull(),
    paidAt: ts('paid_at'),
    // The subscription its payment started or extended: what a refund takes the period back from.
    appliedSubscriptionId: uuid('applied_subscription_id').references(() => supplierSubscriptions.id),
    refundedAt: ts('refunded_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    check(
      'subscription_charges_amounts',
      sql`list_price >= 0 and discount_amount >= 0 and amount = list_price - discount_amount and amount >= 0 and period_days > 0`,
    ),
    // One charge waits for its payment at a time per supplier (a new one replaces it).
    uniqueIndex('subscription_charges_pending_key').on(t.supplierId).where(sql`status = 'PENDING'`),
    index('subscription_charges_supplier_idx').on(t.supplierId, t.createdAt),
    index('subscription_charges_promo_idx').on(t.promoCodeId, t.supplierId).where(sql`promo_code_id is not null`),
  ],
);

/**
 * A promo code: a percentage (bps) or a fixed amount off a paid plan's price. The code is unique
 * whatever its case (an expression index on lower(code)). `uses_count` counts paid charges.
 */
export const promoCodes = pgTable(
  'promo_codes',
  {
    id: uuid('id').primaryKey(),
    code: text('code').notNull(),
    description: text('description').notNull().default(''),
    discountBps: integer('discount_bps'),
    discountAmount: integer('discount_amount'),
    currency: text('currency').notNull().default('XOF'),
    // Empty: every paid plan.
    planIds: uuid('plan_ids').array().notNull().default(sql`'{}'::uuid[]`),
    validFrom: ts('valid_from'),
    validUntil: ts('valid_until'),
    maxUses: integer('max_uses'),
    maxUsesPerSupplier: integer('max_uses_per_supplier'),
    firstSubscriptionOnly: boolean('first_subscription_only').notNull().default(false),
    isPublic: boolean('is_public').notNull().default(false),
    disabledAt: ts('disabled_at'),
    usesCount: integer('uses_count').notNull().default(0),
    // Codes made together by the bulk route share it.
    batchId: uuid('batch_id'),
    createdBy: uuid('created_by').references(() => users.id),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('promo_codes_code_key').using('btree', sql`lower(${t.code})`),
    check(
      'promo_codes_discount',
      sql`(discount_bps is null) <> (discount_amount is null) and (discount_bps is null or discount_bps between 1 and 10000) and (discount_amount is null or discount_amount > 0)`,
    ),
    check(
      'promo_codes_uses',
      sql`uses_count >= 0 and (max_uses is null or max_uses >= 1) and (max_uses_per_supplier is null or max_uses_per_supplier >= 1)`,
    ),
    index('promo_codes_public_idx').on(t.createdAt).where(sql`is_public and disabled_at is null`),
  ],
);
