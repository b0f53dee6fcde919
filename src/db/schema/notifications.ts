import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sessions, users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** In-app notifications, one row per user and message. */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    type: text('type').notNull(),
    category: text('category').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    // The event (or other cause) that produced it: a retried handler finds its row instead of adding one.
    sourceKey: text('source_key'),
    readAt: ts('read_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('notifications_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('notifications_user_category_idx').on(t.userId, t.category, t.createdAt.desc(), t.id.desc()),
    index('notifications_user_unread_idx').on(t.userId, t.createdAt.desc(), t.id.desc()).where(sql`read_at is null`),
    uniqueIndex('notifications_user_source_key').on(t.userId, t.sourceKey),
  ],
);

/** Channel switches per category a user changed ({orders: {push: false}}); quiet hours. */
export const notificationPreferences = pgTable('notification_preferences', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id),
  channels: jsonb('channels').$type<Record<string, Record<string, boolean>>>().notNull().default({}),
  // "HH:MM" local times in `timezone`; both null when the user keeps no quiet hours.
  quietStart: text('quiet_start'),
  quietEnd: text('quiet_end'),
  timezone: text('timezone').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const PUSH_PLATFORMS = ['android', 'ios', 'web'] as const;
export type PushPlatform = (typeof PUSH_PLATFORMS)[number];

/** Push device tokens; a token belongs to one user at a time (the last who registered it). */
export const deviceTokens = pgTable(
  'device_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    token: text('token').notNull(),
    platform: text('platform').$type<PushPlatform>().notNull(),
    deviceId: text('device_id'),
    appVersion: text('app_version'),
    // The session that registered it: signing that session out removes the token.
    sessionId: uuid('session_id').references(() => sessions.id),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('device_tokens_token_key').on(t.token),
    index('device_tokens_user_idx').on(t.userId, t.updatedAt),
    index('device_tokens_session_idx').on(t.sessionId),
  ],
);
