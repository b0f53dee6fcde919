import { describe, expect, it } from 'vitest';
import { secondsUntilQuietEnds } from './preferences.js';

describe('quiet hours', () => {
  const night = { start: '22:00', end: '07:00', timezone: 'Africa/Dakar' };

  it('holds until the end of a window that spans midnight', () => {
    expect(secondsUntilQuietEnds(new Date('2026-03-10T23:30:15Z'), night)).toBe(7.5 * 3600 - 15);
    expect(secondsUntilQuietEnds(new Date('2026-03-10T06:59:00Z'), night)).toBe(60);
    expect(secondsUntilQuietEnds(new Date('2026-03-10T22:00:00Z'), night)).toBe(9 * 3600);
  });

  it('does not hold outside the window, at its end, or without quiet hours', () => {
    expect(secondsUntilQuietEnds(new Date('2026-03-10T07:00:00Z'), night)).toBe(0);
    expect(secondsUntilQuietEnds(new Date('2026-03-10T12:00:00Z'), night)).toBe(0);
    expect(secondsUntilQuietEnds(new Date('2026-03-10T23:00:00Z'), null)).toBe(0);
  });

  it('reads the time in the given zone', () => {
    const siesta = { start: '13:00', end: '15:00', timezone: 'Europe/Paris' };
    // 12:30 UTC is 13:30 in Paris in winter (UTC+1) and 14:30 in summer (UTC+2).
    expect(secondsUntilQuietEnds(new Date('2026-01-15T12:30:00Z'), siesta)).toBe(90 * 60);
    expect(secondsUntilQuietEnds(new Date('2026-07-15T12:30:00Z'), siesta)).toBe(30 * 60);
  });
});
