import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

// Text folding in SQL, the same on PostgreSQL 15 and on the embedded PGlite. `f_unaccent` is an
// IMMUTABLE wrapper of the unaccent extension (migration 0007), so indexes and stored generated
// columns may use it; the queries repeat these expressions exactly so the planner matches them.

/** The text without its accents: `Épicerie` -> `Epicerie`, `Œuvre` -> `OEuvre`, `Straße` -> `Strasse`. */
export const unaccented = (text: SQLWrapper): SQL => sql`f_unaccent(${text})`;

/**
 * The key names are ordered by (then by id, so pages neither repeat nor skip): accents removed,
 * ASCII letters lower-cased, then compared byte by byte. Both steps use the "C" rules on purpose:
 * lower() and collations otherwise follow the server's locale, which differs between PostgreSQL
 * (glibc, C.UTF-8) and PGlite, and would give each database its own order.
 */
export const nameOrderKey = (name: SQLWrapper): SQL => sql`lower(f_unaccent(${name}) collate "C")`;
