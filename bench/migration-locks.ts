// npm run bench:migrations: which migrations lock what, and for how long on 100,000 products. On a
// scratch PostgreSQL database (DATABASE_URL) migrated to the head, with BENCH_PRODUCTS products, every
// statement of src/db/migrations on a large table is classified; each class is run once on `products`
// inside a transaction (timed, its locks read from pg_locks, rolled back). Writes its section of
// docs/benchmarks.md.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { PRODUCT_CATEGORIES } from '../src/modules/products/index.js';
import scratchDatabase from '../test/global-setup.js';
import { loadAverage, writeBenchSection } from './doc-section.js';
import { FOOD_WORDS, seedMarketplace } from './seed.js';

if (!process.env.DATABASE_URL) {
  process.stderr.write('bench:migrations needs DATABASE_URL (PostgreSQL): it reads the locks in pg_locks.\n');
  process.exit(1);
}
const productCount = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const LARGE = /^(products|orders|order_items|ledger_\w+|notifications|payments)$/;
const MIGRATIONS = new URL('../src/db/migrations/', import.meta.url);

/** A statement class, run on `products`: `setup` and `cleanup` are committed outside the measure. */
interface Probe {
  sql: string;
  setup?: string;
  cleanup?: string;
  /** Cannot run in a transaction: its locks are read from another connection while it runs. */
  alone?: boolean;
}
const CHECK = 'ADD CONSTRAINT bench_probe CHECK (quantity < 1000000000)';
const FK = 'ADD CONSTRAINT bench_probe FOREIGN KEY (store_id) REFERENCES stores (id)';
const PROBES: Record<string, Probe> = {
  'CREATE TABLE (and its own indexes and keys)': { sql: 'CREATE TABLE bench_probe (id uuid PRIMARY KEY)' },
  'ADD COLUMN, nullable': { sql: 'ALTER TABLE products ADD COLUMN bench_probe text' },
  'ADD COLUMN, constant default': { sql: 'ALTER TABLE products ADD COLUMN bench_probe integer DEFAULT 0 NOT NULL' },
  'ADD COLUMN, volatile default (rewrite)': {
    sql: 'ALTER TABLE products ADD COLUMN bench_probe timestamptz DEFAULT clock_timestamp() NOT NULL',
  },
  'ADD COLUMN, generated (rewrite)': {
    sql: 'ALTER TABLE products ADD COLUMN bench_probe integer GENERATED ALWAYS AS (original_price - discounted_price) STORED',
  },
  'ALTER COLUMN TYPE (rewrite)': { sql: 'ALTER TABLE products ALTER COLUMN unit_weight_grams TYPE bigint' },
  'SET NOT NULL (scan)': { sql: 'ALTER TABLE products ALTER COLUMN published_at SET NOT NULL' },
  'DROP NOT NULL, SET/DROP DEFAULT': { sql: 'ALTER TABLE products ALTER COLUMN description DROP NOT NULL' },
  'ADD CHECK (validated)': { sql: `ALTER TABLE products ${CHECK}` },
  'ADD CHECK NOT VALID': { sql: `ALTER TABLE products ${CHECK} NOT VALID` },
  'ADD FOREIGN KEY (validated)': { sql: `ALTER TABLE products ${FK}` },
  'ADD FOREIGN KEY NOT VALID': { sql: `ALTER TABLE products ${FK} NOT VALID` },
  'VALIDATE CONSTRAINT': {
    setup: `ALTER TABLE products ${CHECK} NOT VALID`,
    sql: 'ALTER TABLE products VALIDATE CONSTRAINT bench_probe',
    cleanup: 'ALTER TABLE products DROP CONSTRAINT bench_probe',
  },
  'FOREIGN KEY to it from another table': {
    setup: 'CREATE TABLE bench_probe (product_id uuid)',
    sql: 'ALTER TABLE bench_probe ADD FOREIGN KEY (product_id) REFERENCES products (id)',
    cleanup: 'DROP TABLE bench_probe',
  },
  'CREATE INDEX (btree)': { sql: 'CREATE INDEX bench_probe ON products (created_at, id)' },
  'CREATE INDEX (gist)': { sql: 'CREATE INDEX bench_probe ON products USING gist (location)' },
  'CREATE INDEX (gin)': { sql: 'CREATE INDEX bench_probe ON products USING gin (search_vector)' },
  'CREATE INDEX (gin, trigram)': {
    sql: 'CREATE INDEX bench_probe ON products USING gin (search_document gin_trgm_ops)',
  },
  'CREATE UNIQUE INDEX': { sql: 'CREATE UNIQUE INDEX bench_probe ON products (id, created_at)' },
  'CREATE INDEX CONCURRENTLY (btree)': {
    sql: 'CREATE INDEX CONCURRENTLY bench_probe ON products (created_at, id)',
    cleanup: 'DROP INDEX bench_probe',
    alone: true,
  },
  'CREATE TRIGGER': {
    sql: 'CREATE TRIGGER bench_probe BEFORE UPDATE OF rejection_reason ON products FOR EACH ROW EXECUTE FUNCTION products_set_listed()',
  },
  'UPDATE backfill (every row)': { sql: "UPDATE products SET rejection_reason = 'backfilled'" },
  'INSERT ... SELECT (reads it)': {
    setup: 'CREATE TABLE bench_probe (id uuid)',
    sql: 'INSERT INTO bench_probe SELECT id FROM products',
    cleanup: 'DROP TABLE bench_probe',
  },
  'DROP INDEX': { sql: 'DROP INDEX products_created_idx' },
  'DROP COLUMN': { sql: 'ALTER TABLE products DROP COLUMN rejection_reason' },
  'DROP CONSTRAINT': { sql: 'ALTER TABLE products DROP CONSTRAINT products_quantity' },
};

