import { Type, type Static } from 'typebox';
import { ANNOUNCEMENT_STATUSES } from '../../db/schema/announcements.js';
import { ROLES } from '../users/index.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';

export const AnnouncementBodySchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 100, description: 'the title of the notification and of its push' }),
    // The text goes out as the push's body and again in its data, under FCM's 4 KB per message.
    message: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'the body of the notification, push, SMS and email',
    }),
    role: Type.Optional(StringEnum(ROLES, { description: 'only the users of this role; every user when absent' })),
  },
  { additionalProperties: false },
);
export type AnnouncementBody = Static<typeof AnnouncementBodySchema>;

export const AnnouncementSchema = Type.Object(
  {
    id: IdSchema,
    title: Type.String(),
    message: Type.String(),
    role: Nullable(StringEnum(ROLES, { description: 'null: every user' })),
    status: StringEnum(ANNOUNCEMENT_STATUSES, {
      description: 'QUEUED until its first batch runs, SENDING between batches, SENT once every batch ran',
    }),
    recipients: Nullable(
      Type.Integer({
        minimum: 0,
        description: 'active, verified accounts it reaches, counted when sending starts (null while QUEUED)',
      }),
    ),
    sent: Type.Integer({ minimum: 0, description: 'users notified so far' }),
    createdBy: IdSchema,
    createdAt: TimestampSchema,
    finishedAt: Nullable(TimestampSchema),
  },
  { title: 'Announcement' },
);
export type AnnouncementView = Static<typeof AnnouncementSchema>;

export const AnnouncementListQuerySchema = Type.Object(
  { ...PageQuerySchema.properties },
  { additionalProperties: false },
);
export type AnnouncementListQuery = Static<typeof AnnouncementListQuerySchema>;
