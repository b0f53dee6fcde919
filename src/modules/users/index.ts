import { defineModule } from '../module.js';
import { usersRoutes } from './users.routes.js';
import { createUsersService, type UsersService } from './users.service.js';

export type { AccountHooks, UsersService } from './users.service.js';
export type { UserRecord } from './users.repository.js';
export { PasswordSchema, RegisterBodySchema, UserSchema } from './users.schemas.js';
export type { AdminCreateUserBody, RegisterBody } from './users.schemas.js';
export { toUserView } from './users.service.js';
export { ROLES, USER_STATUSES } from '../../db/schema/users.js';
export type { Role } from '../../db/schema/users.js';

/** Accounts: profiles, roles, statuses; the sign-in side registers its hooks on it. */
export type UsersApi = UsersService;

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
