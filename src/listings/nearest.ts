import type { PageQuery } from '../shared/schemas.js';
import { chordToMetres, metresToChord } from './earth.js';
import { LISTING_TOTAL_CAP, metaOf, type ListingMeta } from './page.js';

// Nearest-first pages of the public listings (docs/listings.md, "Nearest first").

export interface Ranked {
  id: string;
  /** The index's order: the cube (chord) distance to the point. */
  d: number;
}

/**
 * A page of a nearest-first list within `radiusM`. `nearest(n)` asks the GiST index for the n
 * nearest listed rows in its distance order (`<->`) and nothing else: a radius condition lets the
 * planner prefer a bitmap scan that reads and sorts every row in the radius, and ordering by
 * distance *and* id stops the ordered scan. So the radius is applied here, to those n rows, and
 * ties are broken by id here. Rows at the distance where the index stopped may have been cut
 * arbitrarily; when that distance reaches into the page, more rows are asked of the index in its
 * order (twice as many each time) until the run of rows at that distance ends (places at one
 * address: the products of one store), so pages neither repeat nor skip a row.
 *
 * The total is exact whenever the radius holds no more than the rows read (offset + limit); past
 * that, the radius' rows are counted up to the cap (radiusCount), so the total is exact up to
 * LISTING_TOTAL_CAP and is the cap, flagged, beyond it.
 */
export async function nearestPage<R extends Ranked>(
  q: PageQuery,
  radiusM: number,
  nearest: (n: number) => Promise<R[]>,
  /** Of the `k` nearest rows (distances only), how many were read and how many lie within the radius (countNearest). */
  within: (k: number) => Promise<{ read: number; inside: number }>,
  /** Rows often at one place (the products of a store): asked for at once beyond the page. */
  ties = 0,
): Promise<{ items: (R & { distanceM: number })[]; meta: ListingMeta }> {
  type T = R & { distanceM: number };
  // The radius as its chord, compared as the count compares it (withinRadius).
  const chord = metresToChord(radiusM);
  const withDistance = (found: R[]): T[] =>
    found.filter((r) => r.d <= chord).map((r) => ({ ...r, distanceM: chordToMetres(r.d) }));
  const offset = (q.page - 1) * q.limit;
  const n = offset + q.limit + 1;
  const byOrder = (a: T, b: T) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  let asked = n + ties;
  let found = await nearest(asked);
  // The index's last row is at the distance of the page's last row: rows at that distance may follow.
  const cut = (rows: R[]) =>
    rows.length === asked && rows[Math.min(rows.length, offset + q.limit) - 1]!.d === rows[rows.length - 1]!.d;
  while (cut(found) && withDistance(found.slice(-1)).length) {
    asked *= 2;
    found = await nearest(asked);
  }
  const rows = withDistance(found).sort(byOrder);
  const page = rows.slice(offset, offset + q.limit + 1);
  const hasMore = page.length > q.limit;
  // The radius holds more rows than were read: they are counted, up to the cap.
  const counted =
    rows.length >= n
      ? Math.max(rows.length, await radiusCount(within, rows.length, rows[rows.length - 1]!.distanceM, radiusM))
      : rows.length;
  return { items: page.slice(0, q.limit), meta: metaOf(q, counted, hasMore) };
}

/**
 * The rows within the radius, up to LISTING_TOTAL_CAP + 1, from the nearest rows' distances: once a
 * row beyond the radius (or the end) is read, every row within it was. `read` rows were found
 * within `reach` metres: as densely over the circle, the radius holds about read * (radius /
 * reach)^2; a first look at twice that many (when it is well under the cap) spares a sparse region
 * the cap's rows, and a dense one goes to the cap at once.
 */
async function radiusCount(
  within: (k: number) => Promise<{ read: number; inside: number }>,
  read: number,
  reach: number,
  radiusM: number,
): Promise<number> {
  const cap = LISTING_TOTAL_CAP + 1;
  const guess = reach > 0 ? read * (radiusM / reach) ** 2 : cap;
  const first = Math.max(4 * read, Math.ceil(2 * guess));
  for (const k of first < cap ? [first, cap] : [cap]) {
    const found = await within(k);
    if (found.read < k || found.inside < found.read || k === cap) return found.inside;
  }
  return cap;
}
