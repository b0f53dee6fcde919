import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { createAdvertisingAdminService } from './advertising-admin.service.js';
import { advertisingRoutes } from './advertising.routes.js';
import { createAdvertisingService, type AdvertisingService } from './advertising.service.js';
import { billingRoutes } from './billing.routes.js';
import { createAdBilling } from './billing.service.js';
import { createStatements } from './statements.service.js';

/**
 * Advertisers' campaigns, their moderation, serving ads to the apps and counting views and clicks,
 * paid from each advertiser's prepaid balance (top-ups are a payment subject; spend is on the ledger).
 */
export interface AdvertisingApi {
  figures: AdvertisingService['figures'];
  isAdvertiser: AdvertisingService['isAdvertiser'];
  serve: AdvertisingService['serve'];
  serving: AdvertisingService['serving'];
}

declare module '../module.js' {
  interface ModuleApis {
    advertising: AdvertisingApi;
  }
}

export const advertisingModule = defineModule({
  name: 'advertising',
  needs: ['notifications', 'settings', 'products', 'stores', 'suppliers', 'ledger', 'payments'],
  build(ctx, { notifications, settings, products, stores, suppliers, ledger, payments }, env) {
    const advertising = createAdvertisingService(ctx, {
      ledger,
      notifications,
      settings,
      apiPrefix: env.apiPrefix,
      targets: { product: products.isPublic, store: stores.isPublic, supplier: suppliers.isPublic },
    });
    const admin = createAdvertisingAdminService(ctx, advertising, { notifications });
    const billing = createAdBilling(ctx, {
      ledger,
      notifications,
      payments,
      settings,
      spend: advertising.spend,
      changed: advertising.serving.changed,
    });
    const statements = createStatements(ctx, { ledger, billing });
    return {
      api: Object.assign(advertising, { admin, billing, statements }),
      routes: async (app: App) => {
        await advertisingRoutes(advertising, admin)(app);
        await billingRoutes(billing, statements)(app);
      },
      close: () => advertising.close(),
    };
  },
});
