import { Type, type Static } from 'typebox';
import { INVITATION_STATUSES, STORE_MEMBER_ROLES } from '../../db/schema/staff.js';
import {
  EmailSchema,
  IdSchema,
  Nullable,
  PageQuerySchema,
  PhoneSchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { StoreSchema, STORE_CAPABILITIES } from '../stores/index.js';

export const StoreRoleSchema = StringEnum(['OWNER', ...STORE_MEMBER_ROLES] as const);
const MemberRoleSchema = StringEnum(STORE_MEMBER_ROLES);

export const TokenParamsSchema = Type.Object(
  {
    token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'the invitation code received by SMS or email' }),
  },
  { additionalProperties: false },
);
export const StoreParamsSchema = Type.Object({ storeId: IdSchema }, { additionalProperties: false });
export const MemberParamsSchema = Type.Object({ storeId: IdSchema, userId: IdSchema }, { additionalProperties: false });

export const InviteBodySchema = Type.Object(
  {
    phoneNumber: Type.Optional(PhoneSchema),
    email: Type.Optional(EmailSchema),
    role: MemberRoleSchema,
  },
  { additionalProperties: false, description: 'exactly one of phoneNumber and email' },
);
export type InviteBody = Static<typeof InviteBodySchema>;

export const UpdateMemberBodySchema = Type.Object({ role: MemberRoleSchema }, { additionalProperties: false });

export const PageOnlyQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });

/** An invitation as the store owner sees it (the code is never shown again). */
export const InvitationSchema = Type.Object(
  {
    id: IdSchema,
    storeId: IdSchema,
    role: MemberRoleSchema,
    phoneNumber: Nullable(Type.String()),
    email: Nullable(Type.String()),
    status: StringEnum(INVITATION_STATUSES),
    expiresAt: TimestampSchema,
    createdAt: TimestampSchema,
  },
  { title: 'StoreInvitation' },
);
export type InvitationView = Static<typeof InvitationSchema>;

/** An invitation as the invited person sees it. */
export const MyInvitationSchema = Type.Object(
  {
    id: IdSchema,
    role: MemberRoleSchema,
    status: StringEnum(INVITATION_STATUSES),
    sentTo: StringEnum(['phone', 'email'] as const),
    expiresAt: TimestampSchema,
    createdAt: TimestampSchema,
    store: Type.Object({ id: IdSchema, name: Type.String(), address: Type.String(), city: Type.String() }),
  },
  { title: 'MyInvitation' },
);
export type MyInvitationView = Static<typeof MyInvitationSchema>;

export const MemberSchema = Type.Object(
  {
    userId: IdSchema,
    role: MemberRoleSchema,
    firstName: Type.String(),
    lastName: Type.String(),
    phoneNumber: Nullable(Type.String()),
    email: Nullable(Type.String()),
    joinedAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'StoreMember' },
);
export type MemberView = Static<typeof MemberSchema>;

export const StaffListSchema = Type.Object(
  {
    storeId: IdSchema,
    members: Type.Array(MemberSchema),
    pendingInvitations: Type.Array(InvitationSchema),
  },
  { title: 'StoreStaff' },
);
export type StaffList = Static<typeof StaffListSchema>;

export const MyStoreSchema = Type.Object(
  {
    role: MemberRoleSchema,
    since: TimestampSchema,
    store: StoreSchema,
  },
  { title: 'MyStore' },
);
export type MyStoreView = Static<typeof MyStoreSchema>;

export const MyRoleSchema = Type.Object(
  {
    storeId: IdSchema,
    role: StoreRoleSchema,
    capabilities: Type.Array(StringEnum(STORE_CAPABILITIES)),
  },
  { title: 'MyStoreRole' },
);
export type MyRoleView = Static<typeof MyRoleSchema>;
