// npm run bench:instances: the public product search served by one API instance, then by two, on one
// PostgreSQL and one Redis (DATABASE_URL and REDIS_URL), in one run: the ratio is the figure. The
// instances run the compiled server as `npm start` does, with WORKERS=off. With two, autocannon sends
// connection i to instance i mod 2, as a round-robin balancer would; the total connections stay the same.
// Writes its section of docs/benchmarks.md.
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { PRODUCT_CATEGORIES } from '../src/modules/products/index.js';
import scratchDatabase from '../test/global-setup.js';
import { bareEnv, type ChildServer, spawnServer } from '../test/helpers/child-server.js';
import { loadAverage, writeBenchSection } from './doc-section.js';
import { pickWords, seedMarketplace } from './seed.js';

if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
  process.stderr.write('bench:instances needs DATABASE_URL and REDIS_URL: several instances share them.\n');
  process.exit(1);
}
const duration = Number(process.env.BENCH_DURATION ?? 10);
const productCount = Number(process.env.BENCH_PRODUCTS ?? 5000);
const CONNECTIONS = 16;
const warmUp = Math.min(3, duration);

const dropDatabase = (await scratchDatabase()) as () => Promise<void>;
execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
const filesDir = mkdtempSync(join(tmpdir(), 'foodsave-bench-instances-'));
const env = bareEnv({
  DATABASE_URL: process.env.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL,
  WORKERS: 'off',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000000',
  FILES_DIR: filesDir,
});
const config = loadConfig(env);

// Ten products a store, ten stores a supplier, seeded here so that the seeding's memory is not an instance's.
const database = await createDatabase(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
await database.migrate();
const storeCount = Math.ceil(productCount / 10);
await seedMarketplace(database.db, new Date(), Math.ceil(storeCount / 10), storeCount, 10, 0);
await database.close();

const any = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
const SORTS = ['price', '-price', 'newest', 'expiry', 'popularity', 'discount'];
/**
 * A search as clients send them: seeded words (the last sometimes cut short), a category, a price
 * cap, a point around Dakar, a sort, each or not: few of a run's requests repeat a cached one.
 */
function searchPath(): string {
  const p = new URLSearchParams();
  const words = pickWords(Math.floor(Math.random() * productCount), 2);
  if (Math.random() < 0.3) words[1] = words[1]!.slice(0, Math.max(3, words[1]!.length - 2));
  if (Math.random() < 0.7) p.set('q', Math.random() < 0.5 ? words[0]! : words.join(' '));
  if (Math.random() < 0.3) p.set('category', any(PRODUCT_CATEGORIES));
  if (Math.random() < 0.3) p.set('maxPrice', String(500 + 100 * Math.floor(Math.random() * 30)));
  if (Math.random() < 0.4) {
    p.set('latitude', (14.65 + Math.random() * 0.15).toFixed(5));
    p.set('longitude', (-17.5 + Math.random() * 0.2).toFixed(5));
  }
  if (Math.random() < 0.3) p.set('sort', any(SORTS));
  p.set('limit', String(18 + Math.floor(Math.random() * 5)));
  return `/api/v1/products/search?${p}`;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}
async function load(servers: ChildServer[], seconds: number): Promise<Load> {
  const r = await autocannon({
    url: servers.map((s) => `http://127.0.0.1:${s.port}${searchPath()}`) as unknown as string,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, path: searchPath() }) }],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

/** Resident memory of a process in MB, as the kernel counts it. */
const rss = (s: ChildServer) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) / 1024;
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
/** Connections the instances hold open on the database, the job queue's apart (this client's own left out). */
async function connections(): Promise<string> {
  const { rows } = await admin.query<{ jobs: number; app: number }>(
    `SELECT count(*) FILTER (WHERE application_name = 'foodsave-jobs')::int AS jobs,
       count(*) FILTER (WHERE application_name <> 'foodsave-jobs' AND pid <> pg_backend_pid())::int AS app
     FROM pg_stat_activity WHERE datname = current_database()`,
  );
  return `${rows[0]!.app} + ${rows[0]!.jobs} of the job queue`;
}

