import type { TranslateFunction } from 'react-admin';
import { formatBps, formatMoney } from '../../fields';
import { SETTING_FIELDS, type SettingKey, type SettingValue } from './setting-fields';

/** A key's name for people: 'Wave · Frais' for a payment method's value. */
export function settingLabel(key: string, translate: TranslateFunction): string {
  const [group, method, name] = key.split('.');
  if (group === 'mobilemoney' && method && name)
    return `${translate(`console.settings.methods.${method}`)} · ${translate(`console.settings.keys.mobilemoney.${name}`)}`;
  if (group === 'mobilemoney' && method)
    return `${translate('console.settings.groups.mobilemoney')} · ${translate(`console.settings.methods.${method}`)}`;
  if (!method) return translate(`console.settings.groups.${group}`);
  return translate(`console.settings.keys.${key}`, { _: key });
}

/** A value as its input shows it: a percentage, an amount in XOF, minutes, yes or no. */
export function formatSetting(
  key: string,
  value: SettingValue | null | undefined,
  translate: TranslateFunction,
  locale: string,
): string {
  const field = SETTING_FIELDS[key as SettingKey];
  if (value === null || value === undefined) return '—';
  if (!field) return String(value);
  switch (field.kind) {
    case 'boolean':
      return translate(value ? 'console.settings.yes' : 'console.settings.no');
    case 'bps':
      return formatBps(Number(value), locale);
    case 'amount':
      return formatMoney(Number(value), 'XOF', locale);
    case 'integer':
      return translate(`console.settings.units.${field.unit}`, { smart_count: Number(value) });
    case 'text':
      return translate('console.settings.quoted', { value: String(value) });
  }
}
