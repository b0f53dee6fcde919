import { sql, type SQL } from 'drizzle-orm';
import { kmOfChordSql } from '../../listings/index.js';

// The product card PostgreSQL writes as JSON (docs/architecture.md, "JSON written by the database"):
// its own fields and its store's name are the stored column `products.card` (the `product_card`
// function of migration 0034, kept by the database at every write of the row); the lists add the
// picture and the distance here. product-search.json-sql.test.ts checks the card against its
// TypeScript view and the lists' response schema. A field added to the card must be added to both.

/**
 * The card of the product row `"p"` as JSON text: the stored card (its own fields and its store's
 * name, written with the row: migration 0034) with the first picture's URL and the distance in km
 * from the cube distance `d` (as chordToMetres, rounded to the metre) added. `files`: the public
 * files' URL prefix.
 */
export const cardJson = (files: unknown, d: SQL) =>
  sql<string>`left("p"."card", -1) || ', "thumbnailUrl" : ' || coalesce(to_json(${files}::text || "p"."thumbnail_key")::text, 'null') || ', "distanceKm" : ' || coalesce((${kmOfChordSql(d)})::text, 'null') || '}'`;
