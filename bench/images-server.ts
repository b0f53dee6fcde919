// The server process of `npm run bench:images` and `npm run bench:s3`: the real app on a scratch
// database, a supplier with a published product and a client to sign in, and a route that reports
// the process's peak RSS.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createStore, createSupplier, createUser, DEFAULT_PASSWORD } from '../test/helpers/factories.js';

const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  DATA_DIR: mkdtempSync(join(tmpdir(), 'foodsave-bench-images-')),
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MAX: '100000000',
  AUTH_RATE_LIMIT_MAX: '100000000',
  HOST: '127.0.0.1',
  PORT: '0',
  IMAGE_CONCURRENCY: process.env.BENCH_IMAGE_CONCURRENCY ?? '2',
  IMAGE_QUEUE_MAX: process.env.BENCH_IMAGE_QUEUE_MAX ?? '32',
  // Only what the configuration checks: Node's real pool is whatever the environment gave it.
  UV_THREADPOOL_SIZE: process.env.BENCH_IMAGE_CONCURRENCY ? '1024' : '4',
  // Where files go (npm run bench:s3 passes a bucket's settings).
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(S3_|FILES_STORAGE$)/.test(k))),
});
const app = await buildApp({ config });
let peak = 0;
setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50).unref();
app.get('/bench/rss', async () => {
  const now = process.memoryUsage().rss;
  const seen = Math.max(peak, now);
  peak = now;
  return { peak: seen, now };
});
await app.ready();
const supplier = await createSupplier(app);
const store = await createStore(app, supplier);
const client = await createUser(app);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(
  `${JSON.stringify({ address, supplierToken: supplier.token, storeId: store.id, phoneNumber: client.phoneNumber, password: DEFAULT_PASSWORD })}\n`,
);
