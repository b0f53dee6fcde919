import { Type, type Static } from 'typebox';
import { PUSH_PLATFORMS } from '../../db/schema/notifications.js';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../shared/schemas.js';
import { TimezoneSchema } from '../../shared/time-zones.js';
import { CATEGORIES, CHANNELS, NOTIFICATION_TYPES } from './notification-types.js';

export const NotificationSchema = Type.Object(
  {
    id: IdSchema,
    type: StringEnum(NOTIFICATION_TYPES),
    category: StringEnum(CATEGORIES),
    title: Type.String(),
    body: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'ids the app opens (supplierId, storeId...)' }),
    readAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
  },
  { title: 'Notification' },
);
export type NotificationView = Static<typeof NotificationSchema>;

export const ListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    unread: Type.Optional(Type.Boolean({ description: 'true: only notifications not read yet' })),
    category: Type.Optional(StringEnum(CATEGORIES)),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;

export const UnreadCountSchema = Type.Object({ count: Type.Integer({ minimum: 0 }) }, { title: 'UnreadCount' });
export const ChangedCountSchema = Type.Object(
  { count: Type.Integer({ minimum: 0, description: 'rows changed' }) },
  { title: 'ChangedCount' },
);

const ChannelSwitchesSchema = Type.Object(
  Object.fromEntries(CHANNELS.map((c) => [c, Type.Boolean()])) as Record<
    (typeof CHANNELS)[number],
    ReturnType<typeof Type.Boolean>
  >,
  { title: 'ChannelSwitches' },
);
const LocalTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'local time, HH:MM',
  examples: ['22:00'],
});

const QuietHoursSchema = Type.Object(
  {
    start: LocalTime,
    end: LocalTime,
    timezone: Type.String({ description: 'IANA time zone the times are in', examples: ['Africa/Dakar'] }),
  },
  { title: 'QuietHours' },
);

export const PreferencesSchema = Type.Object(
  {
    channels: Type.Object(
      Object.fromEntries(CATEGORIES.map((c) => [c, ChannelSwitchesSchema])) as Record<
        (typeof CATEGORIES)[number],
        typeof ChannelSwitchesSchema
      >,
      { description: 'per category, whether push, SMS and email are sent; in-app notifications are always kept' },
    ),
    quietHours: Nullable(QuietHoursSchema),
  },
  { title: 'NotificationPreferences' },
);
export type PreferencesView = Static<typeof PreferencesSchema>;

const ChannelPatchSchema = Type.Object(
  Object.fromEntries(CHANNELS.map((c) => [c, Type.Optional(Type.Boolean())])) as Record<
    (typeof CHANNELS)[number],
    ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>
  >,
  { additionalProperties: false },
);
export const PreferencesPatchSchema = Type.Object(
  {
    channels: Type.Optional(
      Type.Object(
        Object.fromEntries(CATEGORIES.map((c) => [c, Type.Optional(ChannelPatchSchema)])) as Record<
          (typeof CATEGORIES)[number],
          ReturnType<typeof Type.Optional<typeof ChannelPatchSchema>>
        >,
        { additionalProperties: false },
      ),
    ),
    quietHours: Type.Optional(
      Nullable(
        Type.Object(
          { start: LocalTime, end: LocalTime, timezone: Type.Optional(TimezoneSchema) },
          {
            additionalProperties: false,
            description: 'push is held from start to end (local time); null removes quiet hours',
          },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);
export type PreferencesPatch = Static<typeof PreferencesPatchSchema>;

export const DeviceTokenBodySchema = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 4096, pattern: '^\\S+$', description: 'the FCM registration token' }),
    platform: StringEnum(PUSH_PLATFORMS),
    deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    appVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type DeviceTokenBody = Static<typeof DeviceTokenBodySchema>;

export const DeviceTokenRemoveBodySchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);

export const DeviceTokenSchema = Type.Object(
  {
    id: IdSchema,
    platform: StringEnum(PUSH_PLATFORMS),
    deviceId: Nullable(Type.String()),
    appVersion: Nullable(Type.String()),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'DeviceToken' },
);
export type DeviceTokenView = Static<typeof DeviceTokenSchema>;