interface Statement {
  file: string;
  table: string;
  kind: string;
}

/** The class of a statement on an existing table (see PROBES). */
function kindOf(s: string): string {
  const index = /^CREATE (UNIQUE )?INDEX (CONCURRENTLY )?.*?(?:USING (\w+))?\s*\(/is.exec(s);
  if (index) {
    if (index[1]) return 'CREATE UNIQUE INDEX';
    const method = `${index[3] ?? 'btree'}${s.includes('gin_trgm_ops') ? ', trigram' : ''}`;
    return `CREATE INDEX ${index[2] ? 'CONCURRENTLY ' : ''}(${method})`;
  }
  const starts: [RegExp, string][] = [
    [/^DROP INDEX/i, 'DROP INDEX'],
    [/^UPDATE/i, 'UPDATE backfill (every row)'],
    [/^INSERT/i, 'INSERT ... SELECT (reads it)'],
    [/^CREATE (CONSTRAINT )?TRIGGER/i, 'CREATE TRIGGER'],
    [/ADD COLUMN .*GENERATED ALWAYS AS .*STORED/is, 'ADD COLUMN, generated (rewrite)'],
    [
      /ADD COLUMN .*DEFAULT\s+(gen_random_uuid|random|clock_timestamp|nextval|timeofday)/is,
      'ADD COLUMN, volatile default (rewrite)',
    ],
    [/ADD COLUMN .*DEFAULT/is, 'ADD COLUMN, constant default'],
    [/ADD COLUMN/i, 'ADD COLUMN, nullable'],
    [/ALTER COLUMN\s+"?\w+"?\s+(SET DATA\s+)?TYPE/i, 'ALTER COLUMN TYPE (rewrite)'],
    [/SET NOT NULL/i, 'SET NOT NULL (scan)'],
    [/DROP NOT NULL|SET DEFAULT|DROP DEFAULT/i, 'DROP NOT NULL, SET/DROP DEFAULT'],
    [/FOREIGN KEY.*NOT VALID/is, 'ADD FOREIGN KEY NOT VALID'],
    [/FOREIGN KEY/i, 'ADD FOREIGN KEY (validated)'],
    [/CHECK.*NOT VALID/is, 'ADD CHECK NOT VALID'],
    [/ADD CONSTRAINT .*CHECK/is, 'ADD CHECK (validated)'],
    [/VALIDATE CONSTRAINT/i, 'VALIDATE CONSTRAINT'],
    [/DROP COLUMN/i, 'DROP COLUMN'],
    [/DROP CONSTRAINT/i, 'DROP CONSTRAINT'],
  ];
  return starts.find(([re]) => re.test(s))?.[1] ?? 'other (not measured)';
}

/** Every statement of the migrations that locks a large table, in the order they run. */
function statements(): Statement[] {
  const indexTables = new Map<string, string>();
  const found: Statement[] = [];
  const name = String.raw`(?:"?public"?\.)?"?(\w+)"?`;
  for (const file of readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const created = new Set<string>();
    for (const raw of readFileSync(new URL(file, MIGRATIONS), 'utf8').split('--> statement-breakpoint')) {
      const s = raw.replace(/^\s*--.*$/gm, '').trim();
      if (!s || /^CREATE (OR REPLACE )?FUNCTION/i.test(s)) continue;
      const index = new RegExp(`^CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?"?(\\w+)"? ON (?:ONLY )?${name}`, 'i').exec(
        s,
      );
      if (index) indexTables.set(index[1]!, index[2]!);
      const table =
        index?.[2] ??
        new RegExp(`^(?:CREATE TABLE|ALTER TABLE(?: ONLY)?|UPDATE) ${name}`, 'i').exec(s)?.[1] ??
        new RegExp(`^CREATE (?:CONSTRAINT )?TRIGGER .*? ON ${name}`, 'is').exec(s)?.[1] ??
        new RegExp(`^INSERT INTO .*? FROM ${name}`, 'is').exec(s)?.[1] ??
        indexTables.get(new RegExp(`^DROP INDEX (?:CONCURRENTLY )?(?:IF EXISTS )?${name}`, 'i').exec(s)?.[1] ?? '');
      if (!table) continue;
      if (/^CREATE TABLE/i.test(s)) created.add(table);
      // A key from a table to a large one locks the large one (SHARE ROW EXCLUSIVE) while it is checked.
      const referenced = new RegExp(`REFERENCES ${name}`, 'i').exec(s)?.[1];
      const fromOther = created.has(table) || !LARGE.test(table);
      if (referenced && LARGE.test(referenced) && !created.has(referenced) && fromOther)
        found.push({ file, table: referenced, kind: 'FOREIGN KEY to it from another table' });
      else if (LARGE.test(table))
        found.push({
          file,
          table,
          // A table made by the same migration is empty and seen by no one before the commit.
          kind: created.has(table) ? 'CREATE TABLE (and its own indexes and keys)' : kindOf(s),
        });
    }
  }
  return found;
}

// The run's own database (DATABASE_URL then names it), dropped at the end.
const dropDatabase = (await scratchDatabase()) as () => Promise<void>;
const STORES = 1000;
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });

