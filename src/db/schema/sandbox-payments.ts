import { bigint, check, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The payment sandbox's provider side (MOBILEMONEY_PROVIDER=sandbox): the sessions and payouts a
 * real provider would keep, stored so that a restart keeps open payment pages working. Nothing
 * else reads these tables; the payments module knows them only through the PaymentProvider interface.
 */
export const sandboxCheckoutSessions = pgTable(
  'sandbox_checkout_sessions',
  {
    id: text('id').primaryKey(),
    // A retried create with the same key gets the same session, as the real provider does.
    idempotencyKey: text('idempotency_key').notNull().unique(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    clientReference: text('client_reference').notNull(),
    checkoutStatus: text('checkout_status').$type<'open' | 'complete' | 'expired'>().notNull(),
    paymentStatus: text('payment_status').$type<'processing' | 'cancelled' | 'succeeded'>().notNull(),
    successUrl: text('success_url').notNull(),
    errorUrl: text('error_url').notNull(),
    payerMobile: text('payer_mobile'),
    transactionId: text('transaction_id'),
    lastPaymentError: jsonb('last_payment_error').$type<{ code: string; message: string }>(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    completedAt: ts('completed_at'),
    refundedAt: ts('refunded_at'),
  },
  (t) => [check('sandbox_checkout_sessions_amount_check', sql`${t.amount} >= 0`)],
);

export const sandboxPayouts = pgTable('sandbox_payouts', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  amount: bigint('amount', { mode: 'number' }).notNull(),
  currency: text('currency').notNull(),
  mobile: text('mobile').notNull(),
  name: text('name').notNull(),
  clientReference: text('client_reference').notNull(),
  status: text('status').$type<'processing' | 'succeeded' | 'failed'>().notNull(),
  error: jsonb('error').$type<{ code: string; message: string }>(),
  createdAt: ts('created_at').notNull(),
});
