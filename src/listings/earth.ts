import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { rows as rowsOf, type Executor } from '../db/client.js';

// Distances of the public listings (DESIGN section 8): points as earthdistance's cubes, compared with
// the stored `earth` columns of src/db/search-columns.ts by the GiST index's distance (`<->`, a chord).

/** earthdistance's Earth radius in metres (its `earth()`), a sphere. */
export const EARTH_RADIUS_M = 6_378_168;

/**
 * A point as the text of earthdistance's cube, as `ll_to_earth` makes it, computed here: calling
 * `ll_to_earth` in the query tripled the cost of a nearby page.
 */
export function earthCube(latitude: number, longitude: number): string {
  const rad = Math.PI / 180;
  const [lat, lng] = [latitude * rad, longitude * rad];
  const r = EARTH_RADIUS_M;
  return `(${r * Math.cos(lat) * Math.cos(lng)}, ${r * Math.cos(lat) * Math.sin(lng)}, ${r * Math.sin(lat)})`;
}

/** A point as earthdistance's cube, to compare with a stored `earth` column. */
export const earthPoint = (latitude: number, longitude: number): SQL => sql`${earthCube(latitude, longitude)}::cube`;

/** The great-circle distance, in metres, of a cube (chord) distance `<->` (earthdistance's sec_to_gc). */
export const chordToMetres = (chord: number): number =>
  2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.max(0, chord) / (2 * EARTH_RADIUS_M)));
const diameter = sql.raw(String(2 * EARTH_RADIUS_M));
/**
 * In SQL: the great-circle distance in km, to the metre, of a cube (chord) distance (as chordToMetres,
 * rounded as the views round it); null for null (`least` and `greatest` would skip a null: the case keeps it).
 */
export const kmOfChordSql = (d: SQLWrapper): SQL =>
  sql`round(${diameter} * asin(case when ${d} >= ${diameter} then 1 else ${d} / ${diameter} end)) / 1000`;

/** The cube (chord) distance `<->` of a great-circle distance in metres: a radius as the GiST index's distance. */
export const metresToChord = (metres: number): number =>
  2 * EARTH_RADIUS_M * Math.sin(Math.min(Math.PI / 2, metres / (2 * EARTH_RADIUS_M)));

/**
 * Of the nearest rows `nearest` read (a query of their cube distance `d`, in the GiST index's order,
 * limited), how many it read and how many lie within `radiusM` (as nearestPage compares them: the
 * chord). A nearby list counts its radius' rows so: an ordered scan of the index stops at the limit,
 * where the radius' box as a condition let the planner read a bitmap of the whole box and sort it
 * (10,665 rows for 5 km in the densest town of 100,000 products).
 */
export async function countNearest(
  ex: Executor,
  nearest: SQLWrapper,
  radiusM: number,
): Promise<{ read: number; inside: number }> {
  const [row] = await rowsOf<{ read: number; inside: number }>(
    ex,
    sql`select count(*)::int as read, (count(*) filter (where c.d <= ${metresToChord(radiusM)}::float8))::int as inside from ${nearest} as c`,
  );
  return row ?? { read: 0, inside: 0 };
}