/** The database at the head, with its suppliers, stores and `productCount` products; returns the seconds it took. */
async function loadCatalogue(): Promise<number> {
  const started = performance.now();
  const database = await createDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }));
  await database.migrate();
  await seedMarketplace(database.db, new Date(), STORES / 10, STORES, 0, 0);
  await database.close();
  // Products in one statement (the triggers keep `listed`, the store's name and the search words as
  // the application's writes do): names and descriptions of seeded words, five categories, prices,
  // expiries over three days, one in ten waiting for review, created over the last days.
  await client.query(
    `WITH w AS (SELECT $2::text[] AS words, cardinality($2::text[]) AS n, $3::text[] AS categories)
     INSERT INTO products (id, supplier_id, store_id, name, description, category, original_price,
       discounted_price, quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, dietary_tags,
       status, location, search_document, published_at, created_at, updated_at)
     SELECT gen_random_uuid(), s.supplier_id, s.id, p.name, p.description, w.categories[1 + g % cardinality(w.categories)],
       500 + g % 40 * 100, (500 + g % 40 * 100) * (3 + g % 5) / 10, 1 + g % 12, 500,
       now() + (1 + g % 72) * interval '1 hour', '18:00', '21:00',
       CASE WHEN g % 5 = 1 THEN '{VEGETARIAN}'::text[] ELSE '{}' END,
       CASE WHEN g % 10 = 0 THEN 'PENDING_REVIEW' ELSE 'ACTIVE' END, ll_to_earth(s.latitude, s.longitude),
       lower(p.name || ' ' || p.description), now(), now() - g * interval '5 seconds', now()
     FROM generate_series(1, $1::int) g CROSS JOIN w
     CROSS JOIN LATERAL (SELECT initcap(w.words[1 + g % w.n]) || ' ' || w.words[1 + g / 7 % w.n] AS name,
       'Invendus du jour, ' || w.words[1 + g * 7 % w.n] || ' ' || w.words[1 + g * 13 % w.n] AS description) p
     JOIN (SELECT id, supplier_id, latitude, longitude, row_number() OVER (ORDER BY id) - 1 AS n FROM stores) s
       ON s.n = g % $4`,
    [productCount, FOOD_WORDS, PRODUCT_CATEGORIES, STORES],
  );
  await client.query('VACUUM ANALYZE products');
  return (performance.now() - started) / 1000;
}

