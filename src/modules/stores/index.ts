import { defineModule } from '../module.js';
import { storesRoutes } from './stores.routes.js';
import { createStoresService, type StoresService } from './stores.service.js';

export type { MemberRole, StoresService } from './stores.service.js';
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

/** Suppliers' stores: opening hours, closures, who may do what on a store; their deletion hooks and statistics. */
export type StoresApi = StoresService;

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
