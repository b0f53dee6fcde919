import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { orderPaymentsRoutes } from './order-payments.routes.js';
import { createOrderSettlement, type OrderSettlement } from './order-settlement.js';
import { ordersRoutes } from './orders.routes.js';
import { createOrdersService, type OrdersService } from './orders.service.js';

export { zonedInstant } from './order-pickup.js';
export { PickupTokens, newPickupCode } from './pickup-code.js';

/** Clients' orders: stock held, payment, escrow, pickup code, the order's life; the order as a payment subject. */
export interface OrdersApi {
  figures: OrdersService['figures'];
  hasCompletedPurchase: OrdersService['hasCompletedPurchase'];
  markPaid: OrdersService['markPaid'];
  registerBalances: OrdersService['registerBalances'];
  tokens: OrdersService['tokens'];
  settlement: OrderSettlement;
}

declare module '../module.js' {
  interface ModuleApis {
    orders: OrdersApi;
  }
}

export const ordersModule = defineModule({
  name: 'orders',
  needs: ['settings', 'products', 'stores', 'staff', 'suppliers', 'users', 'notifications', 'payments', 'escrow'],
  build(ctx, d) {
    const { settings, products, stores, suppliers, users, notifications, payments, escrow } = d;
    const members = d.staff.members;
    const orders = createOrdersService(ctx, {
      settings,
      products,
      stores,
      members,
      suppliers,
      users,
      notifications,
      payments,
    });
    const settlement = createOrderSettlement(ctx, { payments, orders, escrow, notifications });
    return {
      api: Object.assign(orders, { settlement }),
      routes: async (app: App) => {
        await app.register(ordersRoutes(orders));
        await app.register(orderPaymentsRoutes(orders, settlement));
        // The payments module's own routes (return pages, webhook) follow, as the API document lists them.
        await app.register(payments.providerRoutes);
      },
    };
  },
});
