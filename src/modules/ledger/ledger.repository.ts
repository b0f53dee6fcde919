import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import { ledgerLines, ledgerTransactions } from '../../db/schema/ledger.js';

export type TransactionRow = typeof ledgerTransactions.$inferSelect;
export type LineRow = typeof ledgerLines.$inferSelect;

/** Inserts the transaction unless its idempotency key exists; answers whether it did. */
export async function insertTransaction(ex: Executor, row: TransactionRow): Promise<boolean> {
  const inserted = await ex
    .insert(ledgerTransactions)
    .values(row)
    .onConflictDoNothing({ target: ledgerTransactions.idempotencyKey })
    .returning({ id: ledgerTransactions.id });
  return inserted.length === 1;
}

export async function insertLines(ex: Executor, lines: LineRow[]): Promise<void> {
  await ex.insert(ledgerLines).values(lines);
}

export async function transactionByKey(ex: Executor, key: string): Promise<TransactionRow | undefined> {
  const [row] = await ex.select().from(ledgerTransactions).where(eq(ledgerTransactions.idempotencyKey, key));
  return row;
}

export function transactionsByReference(ex: Executor, type: string, id: string): Promise<TransactionRow[]> {
  return ex
    .select()
    .from(ledgerTransactions)
    .where(and(eq(ledgerTransactions.referenceType, type), eq(ledgerTransactions.referenceId, id)))
    .orderBy(asc(ledgerTransactions.createdAt), asc(ledgerTransactions.id));
}

export function linesOf(ex: Executor, transactionIds: string[]): Promise<LineRow[]> {
  if (transactionIds.length === 0) return Promise.resolve([]);
  return ex.select().from(ledgerLines).where(inArray(ledgerLines.transactionId, transactionIds)).orderBy(asc(ledgerLines.id));
}

export async function balanceOf(ex: Executor, account: string): Promise<number> {
  const [row] = await ex
    .select({ total: sql<string>`coalesce(sum(${ledgerLines.amount}), 0)` })
    .from(ledgerLines)
    .where(eq(ledgerLines.account, account));
  return Number(row?.total ?? 0);
}

/** Balances of the accounts starting with `prefix` (LIKE wildcards in it are taken literally). */
export async function balancesOf(ex: Executor, prefix: string): Promise<{ account: string; balance: number }[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const found = await ex
    .select({ account: ledgerLines.account, total: sql<string>`sum(${ledgerLines.amount})` })
    .from(ledgerLines)
    .where(sql`${ledgerLines.account} like ${pattern}`)
    .groupBy(ledgerLines.account)
    .orderBy(asc(ledgerLines.account));
  return found.map((r) => ({ account: r.account, balance: Number(r.total) }));
}

/** The sum of every line, per currency: zero in a sound ledger. */
export async function totalsByCurrency(ex: Executor): Promise<{ currency: string; total: number }[]> {
  const found = await rows<{ currency: string; total: string }>(
    ex,
    sql`select currency, sum(amount)::text as total from ledger_lines group by currency order by currency`,
  );
  return found.map((r) => ({ currency: r.currency, total: Number(r.total) }));
}
