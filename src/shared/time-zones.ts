import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { rows, type Executor } from '../db/client.js';
import type { ErrorDetail } from './errors.js';

// Time zone of a place (supplier, store): one rule for accepting it and one name to store.

export const TimezoneSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone of the opening hours; an old name such as Asia/Calcutta is stored as the current one (Asia/Kolkata)',
  examples: ['Africa/Dakar'],
});

/**
 * Zones IANA renamed, by the identifier the runtime's ICU answers with. ICU keeps the CLDR
 * identifiers, which never change once published, so it canonicalises the current name to the
 * old one (Asia/Kolkata -> Asia/Calcutta). These are the zones whose CLDR identifier is only a
 * link in the IANA database (CLDR's `iana` attribute, checked against tzdata 2025b).
 */
const CURRENT_IANA_NAME: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** The runtime's identifier for a zone it can format with (any alias, any letter case), else undefined. */
function runtimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The name to store for a time zone a user gave, or undefined when it cannot be used. The runtime
 * must format with it (opening hours in code) and the database must know it (opening hours in
 * SQL use AT TIME ZONE). The current IANA name is stored, so `asia/calcutta` becomes
 * `Asia/Kolkata`; on a database whose time zone data predates a rename, the runtime's older name.
 * Call it outside transactions: it reads the database through `ex`.
 */
export async function resolveTimezone(ex: Executor, name: string): Promise<string | undefined> {
  const zone = runtimeZone(name);
  if (zone === undefined) return undefined;
  const candidates = [...new Set([CURRENT_IANA_NAME[zone] ?? zone, zone])];
  const known = await rows<{ name: string }>(
    ex,
    sql`select name from pg_timezone_names where name in (${sql.join(
      candidates.map((c) => sql`${c}`),
      sql`, `,
    )})`,
  );
  return candidates.find((c) => known.some((k) => k.name === c));
}

export const unknownTimezone = (field: string): ErrorDetail => ({
  field,
  message: 'must be an IANA time zone such as Africa/Dakar',
});
