import type { FastifyReply } from 'fastify';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { JSON_LENGTH } from './cache.js';
import type { ListingMeta } from './page.js';

// Items of the public listings written as JSON by the database and sent as it wrote them
// (docs/listings.md, "Uncached speed"): the server neither parses nor maps nor serializes them.

/** In SQL: a timestamp as JavaScript's toISOString writes it (UTC, milliseconds, `Z`), for JSON built by the database. */
export const isoSql = (t: SQLWrapper): SQL => sql`to_char(${t} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A listing's items as the database wrote them, in order: their JSON texts joined by commas (the
 * inside of the array). `sendJsonListing` sends them as they are, so the server neither parses nor
 * maps nor serializes the rows of a hot list. Anything else that turns them into JSON (the listing
 * cache weighing an answer) sees the items.
 */
export class JsonItems {
  private constructor(readonly json: string) {}
  /** The items of rows that carry their JSON as `card` (made compact: see compactJson). */
  static of(rows: readonly { card: string }[]): JsonItems {
    return new JsonItems(compactJson(rows.map((r) => r.card).join(',')));
  }
  /** Items the database joined itself (`string_agg(card, ',')`, null when there are none). */
  static joined(json: string | null): JsonItems {
    return new JsonItems(json ? compactJson(json) : '');
  }
  static readonly none = new JsonItems('');
  toJSON(): unknown[] {
    return JSON.parse(`[${this.json}]`) as unknown[];
  }
  [JSON_LENGTH](): number {
    return this.json.length + 2;
  }
  /**
   * The earliest instant (ms) among the items' `field` (an ISO date-time the database wrote), Infinity
   * when none has it: a key's quoted name cannot occur inside a JSON string, where quotes are escaped.
   */
  earliest(field: string): number {
    const name = `"${field}"`;
    let min = Infinity;
    for (let i = this.json.indexOf(name); i >= 0; i = this.json.indexOf(name, i + name.length)) {
      const start = this.json.indexOf('"', i + name.length) + 1;
      const at = Date.parse(this.json.slice(start, this.json.indexOf('"', start)));
      if (at < min) min = at;
    }
    return min;
  }
}

/** The earliest instant (ms) among the items' `field` (ISO date-times), Infinity when there are none. */
export const earliestOf = <K extends string>(items: readonly Record<K, string>[], field: K): number =>
  items.reduce((min, item) => Math.min(min, Date.parse(item[field])), Infinity);

/**
 * A row of a nearest-first page whose item the database writes: its JSON (`card`), and the id and
 * cube distance `d` the page's radius and ties need (nearestPage).
 */
export interface NearbyJsonRow {
  id: string;
  d: number;
  card: string;
}

/** The `Ok` envelope around data the database wrote as JSON text (one object): sent compact, not serialized again. */
export const sendJsonData = (reply: FastifyReply, json: string) =>
  reply.type('application/json; charset=utf-8').send(`{"success":true,"data":${compactJson(json)}}`);

/** A JSON string (kept, as group 1) or whitespace between tokens (dropped). */
const TOKEN_SPACE = /("[^"\\]*(?:\\.[^"\\]*)*")|\s+/g;
/**
 * JSON text without the whitespace between its tokens, as every other answer is written: PostgreSQL
 * writes `json_build_object` as `{"id" : "x", "n" : 1}`, `json_agg` with `, ` and line breaks, jsonb
 * with `": "`. One native regular expression: strings are matched whole and kept, whitespace outside
 * them dropped (measured on 3.8 KB of `" : "` text: about 18 us of CPU, against 23 us for
 * JSON.parse and JSON.stringify, on a busy machine).
 */
export const compactJson = (json: string): string => json.replace(TOKEN_SPACE, '$1');

/** The `OkListing` envelope around items already in JSON: written as text, not serialized again. */
export const sendJsonListing = (reply: FastifyReply, items: JsonItems, meta: ListingMeta) =>
  reply
    .type('application/json; charset=utf-8')
    .send(`{"success":true,"data":[${items.json}],"meta":${JSON.stringify(meta)}}`);
