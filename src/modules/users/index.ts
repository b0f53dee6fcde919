import { defineModule } from '../module.js';
import { usersRoutes } from './users.routes.js';
import { createUsersService, type UsersService } from './users.service.js';

export type { AccountHooks } from './users.service.js';
export type { UserRecord } from './users.repository.js';
export { PasswordSchema, RegisterBodySchema, UserSchema } from './users.schemas.js';
export type { AdminCreateUserBody, RegisterBody } from './users.schemas.js';
export { toUserView } from './users.service.js';
export { ROLES, USER_STATUSES } from '../../db/schema/users.js';
export type { Role } from '../../db/schema/users.js';

/** Accounts: profiles, roles, statuses; the sign-in side registers its hooks on it. */
export interface UsersApi {
  adminCreate: UsersService['adminCreate'];
  claimEmail: UsersService['claimEmail'];
  countReachable: UsersService['countReachable'];
  create: UsersService['create'];
  ensureSuperAdmin: UsersService['ensureSuperAdmin'];
  figures: UsersService['figures'];
  findByEmail: UsersService['findByEmail'];
  findById: UsersService['findById'];
  findByPhone: UsersService['findByPhone'];
  reachableIdsAfter: UsersService['reachableIdsAfter'];
  registerAccountHooks: UsersService['registerAccountHooks'];
  update: UsersService['update'];
}

declare module '../module.js' {
  interface ModuleApis {
    users: UsersApi;
  }
}

export const usersModule = defineModule({
  name: 'users',
  needs: [],
  build(ctx) {
    const users = createUsersService(ctx);
    return { api: users, routes: usersRoutes(users) };
  },
});
