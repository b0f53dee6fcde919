import type { AppContext } from '../../context.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../payments/index.js';
import type { LedgerApi } from '../ledger/index.js';
import type { OrdersApi } from '../orders/index.js';
import { PAYMENT_METHODS } from '../../providers/payments/types.js';
import { periodsOf, rangeOf } from './periods.js';
import * as repo from './reports.repository.js';
import type { FinancialQuery, FinancialReport, StatisticsQuery, TopProductsQuery } from './reports.schemas.js';

export interface ReportsDeps {
  ledger: LedgerApi;
  orders: OrdersApi;
}

const TOP_DAYS = { day: 1, week: 7, month: 30, year: 365 } as const;
const MONEY_FIELDS = ['gmv', 'commission', 'refunds', 'payouts', 'advertising'] as const;
const CSV_COLUMNS = ['period', 'currency', ...MONEY_FIELDS, 'heldInEscrow'] as const;

type Figure = { count: number; volume: number };
const add = (f: Figure, count: number, volume: number) => {
  f.count += count;
  f.volume += volume;
};
const zero = (): Figure => ({ count: 0, volume: 0 });

export type ReportsService = ReturnType<typeof createReportsService>;

export function createReportsService(ctx: AppContext, deps: ReportsDeps) {
  // Suppliers' statistics show their escrow, releases and payouts from the ledger.
  deps.orders.registerBalances((ex, supplierId) => repo.supplierBalances(ex, supplierId));

  return {
    async paymentStatistics(q: StatisticsQuery) {
      const unit = q.period ?? 'day';
      const currency = q.currency ?? 'XOF';
      const { from, to } = rangeOf(q, ctx.clock.now());
      const periods = periodsOf(from, to, unit);
      const found = await repo.paymentFigures(ctx.db, { from, to, unit, currency });
      const totals = zero();
      const byStatus = new Map(PAYMENT_STATUSES.map((s) => [s, zero()]));
      const byMethod = new Map<string, Figure & { succeeded: Figure }>(
        PAYMENT_METHODS.map((m) => [m, { ...zero(), succeeded: zero() }]),
      );
      const perPeriod = new Map(periods.map((p) => [p.key, { ...zero(), succeeded: zero() }]));
      for (const r of found) {
        const paid = r.status === 'SUCCEEDED' || r.status === 'REFUND_PENDING' || r.status === 'REFUNDED';
        add(totals, r.count, r.volume);
        add(byStatus.get(r.status as PaymentStatus)!, r.count, r.volume);
        const m = byMethod.get(r.method) ?? { ...zero(), succeeded: zero() };
        byMethod.set(r.method, m);
        const p = perPeriod.get(r.period)!;
        for (const f of [m, p]) {
          add(f, r.count, r.volume);
          if (paid) add(f.succeeded, r.count, r.volume);
        }
      }
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        period: unit,
        currency,
        totals,
        byStatus: [...byStatus].map(([status, f]) => ({ status, ...f })),
        byMethod: [...byMethod].map(([method, f]) => ({ method, ...f })),
        perPeriod: [...perPeriod].map(([period, f]) => ({ period, ...f })),
      };
    },

    async financial(q: FinancialQuery): Promise<FinancialReport> {
      const unit = q.groupBy ?? 'day';
      const currency = q.currency ?? 'XOF';
      const { from, to } = rangeOf(q, ctx.clock.now());
      const periods = periodsOf(from, to, unit);
      const [flows, before] = await Promise.all([
        deps.ledger.flowsByPeriod(ctx.db, { from, to, unit }),
        deps.ledger.escrowHeldAt(ctx.db, from),
      ]);
      const byPeriod = new Map(flows.filter((f) => f.currency === currency).map((f) => [f.period, f]));
      let held = before.find((b) => b.currency === currency)?.held ?? 0;
      const totals = { gmv: 0, commission: 0, refunds: 0, payouts: 0, advertising: 0, heldInEscrow: 0 };
      const rows = periods.map(({ key }) => {
        const f = byPeriod.get(key);
        held += f?.escrowChange ?? 0;
        const row = {
          period: key,
          gmv: f?.received ?? 0,
          commission: f?.commission ?? 0,
          refunds: f?.refunds ?? 0,
          payouts: f?.payouts ?? 0,
          advertising: f?.advertising ?? 0,
          heldInEscrow: held,
        };
        for (const k of MONEY_FIELDS) totals[k] += row[k];
        return row;
      });
      totals.heldInEscrow = held;
      return { from: from.toISOString(), to: to.toISOString(), groupBy: unit, currency, periods: rows, totals };
    },

    /** The report as CSV: a header row, one row per period, then the totals (`total`). */
    financialCsv(r: FinancialReport): string {
      const line = (cells: (string | number)[]) => cells.join(',');
      const out = [line([...CSV_COLUMNS])];
      for (const p of r.periods)
        out.push(line([p.period, r.currency, ...MONEY_FIELDS.map((k) => p[k]), p.heldInEscrow]));
      out.push(line(['total', r.currency, ...MONEY_FIELDS.map((k) => r.totals[k]), r.totals.heldInEscrow]));
      return `${out.join('\r\n')}\r\n`;
    },

    async topProducts(q: TopProductsQuery) {
      const { from, to } = rangeOf(q, ctx.clock.now(), TOP_DAYS[q.period ?? 'month']);
      const limit = q.limit ?? 10;
      const [byUnits, byRevenue] = await Promise.all([
        repo.topProducts(ctx.db, { from, to, limit, order: 'units' }),
        repo.topProducts(ctx.db, { from, to, limit, order: 'revenue' }),
      ]);
      return { from: from.toISOString(), to: to.toISOString(), byUnits, byRevenue };
    },
  };
}
