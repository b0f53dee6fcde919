import type { ResourceApi } from './resource-api';
import { announcementsApis } from './announcements/announcements.api';
import { moderationApis } from './moderation/moderation.api';
import { settingsApis } from './settings/settings.api';
import { subscriptionsApis } from './subscriptions/subscriptions.api';
import { usersApis } from './users/users.api';

export type { ListQuery, ResourceApi } from './resource-api';

/** Every resource's API, by react-admin resource name: one line per domain. */
export const RESOURCE_APIS: Record<string, ResourceApi> = {
  ...usersApis,
  ...moderationApis,
  ...subscriptionsApis,
  ...settingsApis,
  ...announcementsApis,
};