const MODES = [
  'AccessShare',
  'RowShare',
  'RowExclusive',
  'ShareUpdateExclusive',
  'Share',
  'ShareRowExclusive',
  'Exclusive',
  'AccessExclusive',
];
const strength = (mode: string) => MODES.indexOf(mode.replace(/Lock$/, ''));
/** "AccessExclusiveLock" -> "ACCESS EXCLUSIVE". */
const lockName = (mode: string) =>
  mode
    .replace(/Lock$/, '')
    .replace(/(?<=.)([A-Z])/g, ' $1')
    .toUpperCase();
/** The lock modes a backend holds on `products` (null: this connection's own). */
const locksOn = async (pid: number | null) =>
  (
    await client.query<{ mode: string }>(
      "SELECT mode FROM pg_locks WHERE pid = coalesce($1::int, pg_backend_pid()) AND relation = 'products'::regclass",
      [pid],
    )
  ).rows.map((r) => r.mode);

interface Measure {
  ms: number;
  /** The strongest lock the statement held on `products`, or null. */
  lock: string | null;
}
async function measure(probe: Probe): Promise<Measure> {
  if (probe.setup) await client.query(probe.setup);
  const modes: string[] = [];
  let ms: number;
  try {
    if (probe.alone) {
      const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await other.connect();
      const pid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      let done = false;
      const t = performance.now();
      const run = other.query(probe.sql).finally(() => (done = true));
      while (!done) modes.push(...(await locksOn(pid)));
      await run;
      ms = performance.now() - t;
      await other.end();
    } else {
      await client.query('BEGIN');
      try {
        const t = performance.now();
        await client.query(probe.sql);
        ms = performance.now() - t;
        modes.push(...(await locksOn(null)));
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    if (probe.cleanup) await client.query(probe.cleanup);
  }
  const lock = modes.sort((a, b) => strength(b) - strength(a))[0] ?? null;
  return { ms, lock };
}

function verdict(kind: string, m: Measure | undefined): string {
  if (!m) return 'check by hand';
  const ms = m.ms.toFixed(0);
  if (kind.startsWith('UPDATE')) return `blocks writes to the rows it changes for ${ms} ms`;
  if (!m.lock || strength(m.lock) <= strength('ShareUpdateExclusive')) return 'safe while serving';
  return m.lock === 'AccessExclusiveLock' ? `blocks reads and writes for ${ms} ms` : `blocks writes for ${ms} ms`;
}

const measured = new Map<string, Measure>();
let loadBefore: string;
try {
  await client.connect();
  const seconds = await loadCatalogue();
  process.stdout.write(`${productCount.toLocaleString('en')} products loaded in ${seconds.toFixed(0)} s\n`);
  loadBefore = loadAverage();
  for (const [kind, probe] of Object.entries(PROBES)) {
    const m = await measure(probe);
    measured.set(kind, m);
    process.stdout.write(`${kind.padEnd(48)} ${m.ms.toFixed(0).padStart(7)} ms  ${m.lock ?? 'no lock'}\n`);
  }
} finally {
  await client.end().catch(() => undefined);
  await dropDatabase();
}
const loadAfter = loadAverage();

const cells = (kind: string) => {
  const m = measured.get(kind);
  return `${m?.lock ? lockName(m.lock) : m ? 'none' : '?'} | ${m ? m.ms.toFixed(0) : ''} | ${verdict(kind, m)}`;
};
// One row per migration, table and class, with how many of its statements are of that class.
const groups = new Map<string, Statement & { count: number }>();
for (const s of statements()) {
  const key = `${s.file}|${s.table}|${s.kind}`;
  const g = groups.get(key) ?? { ...s, count: 0 };
  g.count++;
  groups.set(key, g);
}
const used = new Set([...groups.values()].map((g) => g.kind));
const rows = [
  ...[...groups.values()].map((g) => `| ${g.file} | ${g.table} | ${g.kind} | ${g.count} | ${cells(g.kind)} |`),
  ...Object.keys(PROBES)
    .filter((kind) => !used.has(kind))
    .map((kind) => `| (none yet) | products | ${kind} | | ${cells(kind)} |`),
];
// Per migration: its strongest lock is held until the commit, through the statements after it.
const files = new Map<string, { kind: string; lock: string | null; ms: number }>();
for (const g of groups.values()) {
  const m = measured.get(g.kind);
  const f = files.get(g.file) ?? { kind: g.kind, lock: null, ms: 0 };
  if (m?.lock && (!f.lock || strength(m.lock) > strength(f.lock))) Object.assign(f, { kind: g.kind, lock: m.lock });
  f.ms += (m?.ms ?? 0) * g.count;
  files.set(g.file, f);
}
const fileRows = [...files].map(
  ([file, f]) =>
    `| ${file} | ${f.lock ? lockName(f.lock) : 'none'} (${f.kind}) | ${f.ms.toFixed(0)} | ${verdict(f.kind, f)} |`,
);
process.stdout.write(`\n${[...rows, '', ...fileRows].join('\n')}\n`);

writeBenchSection('migration-locks', [
  '## Migration locks',
  '',
  'Produced by `npm run bench:migrations`: every statement of `src/db/migrations` on a large table (products,',
  'orders, order_items, ledger_*, notifications, payments) is classified; each class is run once on `products`',
  `(${productCount.toLocaleString('en')} rows, on a scratch PostgreSQL database migrated to the head) inside a transaction,`,
  'timed, the locks it holds on `products` read from `pg_locks`, and rolled back. "ms" is per statement of the',
  'class; classes no migration uses yet are listed last, for the migrations to come.',
  '',
  "- Every pending migration runs in ONE transaction (drizzle's migrator): a lock taken by a statement is held",
  '  until the last pending migration commits, so the block lasts the sum of the statements after it, too.',
  "  The second table adds up each migration's statements under its strongest lock, as if it ran alone.",
  '- `CREATE INDEX CONCURRENTLY` cannot run inside a transaction, so not as the migrator runs migrations.',
  '  `NOT VALID`, then `VALIDATE CONSTRAINT` in a later deploy, splits a check or a key into two short locks.',
  '',
  `- Date: ${new Date().toISOString()}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  `- Load average (\`uptime\`: 1, 5, 15 min): ${loadBefore} before, ${loadAfter} after`,
  '',
  `| migration | table | statement kind | statements | lock on the table | ms on ${productCount.toLocaleString('en')} products | verdict |`,
  '|---|---|---|---:|---|---:|---|',
  ...rows,
  '',
  `| migration | strongest lock on a large table (first taken by) | its statements in total, ms on ${productCount.toLocaleString('en')} products | verdict |`,
  '|---|---|---:|---|',
  ...fileRows,
]);
