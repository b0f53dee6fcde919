import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { nameOrderKey } from '../folding.js';

export const ROLES = [
  'CLIENT',
  'SUPPLIER_FOOD',
  'SUPPLIER_DEALS',
  'ASSOCIATION',
  'ADVERTISER',
  'ADMIN',
  'SUPER_ADMIN',
] as const;
export type Role = (typeof ROLES)[number];
export const SELF_REGISTRATION_ROLES = [
  'CLIENT',
  'SUPPLIER_FOOD',
  'SUPPLIER_DEALS',
  'ASSOCIATION',
  'ADVERTISER',
] as const;
export const USER_STATUSES = ['ACTIVE', 'SUSPENDED', 'DELETED'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    phoneNumber: text('phone_number'),
    email: text('email'),
    passwordHash: text('password_hash'),
    role: text('role').$type<Role>().notNull(),
    status: text('status').$type<UserStatus>().notNull().default('ACTIVE'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    avatarUrl: text('avatar_url'),
    preferences: jsonb('preferences').$type<Record<string, unknown>>().notNull().default({}),
    verifiedAt: ts('verified_at'),
    emailVerifiedAt: ts('email_verified_at'),
    lastLoginAt: ts('last_login_at'),
    deletedAt: ts('deleted_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('users_phone_number_key').on(t.phoneNumber),
    uniqueIndex('users_email_key').on(t.email),
    index('users_role_created_idx').on(t.role, t.createdAt),
    index('users_created_idx').on(t.createdAt),
    // The dashboard counts users by role and status from this index alone.
    index('users_role_status_idx').on(t.role, t.status),
    // The administrators' list sorted by last name, both ways (see nameOrderKey).
    index('users_last_name_order_idx').on(nameOrderKey(t.lastName), t.id),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    // The id of the only refresh token of this session that may still be used.
    refreshJti: uuid('refresh_jti').notNull(),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: ts('created_at').notNull(),
    lastUsedAt: ts('last_used_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('sessions_user_idx').on(t.userId).where(sql`revoked_at is null`)],
);

export const OTP_PURPOSES = ['registration', 'login', 'password_reset'] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];
export type OtpChannel = 'sms' | 'email';

export const otpCodes = pgTable(
  'otp_codes',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id),
    channel: text('channel').$type<OtpChannel>().notNull(),
    destination: text('destination').notNull(),
    purpose: text('purpose').$type<OtpPurpose>().notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    // Set when the code is used, replaced by a resend, or killed by too many wrong tries.
    closedAt: ts('closed_at'),
  },
  (t) => [index('otp_codes_lookup_idx').on(t.destination, t.purpose).where(sql`closed_at is null`)],
);

/** Every send to a destination, including ones withheld for unknown accounts: the hourly limit counts these. */
export const otpSends = pgTable(
  'otp_sends',
  {
    id: uuid('id').primaryKey(),
    destination: text('destination').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('otp_sends_destination_idx').on(t.destination, t.createdAt)],
);

export const identities = pgTable(
  'identities',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    email: text('email'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('identities_provider_subject_key').on(t.provider, t.subject),
    index('identities_user_idx').on(t.userId),
  ],
);
