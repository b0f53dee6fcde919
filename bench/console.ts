// npm run bench:console: what the console costs an operator who opens it. The API from `npm start`'s
// build, on a scratch embedded database, serves the built console; Debian's chromium opens it.
// - JavaScript sent for the sign-in page and for a usable dashboard (gzip, as the server sends it);
// - time from navigation to a usable dashboard (figures and the four charts drawn), cold cache (a new
//   browser context each run) with a session cookie, 10 runs.
// Writes its section of docs/benchmarks.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { bareEnv, spawnServer } from '../test/helpers/child-server.js';
import { loadAverage, writeBenchSection } from './doc-section.js';

const RUNS = 10;
const PHONE = '+221770009999';
const PASSWORD = 'Bench-Console-2026';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadBefore = loadAverage();

const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-'));
// What `npm start` runs: the build when stale (dist/ and the console), then the server.
for (const script of ['scripts/build.mjs', 'scripts/build-console.mjs'])
  execFileSync(process.execPath, [script, '--if-stale'], { stdio: 'inherit' });
const server = await spawnServer({
  command: [process.execPath, 'dist/src/server.js'],
  env: bareEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_RATE_LIMIT_MAX: '1000',
    SUPER_ADMIN_PHONE: PHONE,
    SUPER_ADMIN_PASSWORD: PASSWORD,
  }),
});
const base = `http://127.0.0.1:${server.port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
try {
  await server.waitReady();

  /** Gzipped bytes of every script the page loads until `ready` resolves. */
  async function visit(
    context: BrowserContext,
    ready: (page: Awaited<ReturnType<BrowserContext['newPage']>>) => Promise<unknown>,
  ) {
    const page = await context.newPage();
    const scripts: Promise<number>[] = [];
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script') scripts.push(res.body().then((b) => gzipSync(b).length));
    });
    const start = performance.now();
    await page.goto(`${base}/console/`);
    await ready(page).catch(async (err: unknown) => {
      await page.screenshot({ path: 'test-results/bench-console-failure.png' });
      throw err;
    });
    const ms = performance.now() - start;
    return { ms, bytes: (await Promise.all(scripts)).reduce((a, b) => a + b, 0), count: scripts.length };
  }

  const signIn = await browser.newContext();
  const signInPage = await visit(signIn, (page) => page.getByRole('button', { name: 'Se connecter' }).waitFor());
  await signIn.close();

  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const login = await context.request.post(`${base}/api/v1/auth/console/login`, {
      data: { phoneNumber: PHONE, password: PASSWORD },
    });
    if (!login.ok()) throw new Error(`console sign-in answered ${login.status()}`);
    runs.push(await visit(context, (page) => page.locator('svg[data-chart]').nth(3).waitFor({ timeout: 60_000 })));
    await context.close();
  }
  const loadAfter = loadAverage();
  const kb = (n: number) => (n / 1024).toFixed(0);
  const ms = runs.map((r) => r.ms);
  const rows = [
    `| sign-in page | ${kb(signInPage.bytes)} (${signInPage.count} files) | ${signInPage.ms.toFixed(0)} |`,
    `| dashboard with its four charts | ${kb(runs[0]!.bytes)} (${runs[0]!.count} files) | ${median(ms).toFixed(0)} (min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)}) |`,
  ];
  process.stdout.write(`${rows.join('\n')}\n`);
  writeBenchSection('console-bench', [
    '## The console',
    '',
    "Produced by `npm run bench:console`: `npm start` on a scratch embedded database serves the built console; Debian's",
    'chromium opens `/console/` in a new browser context each run (cold cache). JavaScript is counted gzipped, as the',
    'server sends it. "Usable" is the figures and the four charts drawn, with a session cookie already set (an operator',
    `opening the console), median of ${RUNS} runs. Targets: under 500 KB of JavaScript, under 1.5 s to a usable dashboard.`,
    '',
    `- Date: ${new Date().toISOString()}; Node ${process.version}`,
    `- Load average (\`uptime\`: 1, 5, 15 min): ${loadBefore} before, ${loadAfter} after`,
    '',
    '| page | JavaScript, gzip (KB) | navigation to usable (ms) |',
    '|---|---:|---:|',
    ...rows,
  ]);
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
