import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import { SETTINGS_GROUPS } from './settings.definition.js';
import * as S from './settings.schemas.js';
import type { SettingsService } from './settings.service.js';

const tags = ['admin: settings'];
const adm = { access: 'ADM' } as const;

const GROUP_SUMMARIES = {
  business:
    'Business settings: commission, payment timeout, escrow release delay, currency, minimum order, pickup code',
  mobilemoney: 'Payment methods (three mobile-money wallets and card): name, enabled, fee',
  features: 'Feature flags',
} as const;

export function settingsRoutes(settings: SettingsService) {
  return async (app: App) => {
    app.get(
      '/admin/settings',
      {
        config: adm,
        schema: { tags, summary: 'Every setting, with its current value', response: { 200: Ok(S.SettingsSchema) } },
      },
      async () => ok(await settings.getAll()),
    );

    app.patch(
      '/admin/settings',
      {
        config: adm,
        schema: {
          tags,
          summary: 'Change any settings: all valid or nothing changes; one audit row per changed key',
          body: S.SettingsPatchBodySchema,
          response: { 200: Ok(S.SettingsChangeResultSchema) },
        },
      },
      async (req) => ok(await settings.update(req.user, req.body)),
    );

    app.get(
      '/admin/settings/audit',
      {
        config: adm,
        schema: {
          tags,
          summary: 'History of setting changes, newest first unless sorted',
          querystring: S.AuditQuerySchema,
          response: { 200: OkPage(S.SettingChangeSchema) },
        },
      },
      async (req) => {
        const r = await settings.audit(req.query);
        return okPage(r.items, r.meta);
      },
    );

    for (const group of SETTINGS_GROUPS) {
      app.get(
        `/admin/settings/${group}`,
        {
          config: adm,
          schema: { tags, summary: GROUP_SUMMARIES[group], response: { 200: Ok(S.GROUP_SCHEMAS[group]) } },
        },
        async () => ok(await settings.get(group)),
      );
    }

    app.post(
      '/admin/settings/invalidate-cache',
      {
        config: { access: 'SUPER_ADMIN' },
        schema: {
          tags,
          summary: 'Drop every cache of the platform (settings, public listings...) on every instance',
          response: { 200: Ok(S.CachesDroppedSchema) },
        },
      },
      async (req) => ok(settings.dropCaches(req.user)),
    );
  };
}
