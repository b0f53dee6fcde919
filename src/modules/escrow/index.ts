import { defineModule } from '../module.js';
import { escrowAdminRoutes } from './escrow-admin.routes.js';
import { createEscrowAdminService } from './escrow-admin.service.js';
import { createEscrowReleases } from './escrow-release.js';
import { createEscrowService, type EscrowService } from './escrow.service.js';

export { ESCROW_STATES } from '../../db/schema/escrow.js';
export type { EscrowState } from '../../db/schema/escrow.js';
export type { EscrowActor, EscrowRefund } from './escrow.service.js';

/** Money held for an order until it is done: hold, release to the supplier, refund, disputes. */
export interface EscrowApi {
  find: EscrowService['find'];
  hold: EscrowService['hold'];
  onRefund: EscrowService['onRefund'];
  refund: EscrowService['refund'];
  refundExtra: EscrowService['refundExtra'];
}

declare module '../module.js' {
  interface ModuleApis {
    escrow: EscrowApi;
  }
}

export const escrowModule = defineModule({
  name: 'escrow',
  needs: ['ledger', 'payouts', 'settings', 'suppliers', 'notifications', 'payments'],
  build(ctx, { ledger, payouts, settings, suppliers, notifications, payments }) {
    const escrow = createEscrowService(ctx, { ledger });
    const releases = createEscrowReleases(ctx, { ledger, payouts, settings, suppliers, notifications });
    const admin = createEscrowAdminService(ctx, {
      escrow,
      releases,
      ledger,
      payouts,
      payments,
      suppliers,
      notifications,
    });
    return { api: Object.assign(escrow, { releases, admin }), routes: escrowAdminRoutes(admin) };
  },
});
