/**
 * The pickup window of an order: the part of the day its products can all be collected in
 * (each product has a window in the store's local time), on the first day whose window has not
 * ended yet at the order's creation.
 */
import { localParts } from '../../shared/opening-hours.js';

/** Offset of the zone from UTC at `at`, in ms (positive east of Greenwich). */
function offsetAt(timezone: string, at: Date): number {
  const p = localParts(timezone, at);
  const wall = Date.parse(`${p.date}T${p.time}:${String(p.seconds).padStart(2, '0')}Z`);
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The instant of a local date and "HH:MM" (24:00 = the next day's midnight) in the zone. */
export function zonedInstant(date: string, time: string, timezone: string): Date {
  const [d, t] = time === '24:00' ? [addDays(date, 1), '00:00'] : [date, time];
  const wall = Date.parse(`${d}T${t}:00Z`);
  let at = wall - offsetAt(timezone, new Date(wall));
  const again = wall - offsetAt(timezone, new Date(at));
  if (again !== at) at = again;
  return new Date(at);
}

interface LocalWindow {
  pickupStart: string;
  pickupEnd: string;
}

/** Common part of the products' windows, or null when they do not overlap. */
export function commonWindow(windows: readonly LocalWindow[]): LocalWindow | null {
  const start = windows.map((w) => w.pickupStart).reduce((a, b) => (b > a ? b : a));
  const end = windows.map((w) => w.pickupEnd).reduce((a, b) => (b < a ? b : a));
  return start < end ? { pickupStart: start, pickupEnd: end } : null;
}

/** The window's instants: today in the store's zone if it has not ended yet, else tomorrow. */
export function pickupInstants(window: LocalWindow, timezone: string, now: Date): { startsAt: Date; endsAt: Date } {
  const today = localParts(timezone, now).date;
  for (const date of [today, addDays(today, 1)]) {
    const endsAt = zonedInstant(date, window.pickupEnd, timezone);
    if (endsAt > now) return { startsAt: zonedInstant(date, window.pickupStart, timezone), endsAt };
  }
  throw new Error('unreachable: a window ends within two days');
}
