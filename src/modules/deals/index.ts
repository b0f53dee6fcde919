import { defineModule } from '../module.js';
import { type BookingsService, createBookingsService } from './bookings.service.js';
import { createDealsSearchService } from './deals-search.service.js';
import { dealsRoutes } from './deals.routes.js';
import { createDealsService, type DealsService } from './deals.service.js';

export type { CreateDealBody } from './deals.schemas.js';

/**
 * Suppliers' deals, clients' bookings with a QR code shown at pickup (paid at the counter, or in the
 * app: the `booking` payment subject, its escrow released at the counter), the deals lists.
 */
export interface DealsApi {
  approve: DealsService['approve'];
  create: DealsService['create'];
  figures: DealsService['figures'];
  listOfSupplier: DealsService['listOfSupplier'];
  bookings: Pick<BookingsService, 'tokens'>;
}

declare module '../module.js' {
  interface ModuleApis {
    deals: DealsApi;
  }
}

export const dealsModule = defineModule({
  name: 'deals',
  needs: ['settings', 'suppliers', 'stores', 'staff', 'notifications', 'auth', 'ledger', 'payments', 'payouts'],
  build(ctx, { settings, suppliers, stores, staff, notifications, auth, ledger, payments, payouts }) {
    const { members } = staff;
    const deals = createDealsService(ctx, { settings, suppliers, stores, members, notifications });
    const bookings = createBookingsService(ctx, {
      settings,
      stores,
      members,
      suppliers,
      notifications,
      ledger,
      payments,
      payouts,
    });
    const search = createDealsSearchService(ctx);
    return {
      api: Object.assign(deals, { bookings, search }),
      routes: dealsRoutes(deals, bookings, search, auth.sessions.authenticate),
    };
  },
});
