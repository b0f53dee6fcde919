import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { supplierProfiles } from './suppliers.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'CANCELLED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** What a supplier may do on the platform. The FREE plan is seeded by the migration. */
export const subscriptionPlans = pgTable(
  'subscription_plans',
  {
    id: uuid('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    maxProducts: integer('max_products').notNull(),
    // Minor units of `currency` per period; 0 for free plans.
    priceAmount: integer('price_amount').notNull().default(0),
    currency: text('currency').notNull().default('XOF'),
    periodDays: integer('period_days'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('subscription_plans_code_key').on(t.code)],
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
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // At most one running subscription per supplier.
    uniqueIndex('supplier_subscriptions_active_key').on(t.supplierId).where(sql`status = 'ACTIVE'`),
    index('supplier_subscriptions_supplier_idx').on(t.supplierId, t.startedAt),
  ],
);
