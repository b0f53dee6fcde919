// npm run bench:s3: the upload of a 3 MB photo (re-encoded, then stored in two sizes) to a bucket of
// s3rver on 127.0.0.1, and to the local disk for comparison: time and the server's peak RSS, one
// upload at a time and 20 at once. Writes its section of docs/benchmarks.md.
import { cpus } from 'node:os';
import sharp from 'sharp';
import { S3Server } from '../test/helpers/s3.js';
import { loadAverage, writeBenchSection } from './doc-section.js';
import { type ImagesServer, newProduct, startImagesServer } from './images-client.js';

import scratchDatabase from '../test/global-setup.js';

const ALONE = 5;
const AT_ONCE = 20;
const dropDatabase = process.env.DATABASE_URL ? await scratchDatabase() : undefined;

// An 8-megapixel phone photo's size and about its weight; noise keeps JPEG from shrinking it.
const photo = await sharp({
  create: {
    width: 3264,
    height: 2448,
    channels: 3,
    background: '#808080',
    noise: { type: 'gaussian', mean: 128, sigma: 40 },
  },
})
  .blur(0.6)
  .jpeg({ quality: 86 })
  .toBuffer();

const rss = async (s: ImagesServer) =>
  (await (await fetch(`${s.base.replace('/api/v1', '')}/bench/rss`)).json()) as { now: number; peak: number };

async function upload(s: ImagesServer, productId: string): Promise<number> {
  const form = new FormData();
  form.append('images', new Blob([new Uint8Array(photo)]), 'photo.jpg');
  const start = performance.now();
  const res = await fetch(`${s.base}/products/${productId}/images`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.supplierToken}` },
    body: form,
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${body}`);
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

interface Target {
  store: string;
  server: ImagesServer;
  products: string[];
  alone: number[];
}

async function target(store: string, env: Record<string, string>): Promise<Target> {
  const server = await startImagesServer(env);
  // A product takes at most 5 pictures.
  const products: string[] = [];
  for (let i = 0; i < (ALONE + AT_ONCE) / 5 + 1; i++) products.push(await newProduct(server, i));
  await upload(server, products.pop()!); // warm: sharp and the store's client load on first use
  return { store, server, products, alone: [] };
}

const s3 = new S3Server();
await s3.start();
const loadBefore = loadAverage();
const targets = [await target('local disk', {}), await target('s3rver', s3.env())];
const idle = await Promise.all(targets.map((t) => rss(t.server)));
// One upload at a time, taking turns, so that both stores see the same moments of a shared machine.
for (let i = 0; i < ALONE; i++) for (const t of targets) t.alone.push(await upload(t.server, t.products[0]!));
const afterAlone = await Promise.all(targets.map((t) => rss(t.server)));
const rows: string[] = [];
for (const [n, t] of targets.entries()) {
  const sum = t.alone.reduce((a, b) => a + b, 0) / 1000;
  rows.push(
    `| ${t.store} | 1 at a time (${ALONE} uploads) | ${median(t.alone).toFixed(0)} | ${Math.max(...t.alone).toFixed(0)} | ${sum.toFixed(1)} | ${mb(idle[n]!.now)} -> ${mb(afterAlone[n]!.peak)} |`,
  );
}
// The bursts one after the other: each has the machine to itself.
for (const [n, t] of targets.entries()) {
  const start = performance.now();
  const times = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) => upload(t.server, t.products[1 + Math.floor(i / 5)]!)),
  );
  const seconds = (performance.now() - start) / 1000;
  const peak = (await rss(t.server)).peak;
  rows.push(
    `| ${t.store} | ${AT_ONCE} at once | ${median(times).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${seconds.toFixed(1)} | ${mb(afterAlone[n]!.now)} -> ${mb(peak)} |`,
  );
}
for (const t of targets) await t.server.stop();
const loadAfter = loadAverage();
await s3.close();
if (typeof dropDatabase === 'function') await dropDatabase();
for (const r of rows) process.stdout.write(`${r}\n`);

writeBenchSection('s3-uploads-bench', [
  '## Uploads to a bucket',
  '',
  `Produced by \`npm run bench:s3\`: two server processes on a scratch database, one keeping its files on the local`,
  'disk, the other in a bucket of s3rver 3.7.1 on 127.0.0.1 (path style, checksums when required);',
  `\`POST /products/:id/images\` with a ${(photo.length / 1e6).toFixed(1)} MB JPEG (3264x2448, an 8-megapixel photo),`,
  'decoded and re-encoded without its metadata, resized to 320 and 1280 px, both sizes stored. Single uploads take',
  'turns between the two servers, so both see the same moments of a shared machine; each burst of 20 runs alone.',
  "Time runs from the request sent to the answer read; RSS is the server's resident memory before and its peak",
  'during (sampled every 50 ms). Pictures are decoded two at a time (`IMAGE_CONCURRENCY`), so of 20 sent at once 18',
  'wait in the queue: the burst measures throughput and the memory of 20 uploads held together.',
  '',
  '- Reading: the store is not what an upload waits for. The two puts of a picture take tens of milliseconds to a',
  '  bucket on the same machine (a few on the disk), beside 0.4-0.5 s of CPU to decode, re-encode and resize an',
  '  8-megapixel photo on a quiet machine: the bucket adds about a tenth (1.10 alone and in a burst, load 1.0 at the',
  '  start). The peak memory of a burst is the 20 bodies and their re-encoded copies held while they wait, plus',
  "  libvips' buffers, whatever the store. Measured on PostgreSQL: on PGlite the database lives in the server",
  '  process and its RSS (about 700-900 MB here) hides what the uploads add.',
  '',
  `- Date: ${new Date().toISOString()}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`,
  `- Load average (\`uptime\`: 1, 5, 15 min): ${loadBefore} before, ${loadAfter} after`,
  '',
  '| store | uploads | median (ms) | slowest (ms) | total (s) | RSS before -> peak (MB) |',
  '|---|---|---:|---:|---:|---:|',
  ...rows,
]);
