import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { stores } from './stores.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Roles a member can hold on a store; the owner (the supplier) is OWNER without a membership row. */
export const STORE_MEMBER_ROLES = ['MANAGER', 'STAFF'] as const;
export type StoreMemberRole = (typeof STORE_MEMBER_ROLES)[number];
export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED', 'EXPIRED', 'REVOKED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const staffInvitations = pgTable(
  'staff_invitations',
  {
    id: uuid('id').primaryKey(),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    invitedBy: uuid('invited_by')
      .notNull()
      .references(() => users.id),
    // Exactly one of the two: where the invitation was sent, and whom it is for.
    phoneNumber: text('phone_number'),
    email: text('email'),
    role: text('role').$type<StoreMemberRole>().notNull(),
    // SHA-256 of the single-use token; the token itself only ever exists in the message sent.
    tokenHash: text('token_hash').notNull(),
    status: text('status').$type<InvitationStatus>().notNull().default('PENDING'),
    expiresAt: ts('expires_at').notNull(),
    respondedAt: ts('responded_at'),
    respondedBy: uuid('responded_by').references(() => users.id),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('staff_invitations_token_key').on(t.tokenHash),
    uniqueIndex('staff_invitations_pending_phone_key').on(t.storeId, t.phoneNumber).where(sql`status = 'PENDING'`),
    uniqueIndex('staff_invitations_pending_email_key').on(t.storeId, t.email).where(sql`status = 'PENDING'`),
    index('staff_invitations_phone_idx').on(t.phoneNumber).where(sql`status = 'PENDING'`),
    index('staff_invitations_email_idx').on(t.email).where(sql`status = 'PENDING'`),
    index('staff_invitations_store_idx').on(t.storeId, t.status),
    check('staff_invitations_one_contact', sql`(phone_number is null) <> (email is null)`),
  ],
);

export const storeMembers = pgTable(
  'store_members',
  {
    id: uuid('id').primaryKey(),
    storeId: uuid('store_id')
      .notNull()
      .references(() => stores.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role').$type<StoreMemberRole>().notNull(),
    invitationId: uuid('invitation_id').references(() => staffInvitations.id),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    // A removed member keeps the row (who did what on the store stays readable); a new invitation makes a new row.
    removedAt: ts('removed_at'),
  },
  (t) => [
    uniqueIndex('store_members_store_user_key').on(t.storeId, t.userId).where(sql`removed_at is null`),
    index('store_members_user_idx').on(t.userId).where(sql`removed_at is null`),
  ],
);
