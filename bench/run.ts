// npm run bench: starts the server in its own process, loads it with autocannon from this one,
// and writes requests/s and p99 latency of each scenario to docs/benchmarks.md.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createInterface } from 'node:readline';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const port = process.env.BENCH_PORT ?? '3900';
const base = `http://127.0.0.1:${port}`;

// The server runs the compiled code, as `npm start` does.
execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
const server = spawn(process.execPath, ['dist/bench/server.js'], {
  env: { ...process.env, BENCH_PORT: port },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = await new Promise<Record<string, string>>((resolve, reject) => {
  server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  createInterface({ input: server.stdout! }).on('line', (line) => {
    if (line.startsWith('{"ready"')) resolve(JSON.parse(line));
  });
});

interface Row {
  name: string;
  rps: number;
  p99: number;
  errors: number;
}

async function load(name: string, opts: Partial<autocannon.Options> & { path: string }): Promise<Row> {
  const { path, ...rest } = opts;
  const r = await autocannon({ url: `${base}${path}`, duration, connections: 50, ...rest });
  const errors = r.errors + r.timeouts + r.non2xx;
  process.stdout.write(`${name.padEnd(40)} ${r.requests.average.toFixed(0).padStart(8)} req/s  p99 ${r.latency.p99} ms  errors ${errors}\n`);
  return { name, rps: r.requests.average, p99: r.latency.p99, errors };
}

const rows: Row[] = [];
let rss = { rss: 0 };
try {
  await load('warm-up', { path: `/api/v1/auth/me`, headers: { authorization: `Bearer ${info.accessToken}` }, duration: 3 });
  rows.push(await load('bare route, constant', { path: '/bench/constant' }));
  rows.push(await load('bare route, one primary-key SELECT', { path: `/bench/select/${info.userId}` }));
  rows.push(await load('GET /auth/me', { path: '/api/v1/auth/me', headers: { authorization: `Bearer ${info.accessToken}` } }));
  rows.push(
    await load('POST /auth/login', {
      path: '/api/v1/auth/login',
      method: 'POST',
      connections: 8,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phoneNumber: info.phoneNumber, password: info.password }),
    }),
  );
} finally {
  rss = (await (await fetch(`${base}/bench/rss`)).json()) as { rss: number };
  server.kill('SIGTERM');
}

const argon = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'bench/argon2.ts', String(duration), '4']).toString()) as {
  perSecond: number;
};
process.stdout.write(`${'argon2id verify alone (4 at a time)'.padEnd(40)} ${argon.perSecond.toFixed(0).padStart(8)} ops/s\n`);

const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
const select = byName['bare route, one primary-key SELECT']!.rps;
const ratios = [
  ['GET /auth/me / one-SELECT route', byName['GET /auth/me']!.rps / select, 0.7],
  ['POST /auth/login / argon2id alone', byName['POST /auth/login']!.rps / argon.perSecond, 0.8],
] as const;
const rssMb = rss.rss / 1024 / 1024;

const md = [
  '# Benchmarks',
  '',
  'Produced by `npm run bench` (autocannon against the server in a separate process on 127.0.0.1;',
  `${duration} s per scenario, 50 connections, 8 for login). Targets are ratios within one run, because the`,
  'machine is shared and absolute figures move from run to run.',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  `- Database: ${info.database}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded PGlite)'}; Redis: ${process.env.REDIS_URL ? 'yes' : 'no'}`,
  '',
  '| scenario | requests/s | p99 (ms) | errors |',
  '|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.errors} |`),
  `| argon2id verify alone, 4 at a time (same parameters) | ${argon.perSecond.toFixed(0)} | | |`,
  '',
  '| ratio | value | target |',
  '|---|---:|---:|',
  ...ratios.map(([name, value, target]) => `| ${name} | ${(value * 100).toFixed(0)} % | >= ${target * 100} % ${value >= target ? 'met' : 'NOT met'} |`),
  `| server RSS after the run | ${rssMb.toFixed(0)} MB | < 200 MB ${rssMb < 200 ? 'met' : 'NOT met'} |`,
  '',
].join('\n');
writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), md);
process.stdout.write('\nwritten to docs/benchmarks.md\n');
