import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { uuidv7 } from '../../shared/ids.js';
import { isAccount } from './accounts.js';
import * as repo from './ledger.repository.js';
import * as figures from './ledger.figures.js';

export type ReferenceType =
  | 'order'
  | 'donation'
  | 'subscription'
  | 'booking'
  | 'advertising_topup'
  | 'ad_campaign'
  | 'payout'
  | 'payment'
  | 'refund';
export interface Reference {
  type: ReferenceType;
  id: string;
}
export interface PostingLine {
  account: string;
  /** > 0 debit, < 0 credit (see accounts.ts); never 0. */
  amount: number;
}
export interface Posting {
  kind: string;
  reference: Reference;
  /** Derived from what causes the posting (e.g. `order:<id>:release`): the same key never posts twice. */
  idempotencyKey: string;
  currency: string;
  memo?: string;
  lines: PostingLine[];
}
export interface LedgerTransaction {
  id: string;
  kind: string;
  reference: Reference;
  idempotencyKey: string;
  currency: string;
  memo: string | null;
  createdAt: Date;
  lines: PostingLine[];
}

/** One line of an account, with what its transaction was (an account's history). */
export interface AccountLine {
  transactionId: string;
  kind: string;
  reference: Reference;
  memo: string | null;
  amount: number;
  currency: string;
  createdAt: Date;
}
/** What moved on an account for one kind and reference in a range: the sum of its lines, how many, the first. */
export interface AccountMovement {
  kind: string;
  reference: Reference;
  amount: number;
  count: number;
  firstAt: Date;
}

/** A posting that breaks the ledger's rules: a bug in the calling module, never the client's fault. */
export class LedgerError extends Error {
  override name = 'LedgerError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validatePosting(p: Posting): void {
  const fail = (why: string) => {
    throw new LedgerError(`ledger posting "${p.kind}" (${p.idempotencyKey}): ${why}`);
  };
  if (!p.kind || p.kind.length > 100) fail('kind must be 1..100 characters');
  if (!p.reference?.type || !UUID.test(p.reference.id ?? '')) fail('reference needs a type and a UUID id');
  if (!p.idempotencyKey || p.idempotencyKey.length > 255) fail('idempotencyKey must be 1..255 characters');
  if (!/^[A-Z]{3}$/.test(p.currency)) fail(`currency "${p.currency}" is not an ISO 4217 code`);
  if (!Array.isArray(p.lines) || p.lines.length < 2) fail('a transaction needs at least 2 lines');
  let sum = 0n;
  for (const [i, l] of p.lines.entries()) {
    if (!isAccount(l.account)) fail(`line ${i}: unknown account "${l.account}"`);
    if (!Number.isSafeInteger(l.amount)) fail(`line ${i}: amount ${l.amount} is not a safe integer`);
    if (l.amount === 0) fail(`line ${i}: amount is zero`);
    sum += BigInt(l.amount);
  }
  if (sum !== 0n) fail(`lines sum to ${sum}, not 0`);
}

const sameLines = (a: PostingLine[], b: PostingLine[]) => {
  const key = (ls: PostingLine[]) =>
    ls
      .map((l) => `${l.account}=${l.amount}`)
      .sort()
      .join(',');
  return key(a) === key(b);
};

