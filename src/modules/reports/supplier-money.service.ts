import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/access.js';
import { notFound, validationError } from '../../shared/errors.js';
import { pageMeta, pageOffset, type PageQuery } from '../../shared/schemas.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { rangeOf } from './periods.js';
import * as repo from './supplier-money.repository.js';
import type { BalanceQuery, SettlementLine, StatementQuery } from './supplier-money.schemas.js';

/** A CSV statement holds at most this many orders: a longer range is asked in parts. */
export const MAX_CSV_LINES = 10_000;
const CSV_COLUMNS = [
  'orderId',
  'paidAt',
  'currency',
  'gross',
  'commission',
  'net',
  'escrowState',
  'releaseDate',
  'refundedAt',
  'payoutId',
  'payoutState',
  'payoutSucceededAt',
] as const;

const iso = (d: Date | null) => d?.toISOString() ?? null;

function lineOf(r: repo.StatementRow): SettlementLine {
  return {
    orderId: r.orderId,
    orderStatus: r.orderStatus,
    paidAt: r.paidAt.toISOString(),
    currency: r.currency,
    gross: r.gross,
    commission: r.commission,
    net: r.net,
    escrowState: r.escrowState,
    releaseDate: iso(r.releasedAt ?? r.releaseAfter),
    refundedAt: iso(r.refundedAt),
    payout: r.payoutId ? { id: r.payoutId, state: r.payoutState!, succeededAt: iso(r.payoutSucceededAt) } : null,
  };
}

export type SupplierMoneyService = ReturnType<typeof createSupplierMoneyService>;

/**
 * The supplier's own money (balance, payouts, per-order statement), from the ledger lines as the
 * administrators' financial report reads them, so the two always agree.
 */
export function createSupplierMoneyService(ctx: AppContext, deps: { suppliers: SuppliersApi }) {
  async function supplierIdOf(user: AuthUser): Promise<string> {
    const s = await deps.suppliers.findOwnProfile(user.id);
    if (!s) throw notFound('Supplier profile');
    return s.id;
  }

  async function statementPage(user: AuthUser, q: StatementQuery, page: { limit: number; offset: number }) {
    const { from, to } = rangeOf(q, ctx.clock.now());
    return repo.statement(ctx.db, await supplierIdOf(user), { from, to, currency: q.currency ?? 'XOF' }, page);
  }

  return {
    async balance(user: AuthUser, q: BalanceQuery) {
      const currency = q.currency ?? 'XOF';
      const b = await repo.balance(ctx.db, await supplierIdOf(user), currency);
      return {
        currency,
        heldInEscrow: b.heldInEscrow,
        payable: b.released - b.paidOut,
        paidOut: b.paidOut,
        released: b.released,
      };
    },

    async payouts(user: AuthUser, q: PageQuery) {
      const { items, total } = await repo.payouts(ctx.db, await supplierIdOf(user), {
        limit: q.limit,
        offset: pageOffset(q),
      });
      const views = items.map((p) => ({
        ...p,
        createdAt: p.createdAt.toISOString(),
        sentAt: iso(p.sentAt),
        succeededAt: iso(p.succeededAt),
        failedAt: iso(p.failedAt),
      }));
      return { items: views, meta: pageMeta(q, total) };
    },

    async statement(user: AuthUser, q: StatementQuery) {
      const { items, total } = await statementPage(user, q, { limit: q.limit, offset: pageOffset(q) });
      return { items: items.map(lineOf), meta: pageMeta(q, total) };
    },

    /** Every line of the range as CSV (CRLF, a header row), with the file's name. */
    async statementCsv(user: AuthUser, q: StatementQuery): Promise<{ filename: string; body: string }> {
      const { items, total } = await statementPage(user, q, { limit: MAX_CSV_LINES, offset: 0 });
      if (total > MAX_CSV_LINES)
        throw validationError(
          'query.from',
          `the range holds ${total} orders, more than ${MAX_CSV_LINES}: ask for a shorter one`,
        );
      const cell = (v: string | number | null) => (v === null ? '' : String(v));
      const lines = items
        .map(lineOf)
        .map((l) =>
          [
            l.orderId,
            l.paidAt,
            l.currency,
            l.gross,
            l.commission,
            l.net,
            l.escrowState,
            l.releaseDate,
            l.refundedAt,
            l.payout?.id ?? null,
            l.payout?.state ?? null,
            l.payout?.succeededAt ?? null,
          ]
            .map(cell)
            .join(','),
        );
      const { from, to } = rangeOf(q, ctx.clock.now());
      return {
        filename: `statement-${from.toISOString().slice(0, 10)}-${to.toISOString().slice(0, 10)}.csv`,
        body: `${[CSV_COLUMNS.join(','), ...lines].join('\r\n')}\r\n`,
      };
    },
  };
}
