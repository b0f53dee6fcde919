import type { App } from '../../http/types.js';
import { Ok, ok } from '../../shared/schemas.js';
import * as S from './analytics.schemas.js';
import type { AnalyticsService } from './analytics.service.js';

const adm = { access: 'ADM' } as const;

export function analyticsRoutes(analytics: AnalyticsService) {
  return async (app: App) => {
    app.get(
      '/admin/dashboard/stats',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary:
            'The platform at a glance: users, suppliers, catalogue, orders and GMV today / 7 / 30 days, commission, escrow held, moderation queues (cached for up to 30 s)',
          querystring: S.StatsQuerySchema,
          response: { 200: Ok(S.DashboardStatsSchema) },
        },
      },
      async (req) => ok(await analytics.stats(req.query)),
    );

    app.get(
      '/admin/dashboard/impact',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary:
            'Food saved (kg, meals), CO2e avoided and money donated per day, week or month, from documented conversion factors',
          querystring: S.ImpactQuerySchema,
          response: { 200: Ok(S.ImpactSchema) },
        },
      },
      async (req) => ok(await analytics.impact(req.query)),
    );

    app.get(
      '/admin/analytics/user-growth',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary: 'New accounts per day, week or month, by role',
          querystring: S.UserGrowthQuerySchema,
          response: { 200: Ok(S.UserGrowthSchema) },
        },
      },
      async (req) => ok(await analytics.userGrowth(req.query)),
    );

    app.get(
      '/admin/analytics/supplier/:supplierId',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary:
            "A supplier's performance over a range: orders, cancellations, sales gross and net of commission, rating, time to confirm a paid order",
          params: S.SupplierParamsSchema,
          querystring: S.SupplierPerformanceQuerySchema,
          response: { 200: Ok(S.SupplierPerformanceSchema) },
          errors: [404],
        },
      },
      async (req) => ok(await analytics.supplierPerformance(req.params.supplierId, req.query)),
    );
  };
}
