import type { OpeningHours } from '../../db/schema/suppliers.js';
import type { ErrorDetail } from '../../shared/errors.js';

export const WEEKDAYS = ['0', '1', '2', '3', '4', '5', '6'] as const;
/** "HH:MM-HH:MM" in local time; an end of 24:00 means midnight. */
export const TIME_RANGE_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]-(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Problems the schema cannot see: a range must end after it starts (an opening past midnight is
 * written as two ranges, one on each day) and the ranges of a day must not overlap.
 */
export function openingHoursProblems(hours: OpeningHours, field: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const day of WEEKDAYS) {
    const ranges = hours[day] ?? [];
    const spans = ranges.map((r, i) => ({ i, start: toMinutes(r.slice(0, 5)), end: toMinutes(r.slice(6, 11)) }));
    for (const s of spans) {
      if (s.end <= s.start) problems.push({ field: `${field}.${day}.${s.i}`, message: 'must end after it starts (split a range that passes midnight over two days)' });
    }
    const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
    for (let k = 1; k < sorted.length; k++) {
      if (sorted[k]!.start < sorted[k - 1]!.end) {
        problems.push({ field: `${field}.${day}.${sorted[k]!.i}`, message: `overlaps ${ranges[sorted[k - 1]!.i]}` });
      }
    }
  }
  return problems;
}

const DAY_INDEX: Record<string, string> = { Sun: '0', Mon: '1', Tue: '2', Wed: '3', Thu: '4', Fri: '5', Sat: '6' };

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Weekday ("0" = Sunday) and "HH:MM" of an instant in a time zone. */
export function localDayAndTime(at: Date, timeZone: string): { day: string; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: DAY_INDEX[get('weekday')] ?? '0', time: `${get('hour')}:${get('minute')}` };
}

/**
 * Open at this instant in the place's time zone. Same rule as the SQL filter of the search
 * (`openNowCondition`): start <= local time < end.
 */
export function isOpenAt(hours: OpeningHours, timeZone: string, at: Date): boolean {
  const { day, time } = localDayAndTime(at, timeZone);
  return (hours[day as keyof OpeningHours] ?? []).some((r) => r.slice(0, 5) <= time && time < r.slice(6, 11));
}
