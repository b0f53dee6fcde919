import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { createBillingService, type SupplierDirectory } from './billing.service.js';
import { createChargeRefunds } from './charge-refunds.service.js';
import { createPlansService } from './plans.service.js';
import { createPromoCodesService } from './promo-codes.service.js';
import { subscriptionsRoutes } from './subscriptions.routes.js';
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions.service.js';

export type { SupplierDirectory } from './billing.service.js';
export { ChangePlanBodySchema, LimitsSchema } from './subscriptions.schemas.js';
export { planDiscountBps } from './commission-discount.js';

/**
 * Plans, promo codes, a supplier's subscription and paying for it (billing, a payment subject).
 * Suppliers are built after this module: they register what billing reads of them (`useSuppliers`).
 */
export interface SubscriptionsApi {
  cancelAll: SubscriptionsService['cancelAll'];
  changePlan: SubscriptionsService['changePlan'];
  getLimits: SubscriptionsService['getLimits'];
  registerProductCounter: SubscriptionsService['registerProductCounter'];
  useSuppliers(directory: SupplierDirectory): void;
}

declare module '../module.js' {
  interface ModuleApis {
    subscriptions: SubscriptionsApi;
  }
}

export const subscriptionsModule = defineModule({
  name: 'subscriptions',
  needs: ['settings', 'payments', 'notifications'],
  build(ctx, { settings, payments, notifications }) {
    let directory: SupplierDirectory | undefined;
    const dir = () => {
      if (!directory) throw new Error('subscriptions: the suppliers module is not registered');
      return directory;
    };
    const suppliers: SupplierDirectory = {
      lockProfile: (ex, by) => dir().lockProfile(ex, by),
      findProfile: (id, ex) => dir().findProfile(id, ex),
      findOwnProfile: (userId) => dir().findOwnProfile(userId),
    };
    const subscriptions = createSubscriptionsService(ctx);
    const plans = createPlansService(ctx);
    const promos = createPromoCodesService(ctx);
    const billing = createBillingService(ctx, {
      subscriptions,
      plans,
      promos,
      payments,
      settings,
      suppliers,
      notifications,
    });
    const refunds = createChargeRefunds(ctx, { payments, subscriptions, notifications });
    const routes = subscriptionsRoutes({
      subscriptions,
      plans,
      promos,
      billing,
      refunds,
      supplierIdOf: billing.supplierIdOf,
    });
    const useSuppliers = (d: SupplierDirectory) => {
      directory = d;
    };
    return {
      api: Object.assign(subscriptions, { plans, promos, billing, useSuppliers }),
      routes: routes as (app: App) => Promise<void>,
    };
  },
});
