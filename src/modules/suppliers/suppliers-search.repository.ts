import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { nameOrderKey } from '../../db/folding.js';
import { supplierProfiles as sp } from '../../db/schema/suppliers.js';
import { users } from '../../db/schema/users.js';
import { publicSupplierCondition } from './supplier-visibility.js';
import { openAtSql } from '../../shared/opening-hours.js';

// The same expressions as the indexes of supplier_profiles, so the planner uses them.
const document = sql`(${sp.businessName} || ' ' || ${sp.description})`;
const vector = sql`to_tsvector('simple', ${sp.businessName} || ' ' || ${sp.description})`;
const position = sql`ll_to_earth(${sp.latitude}, ${sp.longitude})`;

/**
 * Words as prefixes ("boul" finds "Boulangerie") for the full-text match. Only letters and digits
 * reach to_tsquery, so its syntax cannot be injected.
 */
function prefixQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words ? words.slice(0, 8).map((w) => `${w}:*`).join(' & ') : null;
}

export interface SearchFilter {
  q?: string;
  city?: string;
  category?: 'FOOD' | 'DEALS';
  openNow?: boolean;
  sort: 'relevance' | 'name' | 'newest';
  now: Date;
}

export async function searchPublic(ex: Executor, f: SearchFilter, limit: number, offset: number) {
  const conds: (SQL | undefined)[] = [publicSupplierCondition()];
  if (f.city) conds.push(sql`lower(${sp.city}) = lower(${f.city})`);
  if (f.category) conds.push(eq(sp.category, f.category));
  if (f.openNow !== undefined) conds.push(sql`${f.openNow ? sql`` : sql`not `}${openAtSql(sp.openingHours, sp.timezone, f.now)}`);
  let score: SQL = sql`0`;
  if (f.q) {
    const tsq = prefixQuery(f.q);
    // Typos: `<%` is word similarity above pg_trgm's threshold (0.6), served by the trigram index.
    const typo = sql`${f.q} <% ${document}`;
    conds.push(tsq ? sql`(${vector} @@ to_tsquery('simple', ${tsq}) or ${typo})` : typo);
    score = sql`(word_similarity(${f.q}, ${sp.businessName}) * 2 + word_similarity(${f.q}, ${document})${
      tsq ? sql` + ts_rank(${vector}, to_tsquery('simple', ${tsq}))` : sql``
    })`;
  }
  const where = and(...conds);
  const byName = [asc(nameOrderKey(sp.businessName)), asc(sp.id)];
  const order =
    f.sort === 'newest' ? [desc(sp.createdAt), desc(sp.id)] : f.sort === 'relevance' && f.q ? [desc(score), ...byName] : byName;
  const [items, [total]] = await Promise.all([
    ex
      .select({ profile: sp })
      .from(sp)
      .innerJoin(users, eq(users.id, sp.userId))
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset(offset),
    ex.select({ n: count() }).from(sp).innerJoin(users, eq(users.id, sp.userId)).where(where),
  ]);
  return { items: items.map((r) => r.profile), total: total?.n ?? 0 };
}

export interface NearbyFilter {
  latitude: number;
  longitude: number;
  radiusM: number;
  category?: 'FOOD' | 'DEALS';
}

/**
 * Within the radius, nearest first. earth_box narrows through the GiST index; earth_distance
 * decides; the cube distance `<->` (a straight-line chord, which orders points exactly as the
 * great-circle distance does) lets the same index hand rows over nearest first, so a page does
 * not sort every row in the radius.
 */
export async function nearbyPublic(ex: Executor, f: NearbyFilter, limit: number, offset: number) {
  const origin = sql`ll_to_earth(${f.latitude}::float8, ${f.longitude}::float8)`;
  const distance = sql<number>`earth_distance(${origin}, ${position})`;
  const conds: (SQL | undefined)[] = [
    publicSupplierCondition(),
    sql`earth_box(${origin}, ${f.radiusM}::float8) @> ${position}`,
    sql`${distance} <= ${f.radiusM}::float8`,
  ];
  if (f.category) conds.push(eq(sp.category, f.category));
  const where = and(...conds);
  const [items, [total]] = await Promise.all([
    ex
      .select({ profile: sp, distanceM: distance.mapWith(Number) })
      .from(sp)
      .innerJoin(users, eq(users.id, sp.userId))
      .where(where)
      .orderBy(sql`${position} <-> ${origin}`, asc(sp.id))
      .limit(limit)
      .offset(offset),
    ex.select({ n: count() }).from(sp).innerJoin(users, eq(users.id, sp.userId)).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}
