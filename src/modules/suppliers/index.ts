import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { suppliersAdminRoutes } from './suppliers-admin.routes.js';
import { createSuppliersAdminService, type SuppliersAdminService } from './suppliers-admin.service.js';
import { suppliersRoutes } from './suppliers.routes.js';
import {
  createSuppliersService,
  type StoreCounter,
  type SuppliersDeps,
  type SuppliersService,
} from './suppliers.service.js';

export { isLiveSupplier, isPublicSupplier } from './supplier-visibility.js';
export type { CreateProfileBody } from './suppliers.schemas.js';
export { KYC_STATUSES, VERIFICATION_STATUSES } from '../../db/schema/suppliers.js';
export type { KycStatus } from '../../db/schema/suppliers.js';
/** The supplier's summary as PostgreSQL writes it (a product's page embeds it). */
export { supplierSummaryJson } from './suppliers.json-sql.js';
export { commissionRateBps } from './commission-sql.js';

/** Supplier profiles: creation, verification, visibility, commission; their deletion hooks. */
export interface SuppliersApi {
  create: SuppliersService['create'];
  figures: SuppliersService['figures'];
  findOwnProfile: SuppliersService['findOwnProfile'];
  findProfile: SuppliersService['findProfile'];
  forceVerification: SuppliersService['forceVerification'];
  isPublic: SuppliersService['isPublic'];
  lockProfile: SuppliersService['lockProfile'];
  onProfileDeleted: SuppliersService['onProfileDeleted'];
  requireOwnProfile: SuppliersService['requireOwnProfile'];
  setKycStatus: SuppliersService['setKycStatus'];
  setRating: SuppliersService['setRating'];
  summariesByIds: SuppliersService['summariesByIds'];
  admin: Pick<SuppliersAdminService, 'verify'>;
  /** The stores module counts a supplier's stores (it is built after this one). */
  registerStoreCounter(counter: StoreCounter): void;
}

declare module '../module.js' {
  interface ModuleApis {
    suppliers: SuppliersApi;
  }
}

export const suppliersModule = defineModule({
  name: 'suppliers',
  needs: ['settings', 'subscriptions'],
  build(ctx, { settings, subscriptions }) {
    const deps: SuppliersDeps = { subscriptions, settings };
    const suppliers = createSuppliersService(ctx, deps);
    const admin = createSuppliersAdminService(ctx);
    subscriptions.useSuppliers({
      lockProfile: (ex, by) => suppliers.lockProfile(ex, by),
      findProfile: (id, ex) => suppliers.findProfile(id, ex),
      findOwnProfile: (userId) => suppliers.findOwnProfile(userId),
    });
    const registerStoreCounter = (counter: StoreCounter) => {
      deps.stores = counter;
    };
    return {
      api: Object.assign(suppliers, { admin, registerStoreCounter }),
      routes: async (app: App) => {
        await app.register(suppliersRoutes(suppliers));
        await app.register(suppliersAdminRoutes(admin));
      },
    };
  },
});
