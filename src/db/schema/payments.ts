import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { PaymentMethod } from '../../shared/payment-methods.js';
import { orders } from './orders.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * What a payment pays for. Each subject type is declared once by the module that owns it
 * (src/modules/payments/payment-subjects.ts): what a success, a failure or a late payment does.
 */
export const PAYMENT_SUBJECT_TYPES = ['order', 'subscription', 'donation', 'booking', 'advertising_topup'] as const;
export type PaymentSubjectType = (typeof PAYMENT_SUBJECT_TYPES)[number];

export const PAYMENT_STATUSES = [
  'PENDING',
  'SUCCEEDED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
  'REFUND_PENDING',
  'REFUNDED',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * One attempt to collect a subject's amount (an order's, a subscription charge's...) through the
 * provider. `order_id` is kept for orders (its foreign key and the order reads use it) and equals
 * `subject_id` for them; other subjects leave it null. The id is the public
 * `transactionId`, the provider's `client_reference` and the idempotency key of its session.
 */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey(),
    subjectType: text('subject_type').$type<PaymentSubjectType>().notNull().default('order'),
    subjectId: uuid('subject_id').notNull(),
    orderId: uuid('order_id').references(() => orders.id),
    attempt: integer('attempt').notNull(),
    method: text('method').$type<PaymentMethod>().notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    // The wallet allowed to pay (E.164), when the client named one.
    payerPhone: text('payer_phone'),
    status: text('status').$type<PaymentStatus>().notNull().default('PENDING'),
    // Which adapter opened the session ('sandbox' | 'checkout'), once one is open.
    provider: text('provider'),
    providerSessionId: text('provider_session_id'),
    launchUrl: text('launch_url'),
    providerTransactionId: text('provider_transaction_id'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    paidAt: ts('paid_at'),
    expiresAt: ts('expires_at').notNull(),
    refundedAt: ts('refunded_at'),
    // A refund the provider refused for good: administrators settle it by hand.
    refundFailedAt: ts('refund_failed_at'),
    refundFailureReason: text('refund_failure_reason'),
  },
  (t) => [
    check('payments_amount', sql`amount >= 0 and attempt >= 1`),
    check(
      'payments_order_subject',
      sql`case when subject_type = 'order' then order_id is not null and order_id = subject_id else order_id is null end`,
    ),
    uniqueIndex('payments_subject_attempt_key').on(t.subjectType, t.subjectId, t.attempt),
    // At most one attempt of a subject is waiting at a time.
    uniqueIndex('payments_subject_pending_key').on(t.subjectType, t.subjectId).where(sql`status = 'PENDING'`),
    uniqueIndex('payments_provider_session_key').on(t.providerSessionId),
    index('payments_order_idx').on(t.orderId, t.attempt),
    // Reconciliation reads waiting attempts by age; admins list refunds refused for good.
    index('payments_open_idx').on(t.createdAt).where(sql`status in ('PENDING', 'FAILED')`),
    index('payments_refund_failed_idx').on(t.refundFailedAt).where(sql`refund_failed_at is not null`),
  ],
);

export const PROVIDER_EVENT_OUTCOMES = [
  'applied',
  'ignored',
  'rejected_mismatch',
  'unknown_payment',
  'unhandled',
  'refunded',
] as const;
export type ProviderEventOutcome = (typeof PROVIDER_EVENT_OUTCOMES)[number];

/**
 * Every provider event applied, under its provider id: a delivery seen before changes nothing.
 * Inserted in the same transaction as the event's effect. Reconciliation stores the session
 * states it reads under synthetic ids (`recon:<session>:<state>`), so both paths apply once.
 */
export const providerEvents = pgTable(
  'provider_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    paymentId: uuid('payment_id'),
    outcome: text('outcome').$type<ProviderEventOutcome>().notNull(),
    receivedAt: ts('received_at').notNull(),
  },
  (t) => [index('provider_events_payment_idx').on(t.paymentId, t.receivedAt)],
);
