import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { CachedValue } from '../../shared/cached-value.js';
import { notFound } from '../../shared/errors.js';
import type { OrdersApi } from '../orders/index.js';
import { periodsOf, periodStart, rangeOf } from '../reports/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { ROLES, type Role, type UsersApi } from '../users/index.js';
import { AnalyticsRegistry, type DashboardScope } from './analytics-registry.js';
import type {
  DashboardStats,
  ImpactQuery,
  StatsQuery,
  SupplierPerformanceQuery,
  UserGrowthQuery,
} from './analytics.schemas.js';
import { IMPACT_FACTORS, impactOf } from './impact-factors.js';

/** The dashboard is computed at most once in this time per currency: many administrators' screens refresh it. */
export const DASHBOARD_CACHE_SECONDS = 30;
const DAY = 86_400_000;

export interface AnalyticsDeps {
  users: UsersApi;
  suppliers: SuppliersApi;
  orders: OrdersApi;
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

/** The three windows of the dashboard: today (UTC), the last 7 and the last 30 UTC days, each up to `now`. */
export function dashboardScope(now: Date, currency: string): DashboardScope {
  const today = periodStart(now, 'day');
  const since = (days: number) => ({ from: new Date(today.getTime() - (days - 1) * DAY), to: now });
  return { now, currency, today: since(1), last7Days: since(7), last30Days: since(30) };
}

/**
 * The administrators' dashboard, impact report, user growth and supplier performance. Figures
 * come from the modules owning the rows, through the registry (dashboard, impact, ratings) or
 * their services (growth, performance): this module has no table.
 */
export function createAnalyticsService(ctx: AppContext, deps: AnalyticsDeps) {
  const registry = new AnalyticsRegistry();
  const dashboards = new Map<string, CachedValue<DashboardStats>>();
  ctx.caches.register('dashboard', () => {
    for (const cached of dashboards.values()) cached.drop();
  });

  async function computeDashboard(ex: Executor, currency: string): Promise<DashboardStats> {
    const scope = dashboardScope(ctx.clock.now(), currency);
    const sections = await registry.dashboard(ex, scope);
    const w = (x: { from: Date; to: Date }) => ({ from: x.from.toISOString(), to: x.to.toISOString() });
    return {
      generatedAt: scope.now.toISOString(),
      cachedForSeconds: DASHBOARD_CACHE_SECONDS,
      currency,
      windows: { today: w(scope.today), last7Days: w(scope.last7Days), last30Days: w(scope.last30Days) },
      sections,
    };
  }

  return {
    registerFigures: registry.registerFigures.bind(registry),
    registerImpactSource: registry.registerImpactSource.bind(registry),
    registerSupplierRating: registry.registerSupplierRating.bind(registry),

    async stats(q: StatsQuery): Promise<DashboardStats> {
      const currency = q.currency ?? 'XOF';
      let cached = dashboards.get(currency);
      if (!cached) {
        cached = new CachedValue(ctx.clock, DASHBOARD_CACHE_SECONDS * 1000, ctx.db, (ex) =>
          computeDashboard(ex, currency),
        );
        dashboards.set(currency, cached);
      }
      return cached.get();
    },

    async impact(q: ImpactQuery) {
      const unit = q.groupBy ?? 'day';
      const currency = q.currency ?? 'XOF';
      const { from, to } = rangeOf(q, ctx.clock.now());
      const periods = periodsOf(from, to, unit);
      const bySource = await registry.impactRows(ctx.db, { from, to, unit, currency });
      type Acc = {
        grams: number;
        money: number;
        bySource: Record<string, { count: number; grams: number; money: number }>;
      };
      const empty = (): Acc => ({
        grams: 0,
        money: 0,
        bySource: Object.fromEntries(bySource.map(([name]) => [name, { count: 0, grams: 0, money: 0 }])),
      });
      const perPeriod = new Map(periods.map((p) => [p.key, empty()]));
      const totals = empty();
      for (const [name, rows] of bySource) {
        for (const r of rows) {
          for (const acc of [perPeriod.get(r.period), totals]) {
            if (!acc) continue;
            acc.grams += r.foodGrams;
            acc.money += r.moneyDonated;
            const s = acc.bySource[name]!;
            s.count += r.count;
            s.grams += r.foodGrams;
            s.money += r.moneyDonated;
          }
        }
      }
      const view = (a: Acc) => ({
        ...impactOf(a.grams),
        moneyDonated: a.money,
        bySource: Object.fromEntries(
          Object.entries(a.bySource).map(([n, s]) => [
            n,
            { count: s.count, foodKg: impactOf(s.grams).foodKg, moneyDonated: s.money },
          ]),
        ),
      });
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        groupBy: unit,
        currency,
        factors: { ...IMPACT_FACTORS },
        sources: bySource.map(([name]) => name),
        totals: view(totals),
        periods: [...perPeriod].map(([period, a]) => ({ period, ...view(a) })),
      };
    },

    async userGrowth(q: UserGrowthQuery) {
      const unit = q.groupBy ?? 'day';
      const { from, to } = rangeOf(q, ctx.clock.now());
      const periods = periodsOf(from, to, unit);
      const roles: readonly Role[] = q.role ? [q.role] : ROLES;
      const zero = () => Object.fromEntries(roles.map((r) => [r, 0])) as Record<string, number>;
      const perPeriod = new Map(periods.map((p) => [p.key, { total: 0, byRole: zero() }]));
      const totals = { total: 0, byRole: zero() };
      for (const r of await deps.users.figures.newUsersByPeriod(ctx.db, { from, to, unit })) {
        if (q.role && r.role !== q.role) continue;
        for (const acc of [perPeriod.get(r.period), totals]) {
          if (!acc) continue;
          acc.total += r.count;
          acc.byRole[r.role] = (acc.byRole[r.role] ?? 0) + r.count;
        }
      }
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        groupBy: unit,
        role: q.role ?? null,
        totals,
        periods: [...perPeriod].map(([period, p]) => ({ period, ...p })),
      };
    },

    async supplierPerformance(supplierId: string, q: SupplierPerformanceQuery) {
      const { from, to } = rangeOf(q, ctx.clock.now());
      const supplier = await deps.suppliers.findProfile(supplierId);
      if (!supplier) throw notFound('Supplier');
      const [figures, rating] = await Promise.all([
        deps.orders.figures.supplierPerformance(ctx.db, supplierId, { from, to }),
        registry.supplierRating(ctx.db, supplierId),
      ]);
      return {
        supplier: {
          id: supplier.id,
          businessName: supplier.businessName,
          verificationStatus: supplier.verificationStatus,
          commissionRateBps: supplier.commissionRateBps,
        },
        from: from.toISOString(),
        to: to.toISOString(),
        ...figures,
        rating,
      };
    },
  };
}
