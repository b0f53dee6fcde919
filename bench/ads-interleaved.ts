// node --import tsx bench/ads-interleaved.ts: GET /advertising/ads against the bare constant route,
// in alternating rounds on one server (the order swapped each round), so that other work on a shared
// machine weighs on both alike; prints each round's ratio and their median. The server is this file
// started again with ADS_BENCH_SERVER=1, on a scratch database (PostgreSQL with DATABASE_URL).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { hashPassword } from '../src/shared/passwords.js';
import scratchDatabase from '../test/global-setup.js';
import { prepareAds } from './ads-setup.js';

const port = process.env.BENCH_PORT ?? '3901';
const ADS_PATH =
  '/api/v1/advertising/ads?placement=HOME_BANNER&city=Dakar&latitude=14.7167&longitude=-17.4677&category=BAKERY';

if (process.env.ADS_BENCH_SERVER) {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: process.env.BENCH_DATA_DIR,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '100000000',
    PORT: port,
    SMS_PROVIDER: 'log',
    EMAIL_PROVIDER: 'log',
  });
  const app = await buildApp({ config });
  app.get('/bench/constant', async () => ({ success: true, data: { ok: true } }));
  // CPU time the server spent, which other work on the machine does not inflate as it does wall time.
  app.get('/bench/cpu', async () => process.cpuUsage());
  const user = await app.services.users.create(app.ctx.db, {
    phoneNumber: `+4917${String(Date.now()).slice(-9)}`,
    passwordHash: await hashPassword('Bench-Password-1'),
    role: 'ADVERTISER',
    firstName: 'Bench',
    lastName: 'Ads',
    verified: true,
  });
  await prepareAds(app, user.id);
  await app.listen({ host: '127.0.0.1', port: Number(port) });
  process.stdout.write(`${JSON.stringify({ ready: true, database: app.database.kind })}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const dropDatabase = await scratchDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'foodsave-ads-bench-'));
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', '--max-semi-space-size=4', '--heap-growing-percent=100', fileURLToPath(import.meta.url)],
    {
      env: { ...process.env, ADS_BENCH_SERVER: '1', BENCH_PORT: port, BENCH_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const info = await new Promise<{ database: string }>((resolve, reject) => {
      server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
      createInterface({ input: server.stdout! }).on(
        'line',
        (line) => line.startsWith('{"ready"') && resolve(JSON.parse(line)),
      );
    });
    const cpu = async () => {
      const u = (await (await fetch(`http://127.0.0.1:${port}/bench/cpu`)).json()) as { user: number; system: number };
      return u.user + u.system;
    };
    /** Requests per second, and the server's CPU microseconds per request. */
    const run = async (path: string) => {
      const before = await cpu();
      const r = await autocannon({ url: `http://127.0.0.1:${port}${path}`, duration, connections: 50 });
      return { rps: r.requests.average, cpuUs: ((await cpu()) - before) / r.requests.total };
    };
    await run(ADS_PATH); // warm-up
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const [first, second] = i % 2 ? [ADS_PATH, '/bench/constant'] : ['/bench/constant', ADS_PATH];
      const a = await run(first);
      const b = await run(second);
      const [constant, ads] = i % 2 ? [b, a] : [a, b];
      ratios.push(ads.rps / constant.rps);
      cpuRatios.push(constant.cpuUs / ads.cpuUs);
      process.stdout.write(
        `round ${i + 1}: constant ${constant.rps.toFixed(0)} req/s ${constant.cpuUs.toFixed(0)} us CPU/req, ads ${ads.rps.toFixed(0)} req/s ${ads.cpuUs.toFixed(0)} us CPU/req; throughput ratio ${((100 * ads.rps) / constant.rps).toFixed(0)} %, CPU ratio ${((100 * constant.cpuUs) / ads.cpuUs).toFixed(0)} %\n`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    process.stdout.write(
      `median over ${rounds} rounds of ${duration} s (${info.database}): throughput ratio ${(100 * median(ratios)).toFixed(0)} %, CPU per request ratio (constant / ads) ${(100 * median(cpuRatios)).toFixed(0)} %\n`,
    );
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
