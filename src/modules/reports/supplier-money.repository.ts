import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import type { EscrowState } from '../escrow/index.js';
import type { PayoutState } from '../payouts/index.js';
import { supplierPayable } from '../ledger/index.js';

/*
 * A supplier's own money, read from the ledger lines (docs/ledger.md) as the administrators' financial
 * report reads them, joined read-only to the escrows, orders and payouts that say which order and
 * which payout a line belongs to. One query per answer, paged in SQL.
 */

const num = (v: string | number | null) => Number(v ?? 0);

/** What escrow holds for the supplier's orders, what was credited to its payable (net) and what left it (paid out). */
export async function balance(ex: Executor, supplierId: string, currency: string) {
  const payable = supplierPayable(supplierId);
  const [row] = await rows<{ held: string; released: string; paid: string }>(
    ex,
    sql`select
          (select coalesce(sum(-l.amount), 0) from orders o join ledger_lines l on l.account = 'escrow:' || o.id::text
            where o.supplier_id = ${supplierId} and l.currency = ${currency})::text as held,
          (select coalesce(sum(-amount), 0) from ledger_lines where account = ${payable} and currency = ${currency} and amount < 0)::text as released,
          (select coalesce(sum(amount), 0) from ledger_lines where account = ${payable} and currency = ${currency} and amount > 0)::text as paid`,
  );
  return { heldInEscrow: num(row?.held ?? 0), released: num(row?.released ?? 0), paidOut: num(row?.paid ?? 0) };
}

export interface SupplierPayoutRow {
  id: string;
  orderId: string | null;
  bookingId: string | null;
  amount: number;
  currency: string;
  state: PayoutState;
  mobile: string | null;
  waitingReason: string | null;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  succeededAt: Date | null;
  failedAt: Date | null;
}

/** The supplier's payouts, newest first, one page, with their number. */
export async function payouts(ex: Executor, supplierId: string, page: { limit: number; offset: number }) {
  const found = await rows<Record<string, unknown> & { total: number }>(
    ex,
    sql`select id, order_id, booking_id, amount, currency, state, mobile, waiting_reason, last_error, created_at, sent_at, succeeded_at, failed_at,
          count(*) over ()::int as total
        from payouts where supplier_id = ${supplierId}
        order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`,
  );
  const items: SupplierPayoutRow[] = found.map((r) => ({
    id: r.id as string,
    orderId: r.order_id as string | null,
    bookingId: r.booking_id as string | null,
    amount: Number(r.amount),
    currency: r.currency as string,
    state: r.state as PayoutState,
    mobile: r.mobile as string | null,
    waitingReason: r.waiting_reason as string | null,
    lastError: r.last_error as string | null,
    createdAt: date(r.created_at)!,
    sentAt: date(r.sent_at),
    succeededAt: date(r.succeeded_at),
    failedAt: date(r.failed_at),
  }));
  return {
    items,
    total:
      found[0]?.total ??
      (await countPast(ex, page.offset, sql`select count(*)::int as n from payouts where supplier_id = ${supplierId}`)),
  };
}

/** The number of rows when a page past the end came back empty (the window count rides on the rows). */
async function countPast(ex: Executor, offset: number, query: ReturnType<typeof sql>): Promise<number> {
  if (offset === 0) return 0;
  const [row] = await rows<{ n: number }>(ex, query);
  return row?.n ?? 0;
}

const date = (v: unknown) => (v == null ? null : v instanceof Date ? v : new Date(String(v)));

export interface StatementRow {
  orderId: string;
  orderStatus: string;
  paidAt: Date;
  currency: string;
  escrowState: EscrowState;
  releaseAfter: Date | null;
  releasedAt: Date | null;
  refundedAt: Date | null;
  /** The order's payment credited to its escrow (`payment_received`). */
  gross: number;
  /** From the release posting (`order:<id>:release`); null until released. */
  commission: number | null;
  net: number | null;
  payoutId: string | null;
  payoutState: PayoutState | null;
  payoutSucceededAt: Date | null;
}

/**
 * One line per paid order of the supplier whose money came in within [from, to) (the escrow's
 * `held_at`), newest first: its gross from the payment's ledger posting, its commission and net from
 * the release posting, and its payout.
 */
export async function statement(
  ex: Executor,
  supplierId: string,
  r: { from: Date; to: Date; currency: string },
  page: { limit: number; offset: number },
) {
  const payable = supplierPayable(supplierId);
  const found = await rows<Record<string, unknown> & { total: number }>(
    ex,
    sql`select e.order_id, o.status as order_status, e.held_at, e.currency, e.state, e.release_after, e.released_at, e.refunded_at,
          (select sum(-l.amount) from ledger_transactions t join ledger_lines l on l.transaction_id = t.id
            where t.idempotency_key = 'payment:' || e.payment_id::text || ':received' and l.account = 'escrow:' || e.order_id::text)::text as gross,
          rel.id as release_id,
          (select sum(-l.amount) from ledger_lines l where l.transaction_id = rel.id and l.account = 'platform_commission')::text as commission,
          (select sum(-l.amount) from ledger_lines l where l.transaction_id = rel.id and l.account = ${payable})::text as net,
          p.id as payout_id, p.state as payout_state, p.succeeded_at as payout_succeeded_at,
          count(*) over ()::int as total
        from escrows e join orders o on o.id = e.order_id
        left join ledger_transactions rel on rel.idempotency_key = 'order:' || e.order_id::text || ':release'
        left join payouts p on p.release_transaction_id = rel.id
        where o.supplier_id = ${supplierId} and e.currency = ${r.currency} and e.held_at >= ${r.from} and e.held_at < ${r.to}
        order by e.held_at desc, e.order_id desc limit ${page.limit} offset ${page.offset}`,
  );
  const items: StatementRow[] = found.map((x) => ({
    orderId: x.order_id as string,
    orderStatus: x.order_status as string,
    paidAt: date(x.held_at)!,
    currency: x.currency as string,
    escrowState: x.state as EscrowState,
    releaseAfter: date(x.release_after),
    releasedAt: date(x.released_at),
    refundedAt: date(x.refunded_at),
    gross: num(x.gross as string | null),
    // A release at a 0 % rate has no commission line: zero, once released.
    commission: x.release_id ? num(x.commission as string | null) : null,
    net: x.release_id ? num(x.net as string | null) : null,
    payoutId: x.payout_id as string | null,
    payoutState: x.payout_state as PayoutState | null,
    payoutSucceededAt: date(x.payout_succeeded_at),
  }));
  const count = sql`select count(*)::int as n from escrows e join orders o on o.id = e.order_id
    where o.supplier_id = ${supplierId} and e.currency = ${r.currency} and e.held_at >= ${r.from} and e.held_at < ${r.to}`;
  return { items, total: found[0]?.total ?? (await countPast(ex, page.offset, count)) };
}
