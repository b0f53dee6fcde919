import type { App } from '../../http/types.js';
import { MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './staff.schemas.js';
import type { StaffService } from './staff.service.js';

const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;

export function staffRoutes(staff: StaffService) {
  return async (app: App) => {
    const tags = ['staff'];
    app.get(
      '/staff/my-stores',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Stores where the signed-in user is a member, with the role',
          querystring: S.PageOnlyQuerySchema,
          response: { 200: OkPage(S.MyStoreSchema) },
        },
      },
      async (req) => {
        const r = await staff.myStores(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/staff/invitations',
      {
        config: auth,
        schema: {
          tags,
          summary: "Pending invitations sent to the signed-in user's verified phone number or email",
          querystring: S.PageOnlyQuerySchema,
          response: { 200: OkPage(S.MyInvitationSchema) },
        },
      },
      async (req) => {
        const r = await staff.listMyInvitations(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/staff/invitations/:token/accept',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Accept an invitation (its code comes in the SMS or email)',
          params: S.TokenParamsSchema,
          errors: [409, 410],
          response: { 200: Ok(S.MyStoreSchema) },
        },
      },
      async (req) => ok(await staff.accept(req.user, req.params.token)),
    );

    app.post(
      '/staff/invitations/:token/reject',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Decline an invitation',
          params: S.TokenParamsSchema,
          errors: [409, 410],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await staff.reject(req.user, req.params.token)),
    );

    app.post(
      '/staff/stores/:storeId/invite',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Invite someone by phone number or email (store owner)',
          params: S.StoreParamsSchema,
          body: S.InviteBodySchema,
          errors: [409],
          response: { 201: Ok(S.InvitationSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await staff.invite(req.user, req.params.storeId, req.body))),
    );

    app.get(
      '/staff/stores/:storeId',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Members and pending invitations of a store (owner or manager)',
          params: S.StoreParamsSchema,
          response: { 200: Ok(S.StaffListSchema) },
        },
      },
      async (req) => ok(await staff.listStaff(req.user, req.params.storeId)),
    );

    app.get(
      '/staff/stores/:storeId/my-role',
      {
        config: auth,
        schema: {
          tags,
          summary: "The signed-in user's role on the store and what it allows",
          params: S.StoreParamsSchema,
          response: { 200: Ok(S.MyRoleSchema) },
        },
      },
      async (req) => ok(await staff.myRole(req.user, req.params.storeId)),
    );

    app.patch(
      '/staff/stores/:storeId/members/:userId',
      {
        config: sup,
        schema: {
          tags,
          summary: "Change a member's role (store owner)",
          params: S.MemberParamsSchema,
          body: S.UpdateMemberBodySchema,
          response: { 200: Ok(S.MemberSchema) },
        },
      },
      async (req) => ok(await staff.updateMember(req.user, req.params.storeId, req.params.userId, req.body.role)),
    );

    app.delete(
      '/staff/stores/:storeId/members/:userId',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Remove a member (store owner)',
          params: S.MemberParamsSchema,
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await staff.removeMember(req.user, req.params.storeId, req.params.userId)),
    );
  };
}
