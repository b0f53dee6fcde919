import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A setting's value as stored: the keys' schemas allow only numbers, strings and booleans. */
export type StoredSettingValue = number | string | boolean;

/**
 * Platform settings an administrator changed, one row per key ('business.paymentTimeoutMinutes').
 * A key without a row has its default (its schema's, or the configuration's for the commission).
 */
export const platformSettings = pgTable('platform_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<StoredSettingValue>().notNull(),
  updatedBy: uuid('updated_by')
    .notNull()
    .references(() => users.id),
  updatedAt: ts('updated_at').notNull(),
});

/** Every change of a setting: who, when, which key, from what to what, and why. Append-only. */
export const platformSettingChanges = pgTable(
  'platform_setting_changes',
  {
    id: uuid('id').primaryKey(),
    key: text('key').notNull(),
    oldValue: jsonb('old_value').$type<StoredSettingValue>().notNull(),
    newValue: jsonb('new_value').$type<StoredSettingValue>().notNull(),
    actorId: uuid('actor_id')
      .notNull()
      .references(() => users.id),
    reason: text('reason'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('platform_setting_changes_created_idx').on(t.createdAt, t.id),
    index('platform_setting_changes_key_idx').on(t.key, t.createdAt),
    index('platform_setting_changes_actor_idx').on(t.actorId, t.createdAt),
  ],
);
