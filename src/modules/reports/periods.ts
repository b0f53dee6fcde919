import { validationError } from '../../shared/errors.js';
import type { PeriodUnit } from '../ledger/index.js';

const DAY = 86_400_000;
/** More periods than this in one answer is a mistake of range or grouping. */
export const MAX_PERIODS = 400;

/** The start (UTC) of the period holding `at`: the day, the Monday, the first of the month. */
export function periodStart(at: Date, unit: PeriodUnit): Date {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), unit === 'month' ? 1 : at.getUTCDate()));
  if (unit === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d;
}

export function nextPeriod(start: Date, unit: PeriodUnit): Date {
  if (unit === 'month') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + (unit === 'week' ? 7 : 1) * DAY);
}

export const periodKey = (d: Date) => d.toISOString().slice(0, 10);

/** Every period touching [from, to), oldest first, with its key and end. */
export function periodsOf(from: Date, to: Date, unit: PeriodUnit): { key: string; end: Date }[] {
  const out: { key: string; end: Date }[] = [];
  for (let s = periodStart(from, unit); s < to; s = nextPeriod(s, unit)) {
    if (out.length === MAX_PERIODS)
      throw validationError(
        'query.from',
        `the range holds more than ${MAX_PERIODS} periods of a ${unit}: shorten it or group by a longer period`,
      );
    const end = nextPeriod(s, unit);
    out.push({ key: periodKey(s), end: end < to ? end : to });
  }
  return out;
}

/** The query's range: `to` defaults to now, `from` to `defaultDays` before `to`; from must come first. */
export function rangeOf(q: { from?: string; to?: string }, now: Date, defaultDays = 30) {
  const to = q.to ? new Date(q.to) : now;
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - defaultDays * DAY);
  if (from >= to) throw validationError('query.from', 'must be before query.to');
  return { from, to };
}
