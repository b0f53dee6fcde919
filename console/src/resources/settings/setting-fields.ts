import type { paths } from '../../../../clients/typescript/src/index.js';

/** The settings document as `GET /admin/settings` answers it. */
export type Settings = paths['/api/v1/admin/settings']['get']['responses'][200]['content']['application/json']['data'];
export type SettingsGroup = keyof Settings;
export type SettingValue = number | string | boolean;

type Leaves<T, Path extends string = ''> = {
  [K in keyof T & string]: T[K] extends SettingValue ? `${Path}${K}` : Leaves<T[K], `${Path}${K}.`>;
}[keyof T & string];
/** A setting's key: the dotted path of a value ('business.paymentTimeoutMinutes', 'mobilemoney.wave.feeBps'). */
export type SettingKey = Leaves<Settings>;

/**
 * How the console shows and takes each value. Bounds are the API's (settings.definition.ts), here so
 * the inputs can say them before the server refuses; test/console/setting-fields.test.ts fails when
 * the two differ, and the type fails when the API has a key this table lacks.
 */
export type SettingField =
  | { kind: 'integer'; unit: 'minutes' | 'hours'; min: number; max: number }
  | { kind: 'amount'; min: number; max: number }
  | { kind: 'bps'; min: number; max: number }
  | { kind: 'boolean' }
  | { kind: 'text'; minLength: number; maxLength: number };

const method = {
  displayName: { kind: 'text', minLength: 1, maxLength: 40 },
  enabled: { kind: 'boolean' },
  feeBps: { kind: 'bps', min: 0, max: 1000 },
} as const;

export const SETTING_FIELDS: Record<SettingKey, SettingField> = {
  'business.defaultCommissionBps': { kind: 'bps', min: 0, max: 10_000 },
  'business.paymentTimeoutMinutes': { kind: 'integer', unit: 'minutes', min: 1, max: 1440 },
  'business.paymentFailureGraceMinutes': { kind: 'integer', unit: 'minutes', min: 1, max: 60 },
  'business.escrowReleaseDelayHours': { kind: 'integer', unit: 'hours', min: 0, max: 720 },
  'business.minimumOrderAmount': { kind: 'amount', min: 0, max: 10_000_000 },
  'business.pickupCodeRequired': { kind: 'boolean' },
  'business.dealsPaidInAppByDefault': { kind: 'boolean' },
  'business.noShowRefunded': { kind: 'boolean' },
  'mobilemoney.wave.displayName': method.displayName,
  'mobilemoney.wave.enabled': method.enabled,
  'mobilemoney.wave.feeBps': method.feeBps,
  'mobilemoney.orangeMoney.displayName': method.displayName,
  'mobilemoney.orangeMoney.enabled': method.enabled,
  'mobilemoney.orangeMoney.feeBps': method.feeBps,
  'mobilemoney.freeMoney.displayName': method.displayName,
  'mobilemoney.freeMoney.enabled': method.enabled,
  'mobilemoney.freeMoney.feeBps': method.feeBps,
  'mobilemoney.card.displayName': method.displayName,
  'mobilemoney.card.enabled': method.enabled,
  'mobilemoney.card.feeBps': method.feeBps,
  'features.autoApproveVerifiedSupplierProducts': { kind: 'boolean' },
  'features.donationsEnabled': { kind: 'boolean' },
  'features.advertisingEnabled': { kind: 'boolean' },
  'features.reviewsRequirePurchase': { kind: 'boolean' },
};

export const SETTING_KEYS = Object.keys(SETTING_FIELDS) as SettingKey[];
export const SETTINGS_GROUPS: SettingsGroup[] = ['business', 'mobilemoney', 'features'];
export const PAYMENT_METHODS = ['wave', 'orangeMoney', 'freeMoney', 'card'] as const;

/** The keys of one group, and a key's path inside its group's form ('wave.feeBps'). */
export const keysOf = (group: SettingsGroup) => SETTING_KEYS.filter((key) => key.startsWith(`${group}.`));
export const pathInGroup = (key: SettingKey) => key.slice(key.indexOf('.') + 1);

export const valueAt = (doc: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], doc);

export interface SettingChange {
  key: SettingKey;
  oldValue: SettingValue;
  newValue: SettingValue;
}

/** The values of a group's form that differ from the group as it was read. */
export function changesOf(group: SettingsGroup, before: unknown, after: unknown): SettingChange[] {
  return keysOf(group)
    .map((key) => {
      const value = valueAt(after, pathInGroup(key));
      // The API trims texts: a space typed at either end is no change.
      const newValue = (typeof value === 'string' ? value.trim() : value) as SettingValue;
      return { key, oldValue: valueAt(before, pathInGroup(key)) as SettingValue, newValue };
    })
    .filter((c) => c.newValue !== undefined && c.newValue !== null && c.newValue !== c.oldValue);
}

/** The PATCH body of some changes: `{business: {paymentTimeoutMinutes: 20}}`. */
export function patchOf(changes: SettingChange[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { key, newValue } of changes) {
    const path = key.split('.');
    let node = body;
    for (const name of path.slice(0, -1)) node = (node[name] ??= {}) as Record<string, unknown>;
    node[path.at(-1)!] = newValue;
  }
  return body;
}
