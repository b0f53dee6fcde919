import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Ok, ok } from '../../shared/schemas.js';
import * as S from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';

const adm = { access: 'ADM' } as const;

export function reportsRoutes(reports: ReportsService) {
  return async (app: App) => {
    app.get(
      '/admin/payments/statistics',
      {
        config: adm,
        schema: {
          tags: ['admin: payments'],
          summary: 'Payments created in a range: count and volume by status, by method and per day, week or month',
          querystring: S.StatisticsQuerySchema,
          response: { 200: Ok(S.PaymentStatisticsSchema) },
        },
      },
      async (req) => ok(await reports.paymentStatistics(req.query)),
    );

    app.get(
      '/admin/reports/financial',
      {
        config: adm,
        schema: {
          tags: ['admin: reports'],
          summary:
            'Money from the ledger per period: payments received (GMV), commission, refunds, payouts and what escrow held at the end of each period; JSON or CSV (`format=csv`)',
          querystring: S.FinancialQuerySchema,
          response: {
            200: {
              description: 'The report',
              content: {
                'application/json': { schema: Ok(S.FinancialReportSchema) },
                'text/csv': { schema: Type.String() },
              },
            },
          },
        },
      },
      async (req, reply) => {
        const report = await reports.financial(req.query);
        if (req.query.format !== 'csv') return ok(report);
        const name = `financial-report-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}-${report.groupBy}.csv`;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"`)
          .send(reports.financialCsv(report));
      },
    );

    app.get(
      '/admin/analytics/top-products',
      {
        config: adm,
        schema: {
          tags: ['admin: analytics'],
          summary: 'Products sold most in completed orders over a period: by units and by revenue',
          querystring: S.TopProductsQuerySchema,
          response: { 200: Ok(S.TopProductsSchema) },
        },
      },
      async (req) => ok(await reports.topProducts(req.query)),
    );
  };
}
