import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Which handler has applied which domain event: a job delivered again (a retry after the handler
 * had finished but before the queue recorded it) is then skipped. Pruned after 30 days.
 */
export const eventHandlings = pgTable(
  'event_handlings',
  {
    eventId: uuid('event_id').notNull(),
    handler: text('handler').notNull(),
    handledAt: timestamp('handled_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.handler] })],
);
