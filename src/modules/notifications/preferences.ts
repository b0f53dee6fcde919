import { CATEGORIES, CHANNELS, type Category, type Channel } from './notification-types.js';
import type { PreferencesRecord } from './notifications.repository.js';
import type { PreferencesView } from './notifications.schemas.js';

export const DEFAULT_TIMEZONE = 'Africa/Dakar';

/**
 * Defaults (docs/notifications.md): push for everything but promotions, which a user opts in to;
 * email for the account only; SMS costs money per message and is off until switched on.
 */
const DEFAULTS: Record<Category, Record<Channel, boolean>> = {
  orders: { push: true, sms: false, email: false },
  bookings: { push: true, sms: false, email: false },
  donations: { push: true, sms: false, email: false },
  reviews: { push: true, sms: false, email: false },
  promotions: { push: false, sms: false, email: false },
  account: { push: true, sms: false, email: true },
  system: { push: true, sms: false, email: false },
};

/** Channels of the `account` category that carry security alerts and cannot be switched off. */
export const LOCKED: Partial<Record<Category, readonly Channel[]>> = { account: ['push', 'email'] };

export function channelsOf(stored: PreferencesRecord | undefined): PreferencesView['channels'] {
  const out = {} as PreferencesView['channels'];
  for (const c of CATEGORIES) {
    out[c] = { ...DEFAULTS[c] };
    for (const ch of CHANNELS) {
      const v = stored?.channels[c]?.[ch];
      if (typeof v === 'boolean' && !LOCKED[c]?.includes(ch)) out[c][ch] = v;
    }
  }
  return out;
}

export function toPreferencesView(stored: PreferencesRecord | undefined): PreferencesView {
  const quiet =
    stored?.quietStart && stored.quietEnd
      ? { start: stored.quietStart, end: stored.quietEnd, timezone: stored.timezone }
      : null;
  return { channels: channelsOf(stored), quietHours: quiet };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minutes since local midnight (and seconds within the minute) at `at` in `timezone`. */
function localClock(at: Date, timezone: string): { minutes: number; seconds: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { minutes: get('hour') * 60 + get('minute'), seconds: get('second') };
}

/**
 * Seconds until the quiet hours end when `at` falls inside them, else 0. The window may span
 * midnight (22:00-07:00). Computed on the local wall clock, so on a day the clocks change the
 * wait can be an hour off, which is harmless for holding a push.
 */
export function secondsUntilQuietEnds(
  at: Date,
  quiet: { start: string; end: string; timezone: string } | null,
): number {
  if (!quiet) return 0;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const { minutes, seconds } = localClock(at, quiet.timezone);
  const inside = start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
  if (!inside) return 0;
  const wait = (end - minutes + 1440) % 1440;
  return wait * 60 - seconds;
}
