import { Type, type Static } from 'typebox';
import { ROLES, SELF_REGISTRATION_ROLES, USER_STATUSES } from '../../db/schema/users.js';
import {
  EmailSchema,
  IdSchema,
  Nullable,
  PageQuerySchema,
  PhoneSchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';

export const PasswordSchema = Type.String({ minLength: 8, maxLength: 128 });
const NameSchema = Type.String({ minLength: 1, maxLength: 80 });

export const UserSchema = Type.Object(
  {
    id: IdSchema,
    role: StringEnum(ROLES),
    status: StringEnum(USER_STATUSES),
    phoneNumber: Nullable(Type.String()),
    email: Nullable(Type.String()),
    isVerified: Type.Boolean({ description: 'phone number verified (or verified by an administrator)' }),
    isEmailVerified: Type.Boolean(),
    profile: Type.Object({ firstName: Type.String(), lastName: Type.String(), avatarUrl: Nullable(Type.String()) }),
    preferences: Type.Record(Type.String(), Type.Unknown()),
    hasPassword: Type.Boolean(),
    lastLoginAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'User' },
);
export type UserView = Static<typeof UserSchema>;

const registerFields = {
  phoneNumber: PhoneSchema,
  password: PasswordSchema,
  firstName: NameSchema,
  lastName: NameSchema,
  email: Type.Optional(EmailSchema),
};

export const RegisterBodySchema = Type.Object(
  { ...registerFields, role: StringEnum(SELF_REGISTRATION_ROLES) },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBodySchema>;

export const AdminCreateUserBodySchema = Type.Object(
  { ...registerFields, role: StringEnum(ROLES) },
  { additionalProperties: false },
);
export type AdminCreateUserBody = Static<typeof AdminCreateUserBodySchema>;

export const USER_SORT_FIELDS = [
  'createdAt',
  'lastLoginAt',
  'lastName',
  'phoneNumber',
  'email',
  'role',
  'status',
] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];

export const AdminUserQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    sort: SortQuerySchema('AdminUserSort', USER_SORT_FIELDS, '-createdAt (newest first)'),
    role: Type.Optional(StringEnum(ROLES)),
    status: Type.Optional(StringEnum(USER_STATUSES)),
    verified: Type.Optional(Type.Boolean()),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type AdminUserQuery = Static<typeof AdminUserQuerySchema>;

export const UserStatusBodySchema = Type.Object(
  {
    status: StringEnum(['ACTIVE', 'SUSPENDED'] as const),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const UserRoleBodySchema = Type.Object({ role: StringEnum(ROLES) }, { additionalProperties: false });
