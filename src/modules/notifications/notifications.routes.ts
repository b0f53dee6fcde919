import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { IdParamsSchema, MessageSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import type { NotificationStream } from './notification-stream.js';
import * as S from './notifications.schemas.js';
import type { NotificationsService } from './notifications.service.js';
import { openStream } from './sse.js';

const auth = { access: 'Auth' } as const;
const tags = ['notifications'];

const EVENTS = Type.String({
  description:
    'Server-Sent Events, each `event: <name>` and `data: <JSON>`: first `retry: 5000` and `unread` `{"count": n}`; then ' +
    '`notification` (a Notification, as in the list) for each new one and `unread` after every change (new, read, deleted); ' +
    "`payment` (a Payment with its `subjectType` and `subjectId`) when a payment of the caller's succeeds, fails or expires. " +
    'A comment line (`: keep-alive`) every 25 s keeps proxies from closing it.',
});

export function notificationsRoutes(notifications: NotificationsService, stream: NotificationStream) {
  return async (app: App) => {
    app.get(
      '/notifications',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Own notifications, newest first',
          querystring: S.ListQuerySchema,
          response: { 200: OkPage(S.NotificationSchema) },
        },
      },
      async (req) => {
        const r = await notifications.list(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/notifications/unread-count',
      {
        config: auth,
        schema: { tags, summary: 'Number of notifications not read yet', response: { 200: Ok(S.UnreadCountSchema) } },
      },
      async (req) => ok(await notifications.unreadCount(req.user)),
    );

    app.get(
      '/notifications/stream',
      {
        config: auth,
        schema: {
          tags,
          summary:
            "Server-Sent Events: `unread` ({count}) at once and after each change, `notification` (a Notification) for each new one, `payment` (a payment of the caller's changed)",
          response: {
            200: {
              description: 'The stream, open until the client leaves or the server stops',
              content: { 'text/event-stream': { schema: EVENTS } },
            },
          },
        },
      },
      async (req, reply) => openStream(req, reply, stream, (await notifications.unreadCount(req.user)).count),
    );

    app.patch(
      '/notifications/read-all',
      {
        config: auth,
        schema: { tags, summary: 'Mark every notification read', response: { 200: Ok(S.ChangedCountSchema) } },
      },
      async (req) => ok(await notifications.markAllRead(req.user)),
    );

    app.patch(
      '/notifications/:id/read',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Mark one notification read',
          params: IdParamsSchema,
          response: { 200: Ok(S.NotificationSchema) },
        },
      },
      async (req) => ok(await notifications.markRead(req.user, req.params.id)),
    );

    app.delete(
      '/notifications',
      {
        config: auth,
        schema: { tags, summary: 'Delete every notification', response: { 200: Ok(S.ChangedCountSchema) } },
      },
      async (req) => ok(await notifications.removeAll(req.user)),
    );

    app.delete(
      '/notifications/:id',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Delete one notification',
          params: IdParamsSchema,
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await notifications.remove(req.user, req.params.id)),
    );

    app.get(
      '/notifications/preferences',
      {
        config: auth,
        schema: { tags, summary: 'Channels per category and quiet hours', response: { 200: Ok(S.PreferencesSchema) } },
      },
      async (req) => ok(await notifications.preferences(req.user)),
    );

    app.patch(
      '/notifications/preferences',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Change channels per category and quiet hours (only the given fields)',
          body: S.PreferencesPatchSchema,
          response: { 200: Ok(S.PreferencesSchema) },
        },
      },
      async (req) => ok(await notifications.updatePreferences(req.user, req.body)),
    );

    app.post(
      '/notifications/device-token',
      {
        config: auth,
        schema: {
          tags,
          summary: `Register this device for push (the same token moves to the caller; at most 10 per user, the oldest dropped)`,
          body: S.DeviceTokenBodySchema,
          response: { 200: Ok(S.DeviceTokenSchema) },
        },
      },
      async (req) => ok(await notifications.registerDevice(req.user, req.body)),
    );

    app.delete(
      '/notifications/device-token',
      {
        config: auth,
        schema: {
          tags,
          summary: 'Remove one of own device tokens (404 for a token the caller has not registered)',
          body: S.DeviceTokenRemoveBodySchema,
          errors: [404],
          response: { 200: Ok(MessageSchema) },
        },
      },
      async (req) => ok(await notifications.removeDevice(req.user, req.body.token)),
    );

    app.delete(
      '/notifications/device-tokens',
      {
        config: auth,
        schema: { tags, summary: 'Remove every own device token', response: { 200: Ok(S.ChangedCountSchema) } },
      },
      async (req) => ok(await notifications.removeAllDevices(req.user)),
    );
  };
}
