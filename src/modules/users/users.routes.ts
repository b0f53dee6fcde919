import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { SUPPLIER_LISTINGS } from '../../listings/index.js';
import { IdParamsSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import {
  AdminCreateUserBodySchema,
  AdminUserQuerySchema,
  UserRoleBodySchema,
  UserSchema,
  UserStatusBodySchema,
} from './users.schemas.js';
import type { UsersService } from './users.service.js';

const tags = ['admin: users'];
const adm = { access: 'ADM' } as const;
// A user's status, role or deletion shows or hides the supplier or association they are.
const EVERY_LISTING = [...SUPPLIER_LISTINGS, 'associations.'] as const;

export function usersRoutes(users: UsersService) {
  return async (app: App) => {
    app.get(
      '/admin/users',
      {
        config: adm,
        schema: {
          tags,
          summary: 'List users (newest first unless sorted)',
          querystring: AdminUserQuerySchema,
          response: { 200: OkPage(UserSchema) },
        },
      },
      async (req) => {
        const r = await users.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/admin/users',
      {
        config: { ...adm, listings: EVERY_LISTING },
        schema: {
          tags,
          summary: 'Create a verified, active user of any role',
          body: AdminCreateUserBodySchema,
          errors: [409],
          response: { 201: Ok(UserSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await users.adminCreate(req.user, req.body))),
    );

    app.get(
      '/admin/users/:id',
      { config: adm, schema: { tags, summary: 'One user', params: IdParamsSchema, response: { 200: Ok(UserSchema) } } },
      async (req) => ok(await users.get(req.params.id)),
    );

    app.patch(
      '/admin/users/:id/status',
      {
        config: { ...adm, listings: EVERY_LISTING },
        schema: {
          tags,
          summary: 'Activate or suspend (suspending ends every session)',
          params: IdParamsSchema,
          body: UserStatusBodySchema,
          errors: [409],
          response: { 200: Ok(UserSchema) },
        },
      },
      async (req) => ok(await users.setStatus(req.user, req.params.id, req.body.status, req.body.reason)),
    );

    app.patch(
      '/admin/users/:id/role',
      {
        config: { ...adm, listings: EVERY_LISTING },
        schema: {
          tags,
          summary: 'Change role',
          params: IdParamsSchema,
          body: UserRoleBodySchema,
          errors: [409],
          response: { 200: Ok(UserSchema) },
        },
      },
      async (req) => ok(await users.setRole(req.user, req.params.id, req.body.role)),
    );

    app.patch(
      '/admin/users/:id/verify',
      {
        config: { ...adm, listings: EVERY_LISTING },
        schema: {
          tags,
          summary: 'Mark the account verified',
          params: IdParamsSchema,
          errors: [409],
          response: { 200: Ok(UserSchema) },
        },
      },
      async (req) => ok(await users.forceVerify(req.user, req.params.id)),
    );

    app.delete(
      '/admin/users/:id',
      {
        config: { ...adm, listings: EVERY_LISTING },
        schema: {
          tags,
          summary: 'Delete: the user can no longer sign in; records are kept',
          params: IdParamsSchema,
          errors: [409],
          response: { 200: Ok(Type.Object({ message: Type.String(), user: UserSchema })) },
        },
      },
      async (req) => ok({ message: 'User deleted', user: await users.setStatus(req.user, req.params.id, 'DELETED') }),
    );
  };
}
