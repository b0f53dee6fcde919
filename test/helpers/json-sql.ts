import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { expect } from 'vitest';
import { EARTH_RADIUS_M, chordToMetres } from '../../src/listings/index.js';
import type { Weekday } from '../../src/shared/opening-hours.js';

// What the property tests of the JSON PostgreSQL writes share (src/modules/*/<m>.json-sql.test.ts):
// arbitraries for the awkward values of a row, a bounded run with a fixed seed, and a schema check
// that names every error.

/** Opening hours as stores and suppliers keep them: ranges `HH:MM-HH:MM` per weekday. */
type OpeningHours = Partial<Record<Weekday, string[]>>;

/** The seed of every run (FC_SEED overrides it to replay one): fast-check prints it with the counterexample. */
export const SEED = Number(process.env.FC_SEED ?? 20_250_611);

/** Runs the property `numRuns` times from the fixed seed; a failure shows the seed, the path and the row. */
export const checkRows = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>, numRuns = 30) =>
  fc.assert(
    fc.asyncProperty(arb, check),
    // Shrinking writes rows again and again: a few steps are enough to read the failing field.
    { seed: SEED, numRuns, endOnFailure: false, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false },
  );

/** Fails with every error TypeBox finds (path, message, value) when `value` does not match `schema`. */
export function expectSchema(schema: TSchema, value: unknown, what = 'answer'): void {
  if (Value.Check(schema, value)) return;
  const errors = [...Value.Errors(schema, value)].slice(0, 10);
  expect.fail(`${what} does not match its response schema:\n${JSON.stringify(errors, null, 2)}`);
}

/** Characters that JSON, SQL text or the compaction of JSON could mishandle. */
const AWKWARD = ['"', '\\', "'", ' : ', ', ', '{', '}', '[', ']', '\n', '\t', '\u0001', '\u2028', '/', '%', '_'];
const UNICODE = ['é', 'ß', 'Дакар', '東京', 'ع', '😀', '👩🏽‍🍳', '\u200b', 'ﬁ', 'a\ufeff'];

/**
 * Text with quotes, backslashes, control characters, unicode and emoji. Never NUL, which PostgreSQL
 * text refuses, nor a leading byte order mark, which PGlite's driver drops from a value it reads.
 */
export const text = (minLength = 0, maxLength = 30): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 4 }) },
        { weight: 2, arbitrary: fc.constantFrom(...AWKWARD) },
        { weight: 2, arbitrary: fc.constantFrom(...UNICODE) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
      ),
      { maxLength: maxLength },
    )
    .map((parts) =>
      parts
        .join('')
        .split('\u0000')
        .join('')
        .replace(/^\ufeff+/, ''),
    )
    .filter((s) => s.length >= minLength && s.length <= maxLength);

/** A timestamp PostgreSQL and JavaScript both hold exactly (milliseconds), from 1970 to 2200. */
export const instant: fc.Arbitrary<Date> = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }).map((ms) => new Date(ms));

export const latitude = fc.oneof(
  fc.constantFrom(-90, 0, 90),
  fc.integer({ min: -900_000, max: 900_000 }).map((n) => n / 10_000),
);
export const longitude = fc.oneof(
  fc.constantFrom(-180, 0, 180),
  fc.integer({ min: -1_800_000, max: 1_800_000 }).map((n) => n / 10_000),
);

/** Time zones with whole, half and quarter hour offsets and daylight saving, both hemispheres. */
export const timezone = fc.constantFrom(
  'Africa/Dakar',
  'Europe/Paris',
  'America/New_York',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Sydney',
  'Pacific/Kiritimati',
);

const minute = fc.integer({ min: 0, max: 24 * 4 }).map((q) => q * 15);
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
/** Opening hours as the API stores them: per day, ordered ranges that do not overlap (or none). */
export const openingHours: fc.Arbitrary<OpeningHours> = fc
  .array(
    fc.tuple(
      fc.constantFrom('0', '1', '2', '3', '4', '5', '6'),
      fc.uniqueArray(minute, { minLength: 2, maxLength: 4 }),
    ),
    {
      maxLength: 7,
    },
  )
  .map((days) => {
    const hours: OpeningHours = {};
    for (const [day, marks] of days) {
      const sorted = [...marks].sort((a, b) => a - b);
      const ranges: string[] = [];
      for (let i = 0; i + 1 < sorted.length; i += 2) ranges.push(`${hhmm(sorted[i]!)}-${hhmm(sorted[i + 1]!)}`);
      hours[day as keyof OpeningHours] = ranges;
    }
    return hours;
  });

/** A point as earthdistance's `ll_to_earth` puts it on its sphere. */
const cube = (lat: number, lng: number) => {
  const [a, b] = [(lat * Math.PI) / 180, (lng * Math.PI) / 180];
  return [Math.cos(a) * Math.cos(b), Math.cos(a) * Math.sin(b), Math.sin(a)].map((c) => c * EARTH_RADIUS_M);
};
/** The distance in km, to the metre, between two points as the views round it (chordToMetres of the chord). */
export function distanceKm(
  p: { latitude: number; longitude: number },
  q: { latitude: number; longitude: number },
): number {
  const [x, y] = [cube(p.latitude, p.longitude), cube(q.latitude, q.longitude)];
  return Math.round(chordToMetres(Math.hypot(x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!))) / 1000;
}

/** A stored file's key as the server makes them (its own names: no user text). */
export const fileKey = fc.uuid({ version: 7 }).map((id) => `public/${id}.webp`);
