import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportsService } from './reports.service.js';
import { supplierMoneyRoutes } from './supplier-money.routes.js';
import { createSupplierMoneyService } from './supplier-money.service.js';
export { periodStart, periodsOf, rangeOf } from './periods.js';

/** Financial reports for administrators, and a supplier's own money (balance, payouts, statement). */
export type ReportsApi = Record<never, never>;

declare module '../module.js' {
  interface ModuleApis {
    reports: ReportsApi;
  }
}

export const reportsModule = defineModule({
  name: 'reports',
  needs: ['ledger', 'orders', 'suppliers'],
  build(ctx, { ledger, orders, suppliers }) {
    const reports = createReportsService(ctx, { ledger, orders });
    const supplierMoney = createSupplierMoneyService(ctx, { suppliers });
    return {
      api: Object.assign(reports, { supplierMoney }),
      routes: async (app: App) => {
        await app.register(reportsRoutes(reports));
        await app.register(supplierMoneyRoutes(supplierMoney));
      },
    };
  },
});
