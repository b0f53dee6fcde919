import { defineModule } from '../module.js';
import { storesRoutes } from './stores.routes.js';
import { createStoresService, type StoresService } from './stores.service.js';

export type { MemberRole } from './stores.service.js';
export {
  assertRoleCan,
  roleCan,
  STORE_CAPABILITIES,
  STORE_ROLE_CAPABILITIES,
  type StoreCapability,
  type StoreMemberRole,
  type StoreRole,
} from './store-permissions.js';
/** The store as its view shows it, written by PostgreSQL (a product's page embeds it). */
export { storeViewPairs } from './stores.json-sql.js';
/** When the next store opens or closes (the listing cache's answers expire then). */
export { nextClosureChange } from './stores.repository.js';
export { StoreSchema } from './stores.schemas.js';
export type { CreateStoreBody, StoreView } from './stores.schemas.js';

/** Suppliers' stores: opening hours, closures, who may do what on a store; their deletion hooks and statistics. */
export interface StoresApi {
  acceptingOrders: StoresService['acceptingOrders'];
  assertAcceptingOrders: StoresService['assertAcceptingOrders'];
  authorize: StoresService['authorize'];
  countBySupplier: StoresService['countBySupplier'];
  create: StoresService['create'];
  findStore: StoresService['findStore'];
  getPublic: StoresService['getPublic'];
  isPublic: StoresService['isPublic'];
  listOwn: StoresService['listOwn'];
  onStoreDeleted: StoresService['onStoreDeleted'];
  registerMemberRoles: StoresService['registerMemberRoles'];
  registerStatistics: StoresService['registerStatistics'];
  resolveRole: StoresService['resolveRole'];
  search: StoresService['search'];
  viewsByIds: StoresService['viewsByIds'];
}

declare module '../module.js' {
  interface ModuleApis {
    stores: StoresApi;
  }
}

export const storesModule = defineModule({
  name: 'stores',
  needs: ['suppliers'],
  build(ctx, { suppliers }) {
    const stores = createStoresService(ctx, { suppliers });
    suppliers.registerStoreCounter(stores);
    return { api: stores, routes: storesRoutes(stores) };
  },
});
