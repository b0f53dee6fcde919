import { api, unwrap, unwrapPage, type Body, type Query } from '../../api';
import { given, page, type ResourceApi } from '../resource-api';
import type { SettingChange } from './setting-fields';
import { patchOf } from './setting-fields';

export const getSettings = () => unwrap(api.GET('/api/v1/admin/settings'));

/** One PATCH for the changes of a form, with the reason kept in each audit row. */
export const changeSettings = (changes: SettingChange[], reason: string | undefined) =>
  unwrap(
    api.PATCH('/api/v1/admin/settings', {
      body: { ...patchOf(changes), ...(reason && { reason }) } as Body<'/api/v1/admin/settings', 'patch'>,
    }),
  );

export const invalidateCaches = () => unwrap(api.POST('/api/v1/admin/settings/invalidate-cache'));

const DAY = 86_400_000;
/** A day of the date inputs (Dakar keeps UTC all year) as the start of that day, or of the next one. */
const dayStart = (day: unknown, next = false) => {
  const value = given<string>(day);
  return value === undefined
    ? undefined
    : new Date(Date.parse(`${value.slice(0, 10)}T00:00:00Z`) + (next ? DAY : 0)).toISOString();
};

export const settingsApis: Record<string, ResourceApi> = {
  'settings-audit': {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/settings/audit'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/settings/audit'>['sort'],
        key: given(filter.key),
        actorId: given(filter.actorId),
        from: dayStart(filter.from),
        // The form's last day is included; the API's `to` is excluded.
        to: dayStart(filter.to, true),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/settings/audit', { params: { query } })));
    },
  },
};
