import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, notFound, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { resolveTimezone, unknownTimezone } from '../../shared/time-zones.js';
import { CATEGORIES, CHANNELS } from './notification-types.js';
import type { NotificationStream } from './notification-stream.js';
import * as repo from './notifications.repository.js';
import type { DeviceTokenRecord, NotificationRecord } from './notifications.repository.js';
import type { DeviceTokenBody, DeviceTokenView, ListQuery, NotificationView, PreferencesPatch, PreferencesView } from './notifications.schemas.js';
import { DEFAULT_TIMEZONE, LOCKED, toPreferencesView } from './preferences.js';

/** A user keeps at most this many device tokens; registering one more drops the oldest. */
export const MAX_DEVICE_TOKENS = 10;

export function toNotificationView(r: NotificationRecord): NotificationView {
  return {
    id: r.id,
    type: r.type as NotificationView['type'],
    category: r.category as NotificationView['category'],
    title: r.title,
    body: r.body,
    data: r.data,
    readAt: r.readAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}

const toTokenView = (r: DeviceTokenRecord): DeviceTokenView => ({
  id: r.id,
  platform: r.platform,
  deviceId: r.deviceId,
  appVersion: r.appVersion,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export type NotificationsService = ReturnType<typeof createNotificationsService>;

/** A user's notifications, preferences and devices; `notify` for the other modules. */
export function createNotificationsService(ctx: AppContext, stream: NotificationStream) {
  const now = () => ctx.clock.now();

  /** Tells the user's open streams the new unread count (after a change that committed). */
  async function announceUnread(userId: string): Promise<void> {
    if (stream.connections === 0 && !ctx.redis) return;
    stream.publish(userId, { event: 'unread', data: { count: await repo.countUnread(ctx.db, userId) } });
  }

  return {
    async list(actor: AuthUser, q: ListQuery) {
      const { items, total } = await repo.listNotifications(ctx.db, actor.id, { unread: q.unread, category: q.category }, q.limit, pageOffset(q));
      return { items: items.map(toNotificationView), meta: pageMeta(q, total) };
    },

    async unreadCount(actor: AuthUser) {
      return { count: await repo.countUnread(ctx.db, actor.id) };
    },

    async markRead(actor: AuthUser, id: string) {
      const row = await repo.markRead(ctx.db, actor.id, id, now());
      if (!row) throw notFound('Notification');
      await announceUnread(actor.id);
      return toNotificationView(row);
    },

    async markAllRead(actor: AuthUser) {
      const count = await repo.markAllRead(ctx.db, actor.id, now());
      if (count > 0) await announceUnread(actor.id);
      return { count };
    },

    async remove(actor: AuthUser, id: string) {
      if (!(await repo.deleteNotification(ctx.db, actor.id, id))) throw notFound('Notification');
      await announceUnread(actor.id);
      return { message: 'Notification deleted' };
    },

    async removeAll(actor: AuthUser) {
      const count = await repo.deleteAllNotifications(ctx.db, actor.id);
      if (count > 0) await announceUnread(actor.id);
      return { count };
    },

    async preferences(actor: AuthUser): Promise<PreferencesView> {
      return toPreferencesView(await repo.findPreferences(ctx.db, actor.id));
    },

    async updatePreferences(actor: AuthUser, body: PreferencesPatch): Promise<PreferencesView> {
      const problems: ErrorDetail[] = [];
      for (const c of CATEGORIES) {
        for (const ch of LOCKED[c] ?? []) {
          if (body.channels?.[c]?.[ch] === false) {
            problems.push({ field: `body.channels.${c}.${ch}`, message: 'account messages include security alerts and cannot be switched off' });
          }
        }
      }
      const q = body.quietHours;
      if (q && q.start === q.end) problems.push({ field: 'body.quietHours.end', message: 'must differ from start' });
      const timezone = q?.timezone === undefined ? undefined : await resolveTimezone(ctx.db, q.timezone);
      if (q?.timezone !== undefined && !timezone) problems.push(unknownTimezone('body.quietHours.timezone'));
      if (problems.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', problems);

      return ctx.db.transaction(async (tx) => {
        const stored = await repo.findPreferences(tx, actor.id);
        const channels: Record<string, Record<string, boolean>> = structuredClone(stored?.channels ?? {});
        for (const c of CATEGORIES) {
          for (const ch of CHANNELS) {
            const v = body.channels?.[c]?.[ch];
            if (v !== undefined) (channels[c] ??= {})[ch] = v;
          }
        }
        const row = {
          userId: actor.id,
          channels,
          quietStart: q === undefined ? (stored?.quietStart ?? null) : (q?.start ?? null),
          quietEnd: q === undefined ? (stored?.quietEnd ?? null) : (q?.end ?? null),
          timezone: timezone ?? stored?.timezone ?? DEFAULT_TIMEZONE,
          updatedAt: now(),
        };
        await repo.savePreferences(tx, row);
        return toPreferencesView(row);
      });
    },

    async registerDevice(actor: AuthUser, body: DeviceTokenBody): Promise<DeviceTokenView> {
      return ctx.db.transaction(async (tx) => {
        const at = now();
        const row = await repo.upsertDeviceToken(tx, {
          id: uuidv7(),
          userId: actor.id,
          token: body.token,
          platform: body.platform,
          deviceId: body.deviceId ?? null,
          appVersion: body.appVersion ?? null,
          sessionId: actor.sessionId,
          createdAt: at,
          updatedAt: at,
        });
        await repo.trimDeviceTokens(tx, actor.id, MAX_DEVICE_TOKENS);
        return toTokenView(row);
      });
    },

    async removeDevice(actor: AuthUser, token: string) {
      if (!(await repo.deleteDeviceToken(ctx.db, actor.id, token))) throw notFound('Device token');
      return { message: 'Device token removed' };
    },

    async removeAllDevices(actor: AuthUser) {
      return { count: await repo.deleteAllDeviceTokens(ctx.db, actor.id) };
    },

    /** The devices registered by ended sessions stop receiving pushes (hooked on session revocation). */
    forgetSessions: (ex: Executor, scope: { sessionId: string } | { userId: string; exceptSessionId?: string }) =>
      repo.deleteTokensOfSessions(ex, scope),
  };
}
