import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { PgTransaction, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { StartupError } from '../shared/startup-error.js';
import { lockDataDir } from './data-dir-lock.js';
import * as schema from './schema/index.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction is used wherever a Db is: repository functions take either. */
export type Executor = Db;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Connections of the node-postgres pool (metrics); none for the embedded database. */
  pool?(): { total: number; idle: number; waiting: number };
  /** The embedded database's files as one archive (tests start each app from a migrated copy). */
  dump?(): Promise<Blob>;
  /** The embedded engine itself (the job queue talks to it through an adapter). */
  pglite?: PGlite;
}

export interface DatabaseOptions {
  /** An archive from `dump()` to start an embedded in-memory database from, instead of an empty one. */
  initialData?: Blob;
}

/**
 * Session settings of every application connection. JIT compilation turned 2.5 ms listing queries
 * into 250-370 ms ones, for no gain on queries that read tens of rows; the trigram threshold is
 * what `<%` (search words spelt nearly alike) uses, lower than pg_trgm's 0.6 so that a typo in
 * a short word or a word still being typed is found.
 */
export const SESSION_SETTINGS = { jit: 'off', 'pg_trgm.word_similarity_threshold': '0.5' } as const;

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));
// Any fixed number: serialises migrations of several instances starting at once.
const MIGRATION_LOCK = 727_274_001;

