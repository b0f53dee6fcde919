import { defineModule } from '../module.js';
import { createDocumentsService } from './documents.service.js';
import { donationsRoutes } from './donations.routes.js';
import { createDonationsService, type DonationsService } from './donations.service.js';
import { createFinancialService } from './financial.service.js';

/** Food given by suppliers to associations, money given by anyone (a payment subject), their receipts. */
export interface DonationsApi {
  figures: DonationsService['figures'];
}

declare module '../module.js' {
  interface ModuleApis {
    donations: DonationsApi;
  }
}

export const donationsModule = defineModule({
  name: 'donations',
  needs: ['products', 'suppliers', 'associations', 'notifications', 'payments', 'payouts', 'settings', 'users'],
  build(ctx, { products, suppliers, associations, notifications, payments, payouts, settings, users }) {
    const financial = createFinancialService(ctx, { associations, notifications, payments, payouts, settings });
    const donations = createDonationsService(ctx, {
      products,
      suppliers,
      associations,
      notifications,
      financial,
      settings,
    });
    const documents = createDocumentsService(ctx, { associations, users });
    return {
      api: Object.assign(donations, { financial, documents }),
      routes: donationsRoutes(donations, financial, documents),
    };
  },
});
