import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { payoutsAdminRoutes } from './payouts-admin.routes.js';
import { createPayoutsAdminService } from './payouts-admin.service.js';
import { createPayoutsService, type PayoutsService } from './payouts.service.js';

export type { PayoutRecord } from './payouts.repository.js';
export { toPayoutView } from './payouts.service.js';
export { PAYOUT_STATES } from '../../db/schema/payouts.js';
export type { PayoutState } from '../../db/schema/payouts.js';

/** Money sent out to suppliers and associations: payouts, their attempts at the provider, the admin list. */
export interface PayoutsApi {
  createForDonation: PayoutsService['createForDonation'];
  createForRelease: PayoutsService['createForRelease'];
  ofDonations: PayoutsService['ofDonations'];
  ofOrders: PayoutsService['ofOrders'];
  setAssociationPayee: PayoutsService['setAssociationPayee'];
}

declare module '../module.js' {
  interface ModuleApis {
    payouts: PayoutsApi;
  }
}

export const payoutsModule = defineModule({
  name: 'payouts',
  needs: ['ledger', 'suppliers', 'notifications', 'payments'],
  build(ctx, { ledger, suppliers, notifications, payments }) {
    const payouts = createPayoutsService(ctx, { ledger, suppliers, notifications });
    // The provider's payout webhooks settle payouts; one we never sent is recorded as unknown.
    payments.settlement.onPayoutEvent(async (tx, ev) => {
      const outcome = await payouts.applyProviderPayout(tx, ev.payout);
      return outcome === 'unknown_payout' ? 'unknown_payment' : outcome;
    });
    const admin = createPayoutsAdminService(ctx);
    return { api: Object.assign(payouts, { admin }), routes: payoutsAdminRoutes(admin) as (app: App) => Promise<void> };
  },
});