export async function rows<T>(ex: Executor, query: SQL): Promise<T[]> {
  const res = (await ex.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

export async function createDatabase(config: Config, opts: DatabaseOptions = {}): Promise<Database> {
  return config.DATABASE_URL
    ? createPostgres(config, config.DATABASE_URL)
    : createPglite(config.DATA_DIR, opts.initialData);
}

// Loaded only when used: the embedded engine costs about 45 MB of memory even idle.
async function createPglite(dataDir: string, initialData?: Blob): Promise<Database> {
  const [
    { PGlite },
    { cube },
    { earthdistance },
    { pg_trgm },
    { unaccent },
    { drizzle: drizzlePglite },
    { migrate: migratePglite },
  ] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/cube'),
    import('@electric-sql/pglite/contrib/earthdistance'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/unaccent'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  let unlock: () => void = () => undefined;
  if (!dataDir.includes('://')) {
    mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  let client: InstanceType<typeof PGlite>;
  try {
    client = new PGlite(dataDir, {
      extensions: { cube, earthdistance, pg_trgm, unaccent },
      ...(initialData && { loadDataDir: initialData }),
    });
    await client.waitReady;
  } catch (err) {
    unlock();
    throw err;
  }
  // PGlite has one connection: the settings are made once on it.
  for (const [name, value] of Object.entries(SESSION_SETTINGS))
    await client.query('select set_config($1, $2, false)', [name, value]);
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    migrate: async () => {
      await migratePglite(db as never, { migrationsFolder });
    },
    close: async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    },
    dump: () => client.dumpDataDir('none'),
    pglite: client,
  };
}

// Loaded only when used, as the embedded engine is: a start on one database skips the other's driver.
async function createPostgres(config: Config, url: string): Promise<Database> {
  const [{ default: pg }, { drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
    import('drizzle-orm/node-postgres/migrator'),
  ]);
  await checkConnection(pg, url);
  const options = Object.entries(SESSION_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  // A request waits at most this long for a connection (all busy, or a server that does not answer),
  // then fails as the database being unavailable (503) rather than hanging.
  const pool = new pg.Pool({
    connectionString: url,
    max: config.DATABASE_POOL_MAX,
    options,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    migrate: async () => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        try {
          await migratePg(drizzlePg({ client }), { migrationsFolder });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        }
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

/**
 * One connection before anything else, so that a wrong DATABASE_URL stops the start with one
 * line saying what is wrong (no such database, refused, bad password), never with the password.
 */
async function checkConnection(pg: typeof import('pg').default, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new StartupError(`DATABASE_URL: ${describeConnectionError(err, url)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function describeConnectionError(err: unknown, url: string): string {
  let where = 'the server';
  let database = '';
  try {
    const u = new URL(url);
    where = `${u.hostname || 'localhost'}:${u.port || 5432}`;
    database = decodeURIComponent(u.pathname.slice(1));
  } catch {
    // pg accepts forms URL does not; the driver's message still says what is wrong
  }
  const e = err as { code?: string; message?: string };
  switch (e.code) {
    case '3D000':
      return `database "${database}" does not exist on ${where}`;
    case '28P01':
    case '28000':
      return `${e.message} (${where})`;
    case 'ECONNREFUSED':
      return `connection refused by ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host of ${where} not found`;
    default:
      return `cannot connect to ${where}: ${(e.message ?? String(err)).split('\n')[0]}`;
  }
}

export const ping = (db: Db) => db.execute(sql`select 1`);

/** The driver's session behind a database handle or a transaction (drizzle keeps it as `session`). */
const sessionOf = (ex: Executor) => (ex as unknown as { session: { constructor: unknown; client: unknown } }).session;

/**
 * The driver's own connection behind a handle or transaction: a node-postgres pool or client, or the
 * PGlite instance or transaction. For code that must send a statement on the transaction's connection
 * without drizzle (the job queue's inserts, plan checks in tests).
 */
export const connectionOf = (ex: Executor): unknown => sessionOf(ex).client;

/**
 * Runs reads on `ex` together: at once on the pool's handle, one after the other in a transaction.
 * A transaction is one connection, on which pg only queues queries sent at once (deprecated, and
 * an error from pg 9).
 */
export async function together<T extends readonly unknown[]>(
  ex: Executor,
  reads: { [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  if (!(ex instanceof PgTransaction)) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const out: unknown[] = [];
  for (const read of reads) out.push(await read());
  return out as unknown as T;
}

/**
 * A prepared statement built once per driver, for queries on hot paths: the SQL text is generated
 * once (building it took a quarter of an order's server time) and the server parses and plans it
 * once per connection. A statement is bound to the connection it was built on; on any other handle
 * or transaction it runs as a view of the same statement on that one's connection (drizzle keeps
 * the connection in the statement's `client`, and nothing else of the handle).
 */
export function preparedPer<P extends object>(build: (ex: Executor) => P): (ex: Executor) => P {
  const built = new Map<unknown, P>();
  return (ex) => {
    const session = sessionOf(ex);
    let prepared = built.get(session.constructor);
    if (!prepared) built.set(session.constructor, (prepared = build(ex)));
    return onConnection(prepared, session.client);
  };
}

/** A placeholder per key, named as the key (after `prefix`): the values of a prepared INSERT. */
export const placeholders = <K extends string>(keys: readonly K[], prefix = '') =>
  Object.fromEntries(keys.map((k) => [k, sql.placeholder(prefix + k)])) as unknown as Record<K, never>;

/** `values` with every key prefixed, for a prepared statement whose placeholders were made with that prefix. */
export const prefixed = (values: Record<string, unknown>, prefix: string) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [prefix + k, v]));

function onConnection<P extends object>(prepared: P, client: unknown): P {
  return (prepared as { client?: unknown }).client === client
    ? prepared
    : (Object.create(prepared, { client: { value: client } }) as P);
}

/**
 * Prepared pages whose plan is made once per connection. PostgreSQL plans a prepared statement again
 * on every run (0.2-0.5 ms for a list page, as long as running it) while the plan it would keep
 * looks dearer than those made for the values, which it does when a value changes its estimates:
 * the current time against expiry dates, a LIMIT, a radius. Such values go through `opaque` (a
 * one-row sub-select, evaluated once per run: the same estimate whatever the value), and the row
 * count is a literal, one statement per size class (PAGE_ROWS); after its first five runs a
 * statement keeps one plan. `build` gets the literal row count (for `.limit(literalLimit(rows))`).
 */
export function preparedPage<P extends object>(
  build: (ex: Executor, rows: number) => P,
): (ex: Executor, n: number) => P {
  const bySize = new Map<number, (ex: Executor) => P>();
  return (ex, n) => {
    const rows = PAGE_ROWS.find((r) => r >= n) ?? n;
    let statement = bySize.get(rows);
    if (!statement) bySize.set(rows, (statement = preparedPer((e) => build(e, rows))));
    return statement(ex);
  };
}
/** Runs a preparedPage statement for `n` rows: its rows, at most `n`. */
export async function runPage<R>(
  statement: { execute: (args: Record<string, unknown>) => Promise<R[]> },
  args: Record<string, unknown>,
  n: number,
): Promise<R[]> {
  const found = await statement.execute(args);
  return found.length > n ? found.slice(0, n) : found;
}
/** The row counts of preparedPage's statements: a page reads at most about twice what it needs. */
export const PAGE_ROWS = [21, 41, 81, 161, 321, 641, 1281, 2561] as const;
/** A value the planner does not see (see preparedPage). */
export const opaque = (value: SQL): SQL => sql`(select ${value})`;
/** A LIMIT written into the statement, not sent as a parameter (see preparedPage). */
export const literalLimit = (rows: number): number => sql.raw(String(Math.trunc(rows))) as unknown as number;
