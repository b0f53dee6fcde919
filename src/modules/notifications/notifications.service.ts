import type { AppContext } from '../../context.js';
import { afterCommit } from '../../db/after-commit.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, notFound, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { resolveTimezone, unknownTimezone } from '../../shared/time-zones.js';
import type { UsersApi } from '../users/index.js';
import { EMAIL_JOB, PUSH_JOB, registerDeliveryJobs, SMS_JOB, type PushJob } from './delivery.js';
import { CATEGORIES, CHANNELS, definitionOf, isNotificationType, type NotificationType } from './notification-types.js';
import { InboxCache } from './inbox-cache.js';
import type { LiveEvent, NotificationStream } from './notification-stream.js';
import * as repo from './notifications.repository.js';
import type { DeviceTokenRecord, NotificationRecord } from './notifications.repository.js';
import type {
  DeviceTokenBody,
  DeviceTokenView,
  ListQuery,
  NotificationView,
  PreferencesPatch,
  PreferencesView,
} from './notifications.schemas.js';
import { DEFAULT_TIMEZONE, LOCKED, secondsUntilQuietEnds, toPreferencesView } from './preferences.js';

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
export interface NotifyOptions {
  /**
   * What caused it (an event id): a second notify with the same key for the same user answers
   * the first notification and sends nothing, so a retried event handler notifies once.
   */
  sourceKey?: string;
}

export function createNotificationsService(ctx: AppContext, deps: { users: UsersApi; stream: NotificationStream }) {
  const { stream } = deps;
  const now = () => ctx.clock.now();
  registerDeliveryJobs(ctx, deps.users);
  // With Redis every change reaches every instance; without, another instance's change shows within 5 s.
  const cache = new InboxCache(ctx.clock, ctx.redis ? 60_000 : 5_000);
  ctx.caches.register('notifications', () => cache.dropAll());
  stream.onEveryEvent((userId) => cache.drop(userId));

  /**
   * Writes the in-app notification inside the caller's transaction and enqueues, in the same
   * transaction, its push, SMS and email as the user's preferences say (push held until quiet
   * hours end). Security messages go out on push and email at once whatever the preferences.
   * Open streams hear of it after commit.
   */
  async function notify(
    tx: Executor,
    userId: string,
    type: NotificationType,
    data: Record<string, unknown> = {},
    opts: NotifyOptions = {},
  ): Promise<NotificationView> {
    if (!isNotificationType(type)) throw new Error(`unknown notification type ${String(type)}`);
    const def = definitionOf(type);
    const { row, created } = await repo.insertNotification(tx, {
      id: uuidv7(),
      userId,
      type,
      category: def.category,
      title: def.title(data),
      body: def.body(data),
      data,
      sourceKey: opts.sourceKey ?? null,
      createdAt: now(),
    });
    const view = toNotificationView(row);
    if (!created) return view;

    const prefs = await repo.findPreferences(tx, userId);
    const { channels, quietHours } = toPreferencesView(prefs);
    const on = def.security ? { ...channels[def.category], push: true, email: true } : channels[def.category];
    const job = { notificationId: row.id };
    if (on.push) {
      const hold = def.security ? 0 : secondsUntilQuietEnds(row.createdAt, quietHours);
      await ctx.jobs.send(PUSH_JOB, { ...job, attempt: 1 } satisfies PushJob, { tx, startAfterSeconds: hold });
    }
    if (on.sms) await ctx.jobs.send(SMS_JOB, job, { tx });
    if (on.email) await ctx.jobs.send(EMAIL_JOB, job, { tx });
    const unread = stream.connections > 0 || ctx.redis ? await repo.countUnread(tx, userId) : undefined;
    afterCommit(tx, () => {
      cache.drop(userId);
      stream.publish(userId, { event: 'notification', data: view });
      if (unread !== undefined) stream.publish(userId, { event: 'unread', data: { count: unread } });
    });
    return view;
  }

  /** Tells the user's open streams the new unread count (after a change that committed). */
  async function announceUnread(userId: string): Promise<void> {
    cache.drop(userId);
    if (stream.connections === 0 && !ctx.redis) return;
    stream.publish(userId, { event: 'unread', data: { count: await repo.countUnread(ctx.db, userId) } });
  }

  return {
    notify,

    /**
     * Tells the user's open streams of a state change after `tx` commits, without an in-app
     * notification: a state the app would otherwise poll for. Nothing is kept; after reconnecting,
     * the app reads the state once.
     */
    live(tx: Executor, userId: string, event: LiveEvent, data: Record<string, unknown>): void {
      afterCommit(tx, () => stream.publish(userId, { event, data }));
    },

    async list(actor: AuthUser, q: ListQuery) {
      return cache.get(actor.id, `list:${q.unread === true}:${q.category ?? ''}:${q.page}:${q.limit}`, async () => {
        const { items, total } = await repo.listNotifications(
          ctx.db,
          actor.id,
          { unread: q.unread, category: q.category },
          q.limit,
          pageOffset(q),
        );
        return { items: items.map(toNotificationView), meta: pageMeta(q, total) };
      });
    },

    async unreadCount(actor: AuthUser) {
      return cache.get(actor.id, 'unread', async () => ({ count: await repo.countUnread(ctx.db, actor.id) }));
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
            problems.push({
              field: `body.channels.${c}.${ch}`,
              message: 'account messages include security alerts and cannot be switched off',
            });
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
