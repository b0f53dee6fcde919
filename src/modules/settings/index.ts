import { defineModule } from '../module.js';
import { settingsRoutes } from './settings.routes.js';
import { createSettingsService, type SettingsService } from './settings.service.js';

export { isEnabled, requireFeature } from './feature-flags.js';
export type { SettingsReader } from './settings.service.js';
export type { Settings } from './settings.definition.js';

/** Platform settings: read by every module through `settings.get(group)`, changed by administrators. */
export interface SettingsApi {
  get: SettingsService['get'];
}

declare module '../module.js' {
  interface ModuleApis {
    settings: SettingsApi;
  }
}

export const settingsModule = defineModule({
  name: 'settings',
  needs: [],
  build(ctx) {
    const settings = createSettingsService(ctx);
    return { api: settings, routes: settingsRoutes(settings) };
  },
});
