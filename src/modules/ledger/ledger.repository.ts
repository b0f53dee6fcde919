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
  return ex
    .select()
    .from(ledgerLines)
    .where(inArray(ledgerLines.transactionId, transactionIds))
    .orderBy(asc(ledgerLines.id));
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

export type PeriodUnit = 'day' | 'week' | 'month';

/** The escrow accounts: of orders and of bookings paid in the app. */
const isEscrow = sql.raw(`(account like 'escrow:%' or account like 'booking_escrow:%')`);

/**
 * Money moved per period (UTC) and currency, by what it was: received into escrow, commission
 * earned, refunds decided, paid out to suppliers, and the net change of what escrow holds.
 */
export async function flowsByPeriod(ex: Executor, range: { from: Date; to: Date; unit: PeriodUnit }) {
  const found = await rows<{
    period: string;
    currency: string;
    received: string;
    commission: string;
    refunds: string;
    payouts: string;
    escrow_change: string;
  }>(
    ex,
    sql`select to_char(date_trunc(${range.unit}, created_at at time zone 'UTC'), 'YYYY-MM-DD') as period, currency,
          coalesce(sum(-amount) filter (where ${isEscrow} and amount < 0), 0)::text as received,
          coalesce(sum(-amount) filter (where account = 'platform_commission'), 0)::text as commission,
          coalesce(sum(-amount) filter (where account like 'refunds_pending:%' and amount < 0), 0)::text as refunds,
          coalesce(sum(amount) filter (where account like 'supplier_payable:%' and amount > 0), 0)::text as payouts,
          coalesce(sum(-amount) filter (where ${isEscrow}), 0)::text as escrow_change
        from ledger_lines where created_at >= ${range.from} and created_at < ${range.to}
        group by 1, 2 order by 1, 2`,
  );
  return found.map((r) => ({
    period: r.period,
    currency: r.currency,
    received: Number(r.received),
    commission: Number(r.commission),
    refunds: Number(r.refunds),
    payouts: Number(r.payouts),
    escrowChange: Number(r.escrow_change),
  }));
}

/** What escrow held, per currency, just before `at`. */
export async function escrowHeldAt(ex: Executor, at: Date): Promise<{ currency: string; held: number }[]> {
  const found = await rows<{ currency: string; held: string }>(
    ex,
    sql`select currency, coalesce(sum(-amount), 0)::text as held from ledger_lines where ${isEscrow} and created_at < ${at} group by currency`,
  );
  return found.map((r) => ({ currency: r.currency, held: Number(r.held) }));
}
