import type { Executor } from '../../db/client.js';
import { forbidden } from '../../shared/errors.js';
import type { SettingsReader } from './settings.service.js';

/** The features an administrator can switch off, with what their refusal says. */
const SWITCHED_OFF = {
  donationsEnabled: 'Donations are switched off on this platform for now',
  advertisingEnabled: 'Advertising is switched off on this platform for now',
} as const;
export type Feature = keyof typeof SWITCHED_OFF;

export const isEnabled = async (settings: SettingsReader, feature: Feature, ex?: Executor) =>
  (await settings.get('features', ex))[feature];

/**
 * 403 FEATURE_DISABLED, naming the setting, when an administrator switched the feature off. Only
 * what starts something new is refused: what is already under way (a payment, a pickup) completes.
 */
export async function requireFeature(settings: SettingsReader, feature: Feature, ex?: Executor): Promise<void> {
  if (!(await isEnabled(settings, feature, ex)))
    throw forbidden('FEATURE_DISABLED', `${SWITCHED_OFF[feature]} (features.${feature})`);
}
