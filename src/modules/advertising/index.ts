import { defineModule } from '../module.js';
import { createAdvertisingAdminService } from './advertising-admin.service.js';
import { advertisingRoutes } from './advertising.routes.js';
import { createAdvertisingService, type AdvertisingService } from './advertising.service.js';

/** Advertisers' campaigns, their moderation, serving ads to the apps and counting views and clicks. */
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
  needs: ['notifications', 'settings', 'products', 'stores', 'suppliers'],
  build(ctx, { notifications, settings, products, stores, suppliers }, env) {
    const advertising = createAdvertisingService(ctx, {
      notifications,
      settings,
      apiPrefix: env.apiPrefix,
      targets: { product: products.isPublic, store: stores.isPublic, supplier: suppliers.isPublic },
    });
    const admin = createAdvertisingAdminService(ctx, advertising, { notifications });
    return {
      api: Object.assign(advertising, { admin }),
      routes: advertisingRoutes(advertising, admin),
      close: () => advertising.close(),
    };
  },
});
