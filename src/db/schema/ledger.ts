import { bigint, char, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The double-entry ledger: append-only (triggers refuse UPDATE and DELETE) and balanced (a deferred
 * constraint trigger refuses, at commit, a transaction whose lines do not sum to zero or that has
 * fewer than two lines). Only src/modules/ledger reads or writes these tables.
 */
export const ledgerTransactions = pgTable(
  'ledger_transactions',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').notNull(),
    referenceType: text('reference_type').notNull(),
    referenceId: uuid('reference_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique('ledger_transactions_idempotency_key_unique'),
    currency: char('currency', { length: 3 }).notNull(),
    memo: text('memo'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('ledger_transactions_reference_idx').on(t.referenceType, t.referenceId, t.createdAt)],
);

export const ledgerLines = pgTable(
  'ledger_lines',
  {
    id: uuid('id').primaryKey(),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => ledgerTransactions.id),
    account: text('account').notNull(),
    // bigint in the database; amounts stay far below 2^53, so they are read as numbers.
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: char('currency', { length: 3 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  // Financial reports read the lines of a time range.
  (t) => [
    index('ledger_lines_account_idx').on(t.account),
    index('ledger_lines_transaction_idx').on(t.transactionId),
    index('ledger_lines_created_idx').on(t.createdAt),
  ],
);

/**
 * The escrow accounts holding money now, with their balance: kept by a trigger on ledger_lines
 * (migration 0030) in the transaction that posts the lines, a row removed when its balance comes
 * back to zero. What escrow holds in total is then a sum over open escrows only, whatever the
 * number of orders ever paid; each row is touched only by the postings of its own order, so no
 * two unrelated payments wait for each other. Rebuilt from the lines by the migration.
 */
export const ledgerOpenEscrows = pgTable('ledger_open_escrows', {
  account: text('account').primaryKey(),
  currency: char('currency', { length: 3 }).notNull(),
  balance: bigint('balance', { mode: 'number' }).notNull(),
});
