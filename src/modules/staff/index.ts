import { defineModule } from '../module.js';
import { createStoreMembersService, type StoreMembersService } from './members.service.js';
import { staffRoutes } from './staff.routes.js';
import { createStaffService, type StaffService } from './staff.service.js';

/** A store's invited members and their roles; it answers the stores module's role questions. */
export interface StaffApi {
  assertStoreCapability: StaffService['assertStoreCapability'];
  members: Pick<StoreMembersService, 'roleOf' | 'storesWhere'>;
}

declare module '../module.js' {
  interface ModuleApis {
    staff: StaffApi;
  }
}

export const staffModule = defineModule({
  name: 'staff',
  needs: ['stores', 'users', 'suppliers'],
  build(ctx, { stores, users, suppliers }) {
    const members = createStoreMembersService(ctx);
    stores.registerMemberRoles(members.roleOf);
    // Before any other module's hook, as when the stores module revoked them itself.
    stores.onStoreDeleted((tx, storeId) => members.revokePendingInvitations(tx, storeId));
    stores.registerStatistics('staff', (ex, storeId) => members.staffCounts(ex, storeId));
    const staff = createStaffService(ctx, { stores, users, suppliers, members });
    return { api: Object.assign(staff, { members }), routes: staffRoutes(staff) };
  },
});
