import { defineModule } from '../module.js';
import { announcementsRoutes } from './announcements.routes.js';
import { type AnnouncementsOptions, createAnnouncementsService } from './announcements.service.js';

export type { AnnouncementsOptions } from './announcements.service.js';

/** Administrators' messages to every user or one role, sent in batches through notifications. */
export type AnnouncementsApi = Record<never, never>;

declare module '../module.js' {
  interface ModuleApis {
    announcements: AnnouncementsApi;
  }
  interface ModuleOptions {
    announcements?: AnnouncementsOptions;
  }
}

export const announcementsModule = defineModule({
  name: 'announcements',
  needs: ['users', 'notifications'],
  build(ctx, { users, notifications }, env) {
    const announcements = createAnnouncementsService(ctx, { users, notifications }, env.options.announcements);
    return { api: announcements, routes: announcementsRoutes(announcements) };
  },
});
