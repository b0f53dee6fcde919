import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users, type Role } from './users.js';

export const ANNOUNCEMENT_STATUSES = ['QUEUED', 'SENDING', 'SENT'] as const;
export type AnnouncementStatus = (typeof ANNOUNCEMENT_STATUSES)[number];

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** An administrator's message to every user or to one role, sent in batches by a job. */
export const announcements = pgTable(
  'announcements',
  {
    id: uuid('id').primaryKey(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    // Null: every role.
    role: text('role').$type<Role>(),
    status: text('status').$type<AnnouncementStatus>().notNull(),
    // Counted when sending starts; null while queued.
    recipients: integer('recipients'),
    sent: integer('sent').notNull().default(0),
    // The greatest user id of the audience when sending started: accounts made later are not in it.
    audienceEnd: uuid('audience_end'),
    // The last user id a committed batch notified: the next batch starts after it.
    sentThrough: uuid('sent_through'),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: ts('created_at').notNull(),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
  },
  (t) => [index('announcements_created_idx').on(t.createdAt.desc(), t.id.desc())],
);
