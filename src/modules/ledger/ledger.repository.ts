import { and, asc, count, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
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

/** The account's balance, or what it was just before `before` (ledger_lines_account_created_idx holds the amounts). */
export async function balanceOf(ex: Executor, account: string, before?: Date): Promise<number> {
  const [row] = await ex
    .select({ total: sql<string>`coalesce(sum(${ledgerLines.amount}), 0)` })
    .from(ledgerLines)
    .where(and(eq(ledgerLines.account, account), before && lt(ledgerLines.createdAt, before)));
  return Number(row?.total ?? 0);
}

const within = (range: { from?: Date; to?: Date }) => [
  range.from && gte(ledgerLines.createdAt, range.from),
  range.to && lt(ledgerLines.createdAt, range.to),
];

/** One account's lines, newest first, with what each transaction was; and how many there are. */
export async function accountLines(
  ex: Executor,
  account: string,
  q: { from?: Date; to?: Date; limit: number; offset: number },
) {
  const where = and(eq(ledgerLines.account, account), ...within(q));
  const [items, [total]] = await Promise.all([
    ex
      .select({
        transactionId: ledgerTransactions.id,
        kind: ledgerTransactions.kind,
        referenceType: ledgerTransactions.referenceType,
        referenceId: ledgerTransactions.referenceId,
        memo: ledgerTransactions.memo,
        amount: ledgerLines.amount,
        currency: ledgerLines.currency,
        createdAt: ledgerLines.createdAt,
      })
      .from(ledgerLines)
      .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerLines.transactionId))
      .where(where)
      .orderBy(desc(ledgerLines.createdAt), desc(ledgerLines.id))
      .limit(q.limit)
      .offset(q.offset),
    ex.select({ n: count() }).from(ledgerLines).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

/** What moved on one account in a range, summed per kind and reference (oldest first). */
export async function accountMovements(ex: Executor, account: string, range: { from?: Date; to?: Date }) {
  const found = await ex
    .select({
      kind: ledgerTransactions.kind,
      referenceType: ledgerTransactions.referenceType,
      referenceId: ledgerTransactions.referenceId,
      amount: sql<string>`sum(${ledgerLines.amount})`,
      count: count(),
      firstAt: sql<Date>`min(${ledgerLines.createdAt})`.mapWith(ledgerLines.createdAt),
    })
    .from(ledgerLines)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerLines.transactionId))
    .where(and(eq(ledgerLines.account, account), ...within(range)))
    .groupBy(ledgerTransactions.kind, ledgerTransactions.referenceType, ledgerTransactions.referenceId)
    .orderBy(sql`min(${ledgerLines.createdAt})`);
  return found.map((r) => ({ ...r, amount: Number(r.amount) }));
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
 * earned, refunds decided, paid out to suppliers, advertising spend earned, and the net change of
 * what escrow holds.
 */
export async function flowsByPeriod(ex: Executor, range: { from: Date; to: Date; unit: PeriodUnit }) {
  const found = await rows<{
    period: string;
    currency: string;
    received: string;
    commission: string;
    refunds: string;
    payouts: string;
    advertising: string;
    escrow_change: string;
  }>(
    ex,
    sql`select to_char(date_trunc(${range.unit}, created_at at time zone 'UTC'), 'YYYY-MM-DD') as period, currency,
          coalesce(sum(-amount) filter (where ${isEscrow} and amount < 0), 0)::text as received,
          coalesce(sum(-amount) filter (where account = 'platform_commission'), 0)::text as commission,
          coalesce(sum(-amount) filter (where account like 'refunds_pending:%' and amount < 0), 0)::text as refunds,
          coalesce(sum(amount) filter (where account like 'supplier_payable:%' and amount > 0), 0)::text as payouts,
          coalesce(sum(-amount) filter (where account = 'platform_advertising'), 0)::text as advertising,
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
    advertising: Number(r.advertising),
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
