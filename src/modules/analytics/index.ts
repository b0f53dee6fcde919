import { defineModule } from '../module.js';
import { analyticsRoutes } from './analytics.routes.js';
import { type AnalyticsService, createAnalyticsService } from './analytics.service.js';
import { registerModuleFigures } from './module-figures.js';
import { registerPlatformFigures } from './platform-figures.js';

/**
 * The administrators' dashboard, the impact report and suppliers' performance: figures read through
 * the faces of the modules owning them (it stands above them all and nothing needs it).
 */
export interface AnalyticsApi {
  registerFigures: AnalyticsService['registerFigures'];
  registerImpactSource: AnalyticsService['registerImpactSource'];
  registerSupplierRating: AnalyticsService['registerSupplierRating'];
  stats: AnalyticsService['stats'];
}

declare module '../module.js' {
  interface ModuleApis {
    analytics: AnalyticsApi;
  }
}

export const analyticsModule = defineModule({
  name: 'analytics',
  needs: [
    'users',
    'suppliers',
    'kyc',
    'products',
    'orders',
    'ledger',
    'reviews',
    'deals',
    'associations',
    'donations',
    'advertising',
  ],
  build(ctx, m) {
    const analytics = createAnalyticsService(ctx, { users: m.users, suppliers: m.suppliers, orders: m.orders });
    registerPlatformFigures(analytics, m);
    registerModuleFigures(analytics, m);
    return { api: analytics, routes: analyticsRoutes(analytics) };
  },
});
