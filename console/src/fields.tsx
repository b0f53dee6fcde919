import { Chip } from '@mui/material';
import { useLocaleState, useRecordContext, useTranslate } from 'react-admin';

const localeTag = (locale: string) => (locale === 'en' ? 'en-GB' : 'fr-SN');

/** An amount in minor units (XOF has none) in the console's language. */
export function formatMoney(minor: number, currency: string, locale: string): string {
  return new Intl.NumberFormat(localeTag(locale), { style: 'currency', currency }).format(minor);
}

export function formatWhen(iso: string, locale: string): string {
  return new Intl.DateTimeFormat(localeTag(locale), {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Africa/Dakar',
  }).format(new Date(iso));
}

const at = (record: Record<string, unknown> | undefined, source: string): unknown =>
  source.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], record);

/** A money column: `source` in minor units, the currency from `currencySource` (XOF when absent). */
export function MoneyField({
  source,
  currencySource = 'currency',
}: {
  source: string;
  currencySource?: string;
  label?: string;
  sortable?: boolean;
}) {
  const record = useRecordContext();
  const [locale] = useLocaleState();
  const value = at(record, source);
  if (typeof value !== 'number') return null;
  return <span>{formatMoney(value, String(at(record, currencySource) ?? 'XOF'), locale)}</span>;
}

/** A date and time in Dakar's time, in the console's language. */
export function WhenField({ source }: { source: string; label?: string; sortable?: boolean }) {
  const record = useRecordContext();
  const [locale] = useLocaleState();
  const value = at(record, source);
  return typeof value === 'string' ? <time dateTime={value}>{formatWhen(value, locale)}</time> : null;
}

/** A status as a translated chip: `console.<prefix>.<VALUE>`. */
export function StatusField({
  source,
  prefix,
}: {
  source: string;
  prefix: string;
  label?: string;
  sortable?: boolean;
}) {
  const record = useRecordContext();
  const translate = useTranslate();
  const value = at(record, source);
  return typeof value === 'string' ? (
    <Chip size="small" label={translate(`console.${prefix}.${value}`, { _: value })} />
  ) : null;
}

/** A rate in basis points (1000 = 10 %) as a percentage in the console's language. */
export function formatBps(bps: number, locale: string): string {
  return new Intl.NumberFormat(localeTag(locale), { style: 'percent', maximumFractionDigits: 2 }).format(bps / 10_000);
}

/** A rate column in basis points, shown as a percentage. */
export function BpsField({ source }: { source: string; label?: string; sortable?: boolean }) {
  const record = useRecordContext();
  const [locale] = useLocaleState();
  const value = at(record, source);
  return typeof value === 'number' ? <span>{formatBps(value, locale)}</span> : null;
}
