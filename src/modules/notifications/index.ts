import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { subscribeToAccountEvents } from './account-events.js';
import { type CatalogLookup, subscribeToCatalogEvents } from './catalog-events.js';
import { NotificationStream } from './notification-stream.js';
import { notificationsRoutes } from './notifications.routes.js';
import { createNotificationsService, type NotificationsService } from './notifications.service.js';

export type { NotificationType } from './notification-types.js';
export type { NotifyOptions } from './notifications.service.js';
export type { CatalogLookup } from './catalog-events.js';

/**
 * Telling users things: `notify(tx, userId, type, data, { sourceKey })` in the business transaction,
 * live events to open streams, and the catalog's events (the products module subscribes them with
 * its lookups, being the one that knows products).
 */
export interface NotificationsApi {
  live: NotificationsService['live'];
  notify: NotificationsService['notify'];
  subscribeToCatalogEvents(lookup: CatalogLookup): void;
}

declare module '../module.js' {
  interface ModuleApis {
    notifications: NotificationsApi;
  }
}

export const notificationsModule = defineModule({
  name: 'notifications',
  needs: ['users', 'auth'],
  async build(ctx, { users, auth }) {
    const stream = new NotificationStream(ctx.redis);
    await stream.start((err) => ctx.log.warn({ err }, 'redis subscriber error'));
    const notifications = createNotificationsService(ctx, { users, stream });
    auth.sessions.onRevoked(notifications.forgetSessions);
    const api = Object.assign(notifications, {
      subscribeToCatalogEvents: (lookup: CatalogLookup) =>
        subscribeToCatalogEvents(ctx.events, ctx.db, notifications, lookup),
    });
    return {
      api,
      routes: async (app: App) => {
        // Open event streams never end on their own: closed before the server waits for its connections.
        app.addHook('preClose', async () => stream.closeAll());
        await app.register(notificationsRoutes(notifications, stream));
      },
      connect: () => subscribeToAccountEvents(ctx.events, ctx.db, notifications),
      close: () => stream.close(),
    };
  },
});
