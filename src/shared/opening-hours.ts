import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { Type } from 'typebox';
import type { ErrorDetail } from './errors.js';

// Weekly opening hours of a supplier or a store: per weekday ("0" = Sunday) a list of
// "HH:MM-HH:MM" ranges in the place's own time zone (checked by ./time-zones.ts). One rule for
// both, in code and in SQL.

export const WEEKDAYS = ['0', '1', '2', '3', '4', '5', '6'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Per weekday (0 = Sunday) a list of "HH:MM-HH:MM" ranges in the place's local time. */
export type OpeningHours = Partial<Record<Weekday, string[]>>;
/** "HH:MM-HH:MM"; the end may be 24:00 (midnight at the end of the day). */
export const TIME_RANGE_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]-(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';
export const MAX_RANGES_PER_DAY = 6;

const DaySchema = Type.Array(
  Type.String({ pattern: TIME_RANGE_PATTERN, description: '"HH:MM-HH:MM" in local time', examples: ['08:00-13:00'] }),
  { maxItems: MAX_RANGES_PER_DAY },
);
export const OpeningHoursSchema = Type.Object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, Type.Optional(DaySchema)])) as Record<
    Weekday,
    Type.TOptional<typeof DaySchema>
  >,
  {
    title: 'OpeningHours',
    additionalProperties: false,
    description:
      'Per weekday ("0" = Sunday ... "6" = Saturday) the opening ranges in local time; a missing or empty day is closed',
    examples: [{ '1': ['08:00-13:00', '15:00-19:30'], '6': ['09:00-24:00'] }],
  },
);

/**
 * Ranges the schema accepted in shape must also make sense: each ends after it starts (a range
 * past midnight is written as two, one on each day), and a day's ranges do not overlap.
 */
export function checkOpeningHours(hours: OpeningHours, field: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const day of WEEKDAYS) {
    const ranges = hours[day];
    if (!ranges) continue;
    const spans = ranges.map((r) => r.split('-') as [string, string]);
    spans.forEach(([from, to], i) => {
      if (to <= from)
        problems.push({
          field: `${field}.${day}.${i}`,
          message: `must end after it starts (${from}-${to}); split a range past midnight over two days`,
        });
    });
    const sorted = [...spans].sort((a, b) => a[0].localeCompare(b[0]));
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]![0] < sorted[i - 1]![1]) {
        problems.push({
          field: `${field}.${day}`,
          message: `ranges overlap (${sorted[i - 1]!.join('-')} and ${sorted[i]!.join('-')})`,
        });
        break;
      }
    }
  }
  return problems;
}

/** Stored form: each day's ranges sorted, empty days left out. */
export function normalizeOpeningHours(hours: OpeningHours): OpeningHours {
  const out: OpeningHours = {};
  for (const day of WEEKDAYS) {
    const ranges = hours[day];
    if (ranges?.length) out[day] = [...ranges].sort();
  }
  return out;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
type LocalParts = Readonly<{ weekday: Weekday; date: string; time: string; seconds: number }>;
/** Per zone, the last second read: a page of twenty places in one zone asks the same second twenty times. */
const lastReading = new Map<string, { second: number; parts: LocalParts }>();

/** The wall clock at `at` in `timezone`: weekday (0 = Sunday), "YYYY-MM-DD", "HH:MM" and seconds. */
export function localParts(timezone: string, at: Date): LocalParts {
  // formatToParts costs tens of microseconds: it was the largest part of a nearby page's own work.
  const second = Math.floor(at.getTime() / 1000);
  const last = lastReading.get(timezone);
  if (last?.second === second) return last.parts;
  const parts = readLocalParts(timezone, at);
  lastReading.set(timezone, { second, parts });
  return parts;
}

function readLocalParts(timezone: string, at: Date): LocalParts {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timezone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const weekday = String(['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.weekday!)) as Weekday;
  return Object.freeze({
    weekday,
    date: `${p.year}-${p.month}-${p.day}`,
    time: `${p.hour}:${p.minute}`,
    seconds: Number(p.second),
  });
}

/** The weekday (0 = Sunday) and "HH:MM" wall-clock time at `at` in `timezone`. */
export function localTime(timezone: string, at: Date): { weekday: Weekday; time: string } {
  const { weekday, time } = localParts(timezone, at);
  return { weekday, time };
}

/** Whether `at` falls in one of the day's ranges (start included, end excluded). */
export function isWithinOpeningHours(hours: OpeningHours, timezone: string, at: Date): boolean {
  const { weekday, time } = localTime(timezone, at);
  return (hours[weekday] ?? []).some((r) => {
    const [from, to] = r.split('-') as [string, string];
    return time >= from && time < to;
  });
}

/**
 * The same test in SQL, for "open now" filters: the local day's ranges of the row contain the
 * local time. Compared byte-wise (collate "C") so the database's collation cannot change it.
 */
export function openAtSql(hours: AnyPgColumn, timezone: AnyPgColumn, at: Date | SQL): SQL {
  const local = sql`(${at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at} at time zone ${timezone})`;
  return sql`exists (
    select 1 from jsonb_array_elements_text(coalesce(${hours} -> (extract(dow from ${local})::int)::text, '[]'::jsonb)) as oh(span)
    where to_char(${local}, 'HH24:MI') collate "C" >= split_part(oh.span, '-', 1) collate "C"
      and to_char(${local}, 'HH24:MI') collate "C" < split_part(oh.span, '-', 2) collate "C")`;
}