export function createLedgerService(ctx: AppContext) {
  async function read(ex: Executor, txs: repo.TransactionRow[]): Promise<LedgerTransaction[]> {
    const lines = await repo.linesOf(
      ex,
      txs.map((t) => t.id),
    );
    return txs.map((t) => ({
      id: t.id,
      kind: t.kind,
      reference: { type: t.referenceType as ReferenceType, id: t.referenceId },
      idempotencyKey: t.idempotencyKey,
      currency: t.currency,
      memo: t.memo,
      createdAt: t.createdAt,
      lines: lines.filter((l) => l.transactionId === t.id).map((l) => ({ account: l.account, amount: l.amount })),
    }));
  }

  return {
    /** Figures for the administrators' dashboard and reports (analytics module), from this module's tables. */
    figures,
    /**
     * Posts a balanced transaction, once: the same idempotency key again answers the transaction
     * already posted (`created: false`). Pass the business transaction as `ex`, so the posting commits
     * or rolls back with the change it records; the balance is checked again by the database at commit.
     */
    async post(ex: Executor, p: Posting): Promise<{ transactionId: string; created: boolean }> {
      validatePosting(p);
      // A savepoint (or a transaction, when given the database): a failed posting leaves nothing.
      return ex.transaction(async (tx) => {
        const now = ctx.clock.now();
        const id = uuidv7(now.getTime());
        const row = {
          id,
          kind: p.kind,
          referenceType: p.reference.type,
          referenceId: p.reference.id,
          idempotencyKey: p.idempotencyKey,
          currency: p.currency,
          memo: p.memo ?? null,
          createdAt: now,
        };
        if (await repo.insertTransaction(tx, row)) {
          await repo.insertLines(
            tx,
            p.lines.map((l) => ({
              id: uuidv7(now.getTime()),
              transactionId: id,
              account: l.account,
              amount: l.amount,
              currency: p.currency,
              createdAt: now,
            })),
          );
          return { transactionId: id, created: true };
        }
        // Inserted before (or just now by a concurrent request, whose commit the insert waited for).
        const existing = await repo.transactionByKey(tx, p.idempotencyKey);
        if (!existing) throw new LedgerError(`ledger posting ${p.idempotencyKey}: key taken but transaction not found`);
        const [before] = await read(tx, [existing]);
        const same =
          before &&
          before.kind === p.kind &&
          before.reference.type === p.reference.type &&
          before.reference.id === p.reference.id &&
          before.currency === p.currency &&
          sameLines(before.lines, p.lines);
        if (!same)
          throw new LedgerError(
            `ledger posting ${p.idempotencyKey}: the key was already used for a different posting (${existing.id})`,
          );
        return { transactionId: existing.id, created: false };
      });
    },
    /** The account's balance now, or just before `before`. */
    balance: (ex: Executor, account: string, before?: Date) => repo.balanceOf(ex, account, before),
    /** One account's lines, newest first (`from` included, `to` excluded), a page at a time. */
    async history(
      ex: Executor,
      account: string,
      q: { from?: Date; to?: Date; limit: number; offset: number },
    ): Promise<{ items: AccountLine[]; total: number }> {
      const { items, total } = await repo.accountLines(ex, account, q);
      return {
        items: items.map(({ referenceType, referenceId, ...l }) => ({
          ...l,
          reference: { type: referenceType as ReferenceType, id: referenceId },
        })),
        total,
      };
    },
    /** What moved on one account in a range, per kind and reference, oldest first (statements). */
    async movements(ex: Executor, account: string, range: { from?: Date; to?: Date }): Promise<AccountMovement[]> {
      return (await repo.accountMovements(ex, account, range)).map(({ referenceType, referenceId, ...m }) => ({
        ...m,
        reference: { type: referenceType as ReferenceType, id: referenceId },
      }));
    },
    /** Every account starting with `prefix` (e.g. `supplier_payable:`) and its balance, by name. */
    balances: (ex: Executor, prefix: string) => repo.balancesOf(ex, prefix),
    /** The transactions about one order, payment, payout..., oldest first, with their lines. */
    async transactionsFor(ex: Executor, reference: Reference): Promise<LedgerTransaction[]> {
      return read(ex, await repo.transactionsByReference(ex, reference.type, reference.id));
    },
    /** The sum of every account (all currencies together): zero in a sound ledger. */
    async sumOfAllAccounts(ex: Executor): Promise<number> {
      return (await repo.totalsByCurrency(ex)).reduce((s, t) => s + t.total, 0);
    },
    totalsByCurrency: (ex: Executor) => repo.totalsByCurrency(ex),
    /** Money received, commission, refunds, payouts and escrow's net change per period (see docs/escrow.md, reports). */
    flowsByPeriod: (ex: Executor, range: { from: Date; to: Date; unit: repo.PeriodUnit }) =>
      repo.flowsByPeriod(ex, range),
    /** What escrow accounts held, per currency, just before `at`. */
    escrowHeldAt: (ex: Executor, at: Date) => repo.escrowHeldAt(ex, at),
  };
}
export type LedgerService = ReturnType<typeof createLedgerService>;