async function start(): Promise<ChildServer> {
  const command = [
    process.execPath,
    '--enable-source-maps',
    '--max-semi-space-size=4',
    '--heap-growing-percent=100',
    'dist/src/server.js',
  ];
  const server = await spawnServer({ env, command });
  await server.waitReady();
  await new Promise((r) => setTimeout(r, 2000));
  return server;
}

const loadBefore = loadAverage();
const servers: ChildServer[] = [];
let one: Load, two: Load;
const memory: { idle: number; loaded: number[] }[] = [];
let openOne: string, openTwo: string;
try {
  const a = await start();
  servers.push(a);
  memory.push({ idle: rss(a), loaded: [] });
  await load([a], warmUp);
  one = await load([a], duration);
  memory[0]!.loaded.push(rss(a));
  openOne = await connections();
  const b = await start();
  servers.push(b);
  memory.push({ idle: rss(b), loaded: [] });
  await load([b], warmUp);
  two = await load([a, b], duration);
  memory[0]!.loaded.push(rss(a));
  memory[1]!.loaded.push(rss(b));
  openTwo = await connections();
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await admin.end();
  await dropDatabase();
  rmSync(filesDir, { recursive: true, force: true });
}
const loadAfter = loadAverage();

const ms = (x: number) => x.toFixed(0);
const row = (name: string, r: Load) => `| ${name} | ${ms(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} |`;
const rows = [
  row('one instance', one),
  row('two instances, round robin', two),
  `| two / one | ${((two.rps / one.rps) * 100).toFixed(0)} % | | ${((two.p99 / one.p99) * 100).toFixed(0)} % | |`,
];
const memoryRows = memory.map((m, i) => `| ${'AB'[i]} | ${ms(m.idle)} | ${m.loaded.map(ms).join(' / ')} |`);
for (const line of [...rows, ...memoryRows]) process.stdout.write(`${line}\n`);
process.stdout.write(`connections open: ${openOne} with one instance, ${openTwo} with two\n`);

writeBenchSection('instances-bench', [
  '## Several instances',
  '',
  'Produced by `npm run bench:instances`: the public product search (`GET /products/search`, words, category,',
  'price cap, point and sort each present or not, so few requests repeat a cached one) loaded for the same',
  `duration with the same ${CONNECTIONS} connections, first against one API instance, then against two behind a`,
  'round robin (autocannon sends connection i to instance i mod 2). Each instance is the compiled server started as',
  '`npm start` does, with `WORKERS=off`, on the same PostgreSQL and Redis; each was loaded alone for a few seconds',
  'before its measure. RSS is read from `/proc/<pid>/status` (VmRSS).',
  '',
  `- Date: ${new Date().toISOString()}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  `- Catalogue: ${productCount.toLocaleString('en')} public products in ${storeCount.toLocaleString('en')} stores; ${duration} s per measure`,
  `- Load average (\`uptime\`: 1, 5, 15 min): ${loadBefore} before, ${loadAfter} after; the instances, PostgreSQL,`,
  '  Redis and autocannon share these cores',
  '',
  '| instances | requests/s | p50 (ms) | p99 (ms) | errors |',
  '|---|---:|---:|---:|---:|',
  ...rows,
  '',
  '| instance | RSS idle after start (MB) | RSS after the load, one / two instances (MB) |',
  '|---|---:|---:|',
  ...memoryRows,
  '',
  `- Pools per instance: \`DATABASE_POOL_MAX\` = ${config.DATABASE_POOL_MAX} for requests, \`JOBS_POOL_MAX\` = ${config.JOBS_POOL_MAX} for the`,
  `  job queue (an instance with \`WORKERS=off\` still enqueues). Connections open on PostgreSQL at the end of the`,
  `  load: ${openOne} with one instance, ${openTwo} with two.`,
]);
