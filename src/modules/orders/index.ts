import type { App } from '../../http/types.js';
import { createSettlementService, paymentsRoutes, type SettlementService } from '../payments/index.js';
import { defineModule } from '../module.js';
import { ordersRoutes } from './orders.routes.js';
import { createOrdersService, type OrdersService } from './orders.service.js';

export type { OrdersService } from './orders.service.js';

/** Clients' orders: stock held, payment, escrow, pickup code, the order's life; the provider's money events. */
export type OrdersApi = OrdersService & { settlement: SettlementService };

declare module '../module.js' {
  interface ModuleApis {
    orders: OrdersApi;
  }
}

export const ordersModule = defineModule({
  name: 'orders',
  needs: [
    'settings',
    'products',
    'stores',
    'staff',
    'suppliers',
    'users',
    'notifications',
    'payments',
    'escrow',
    'ledger',
    'payouts',
  ],
  build(ctx, d) {
    const { settings, products, stores, suppliers, users, notifications, payments, escrow, ledger, payouts } = d;
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
    const settlement = createSettlementService(ctx, {
      payments,
      orders,
      escrow,
      ledger,
      notifications,
      provider: () => ctx.payments,
    });
    // The provider's payout webhooks settle payouts; one we never sent is recorded as unknown.
    settlement.onPayoutEvent(async (tx, ev) => {
      const outcome = await payouts.applyProviderPayout(tx, ev.payout);
      return outcome === 'unknown_payout' ? 'unknown_payment' : outcome;
    });
    return {
      api: Object.assign(orders, { settlement }),
      routes: async (app: App) => {
        await app.register(ordersRoutes(orders));
        await app.register(paymentsRoutes(orders, settlement, { appReturnUrl: ctx.config.APP_RETURN_URL }));
      },
    };
  },
});
