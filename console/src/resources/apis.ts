import type { ResourceApi } from './resource-api';
import { announcementsApis } from './announcements/announcements.api';
import { associationsApis } from './associations/associations.api';
import { kycApis } from './kyc/kyc.api';
import { moderationApis } from './moderation/moderation.api';
import { moneyApis } from './money/money.api';
import { settingsApis } from './settings/settings.api';
import { subscriptionsApis } from './subscriptions/subscriptions.api';
import { suppliersApis } from './suppliers/suppliers.api';
import { usersApis } from './users/users.api';

export type { ListQuery, ResourceApi } from './resource-api';

/** Every resource's API, by react-admin resource name: one line per domain. */
export const RESOURCE_APIS: Record<string, ResourceApi> = {
  ...usersApis,
  ...moderationApis,
  ...suppliersApis,
  ...kycApis,
  ...associationsApis,
  ...moneyApis,
  ...subscriptionsApis,
  ...settingsApis,
  ...announcementsApis,
};
