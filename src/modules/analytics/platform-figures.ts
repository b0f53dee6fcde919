import type { KycApi } from '../kyc/index.js';
import { platformAdvertising, platformCommission, type LedgerApi } from '../ledger/index.js';
import type { OrdersApi } from '../orders/index.js';
import type { ProductsApi } from '../products/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import type { UsersApi } from '../users/index.js';
import type { AnalyticsService } from './analytics.service.js';

export interface PlatformFigureModules {
  users: UsersApi;
  suppliers: SuppliersApi;
  kyc: KycApi;
  products: ProductsApi;
  orders: OrdersApi;
  ledger: LedgerApi;
}

/**
 * Plugs the figures of the modules built so far into the dashboard and impact report, each read by
 * its own module's `figures` (its own tables). A module built later registers its own the same way
 * from app.ts (docs/analytics.md): its figures then appear in the answers.
 */
export function registerPlatformFigures(analytics: AnalyticsService, m: PlatformFigureModules): void {
  analytics.registerFigures('users', async (ex) => ({ users: await m.users.figures.userCounts(ex) }));
  analytics.registerFigures('suppliers', async (ex) => {
    const counts = await m.suppliers.figures.supplierCounts(ex);
    return { suppliers: counts, moderation: { suppliers: counts.byVerification.PENDING } };
  });
  analytics.registerFigures('kyc', async (ex) => ({ moderation: { kyc: await m.kyc.figures.pendingAttempts(ex) } }));
  analytics.registerFigures('products', async (ex) => {
    const counts = await m.products.figures.productCounts(ex);
    return { catalog: { activeProducts: counts.active }, moderation: { products: counts.pendingReview } };
  });
  analytics.registerFigures('orders', async (ex, s) => {
    const w = await m.orders.figures.ordersIn(ex, s.currency, {
      today: s.today,
      last7Days: s.last7Days,
      last30Days: s.last30Days,
    });
    return { orders: { ...w } };
  });
  analytics.registerFigures('ledger', async (ex, s) => {
    const windows = { today: s.today, last7Days: s.last7Days, last30Days: s.last30Days };
    const [commission, advertising, escrowHeld] = await Promise.all([
      m.ledger.figures.incomeIn(ex, platformCommission, s.currency, windows),
      m.ledger.figures.incomeIn(ex, platformAdvertising, s.currency, windows),
      m.ledger.figures.escrowHeld(ex, s.currency),
    ]);
    return { money: { commission, advertising, escrowHeld } };
  });
  analytics.registerImpactSource('orders', (ex, r) => m.orders.figures.collectedFoodByPeriod(ex, r));
}
