// npm run bench: starts the server in its own process, loads it with autocannon from this one,
// and writes requests/s and p99 latency of each scenario to docs/benchmarks.md.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import scratchDatabase from '../test/global-setup.js';
import { pickWords } from './seed.js';
import { DASHBOARD_SCENARIOS } from './dashboard-setup.js';
import { loadAverage, writeBenchSection } from './doc-section.js';
import { MODERATION_PAGE_SIZE, PENDING_PRODUCTS } from './moderation-setup.js';

const duration = Number(process.env.BENCH_DURATION ?? 10);
// BENCH_ONLY=orders,reserve runs only the scenarios whose name contains one of the words (case
// ignored), prints them and leaves docs/benchmarks.md as it is: for trying one change.
const only = process.env.BENCH_ONLY?.split(',')
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);
const selected = (name: string) => !only || only.some((w) => name.toLowerCase().includes(w));
// Other work on the machine moves every figure: recorded beside them.
const loadAtStart = loadavg()[0]!;
const port = process.env.BENCH_PORT ?? '3900';
const base = `http://127.0.0.1:${port}`;

// On PostgreSQL the run gets a database of its own, dropped at the end (as the tests do).
const dropDatabase = await scratchDatabase();
// The server runs the compiled code with the V8 settings of `npm start`.
execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
// Without DATABASE_URL: a fresh embedded database in a temporary directory.
const dataDir = mkdtempSync(join(tmpdir(), 'foodsave-bench-'));
const env = { ...process.env, BENCH_PORT: port, BENCH_DATA_DIR: dataDir };
execFileSync(process.execPath, ['dist/bench/seed.js'], { env, stdio: 'inherit' });
// BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile of the load there when it stops (open it in Chrome's DevTools).
const server = spawn(
  process.execPath,
  ['--expose-gc', '--max-semi-space-size=4', '--heap-growing-percent=100', 'dist/bench/server.js'],
  {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const info = await new Promise<
  Record<string, string> & {
    productIds: string[];
    productId: string;
    listToken: string;
    reviewedProductIds: string[];
    dealId: string;
    inAppDealId: string;
    advertiserToken: string;
    bookingTokens: string[];
    moderationLastPage: number;
  }
>((resolve, reject) => {
  server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  createInterface({ input: server.stdout! }).on('line', (line) => {
    if (line.startsWith('{"ready"')) resolve(JSON.parse(line));
  });
});

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's CPU time (user + system) per answer, in ms. */
  cpuMs: number;
  /** Bytes per answer on the wire, headers included. */
  bytes: number;
}

/** Rounds of a write scenario, each measured right after its own run of the reference (see `paired`). */
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 3);
/** Each round's ratio of a write scenario to the reference run just before it. */
const pairedRatios: Record<string, number[]> = {};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The rounds of one scenario as one row of the table: means, the worst p99, every error. */
const merged = (name: string, runs: Row[]): Row => ({
  name,
  rps: mean(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: Math.max(...runs.map((r) => r.p99)),
  errors: runs.reduce((a, r) => a + r.errors, 0),
  cpuMs: mean(runs.map((r) => r.cpuMs)),
  bytes: mean(runs.map((r) => r.bytes)),
});

const serverCpu = async () => {
  const u = (await (await fetch(`${base}/bench/cpu`)).json()) as { user: number; system: number };
  return u.user + u.system;
};

async function load(
  name: string,
  opts: Partial<autocannon.Options> & { path: string; expect304?: boolean },
): Promise<Row> {
  const { path, expect304, ...rest } = opts;
  const cpuBefore = await serverCpu();
  const r = await autocannon({ url: `${base}${path}`, duration, connections: 50, ...rest });
  const cpuMs = (await serverCpu()) - cpuBefore;
  // A revalidation scenario expects its 304s (autocannon counts them as non-2xx).
  const errors = r.errors + r.timeouts + (expect304 ? r.non2xx - (r['3xx'] ?? 0) : r.non2xx);
  const row = {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors,
    cpuMs: cpuMs / 1000 / Math.max(1, r.requests.total),
    bytes: r.throughput.total / Math.max(1, r.requests.total),
  };
  process.stdout.write(
    `${name.padEnd(40)} ${row.rps.toFixed(0).padStart(8)} req/s  p99 ${row.p99} ms  errors ${errors}  CPU ${row.cpuMs.toFixed(2)} ms  ${row.bytes.toFixed(0)} B\n`,
  );
  return row;
}

const any = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
/** A point in the Dakar area, where a quarter of the stores are. */
const dakarPoint = () =>
  `latitude=${(14.65 + Math.random() * 0.15).toFixed(5)}&longitude=${(-17.5 + Math.random() * 0.2).toFixed(5)}`;
/**
 * One or two words of one seeded description (words a client would type to find what is there),
 * the last one sometimes cut short as while typing, 18 to 22 a page: tens of thousands of different
 * queries, so few of a run's requests repeat one already cached.
 */
const catalogWords = () => {
  const words = pickWords(Math.floor(Math.random() * 10_000) + (Math.random() < 0.5 ? 0 : 5), 5);
  const chosen = Math.random() < 0.5 ? [any(words)] : [words[0]!, any(words.slice(1))];
  const last = chosen.pop()!;
  chosen.push(Math.random() < 0.3 ? last.slice(0, Math.max(3, last.length - 2)) : last);
  return `q=${encodeURIComponent(chosen.join(' '))}&limit=${18 + Math.floor(Math.random() * 5)}`;
};
const UNCACHED = {
  storesNearby: 'GET /stores/nearby, a new point each time',
  suppliersNearby: 'GET /suppliers/nearby, a new point each time',
  storesWords: 'GET /stores?q=, new words each time',
  suppliersWords: 'GET /suppliers/search, new words each time',
  productsNearby: 'GET /products/search near a new point (100,000 products)',
  productsWords: 'GET /products/search?q=, new words each time',
  expiringNearby: 'GET /products/expiring-soon near a new point',
  trendingNearby: 'GET /products/trending near a new point',
  productPage: 'GET /products/:id, any of 500',
} as const;
const REVIEWS = {
  one: 'GET /reviews/product/:id (page of 20 of 200 reviews)',
  varied: 'GET /reviews/product/:id, any of 50, any sort or page',
} as const;
const REVIEW_SORTS = ['newest', 'highest', 'lowest', 'helpful'];
const SELECT_8 = 'bare route, one primary-key SELECT, 8 connections';
// The same reads asked with `Accept-Encoding` (autocannon sends none), and the OpenAPI document.
const BR = { 'accept-encoding': 'br' };
const GZIP = { 'accept-encoding': 'gzip' };
const COMPRESSED = {
  storesBr: 'GET /stores/nearby (10,000 stores), br',
  storesGzip: 'GET /stores/nearby (10,000 stores), gzip',
  productsNearbyBr: 'GET /products/search near a new point, br',
  productPageBr: 'GET /products/:id, any of 500, br',
  openapi: 'GET /openapi.json',
  openapiBr: 'GET /openapi.json, br',
  openapiGzip: 'GET /openapi.json, gzip',
  openapi304: 'GET /openapi.json, If-None-Match (304)',
} as const;
const varied = (path: () => string, connections: number, headers?: Record<string, string>) => ({
  path: path(),
  connections,
  headers,
  requests: [{ setupRequest: (req: object) => ({ ...req, path: path() }) }],
});

const ADS = 'GET /advertising/ads (200 active campaigns)';
const ORDERS = {
  reference: 'bare route, guarded stock UPDATE + INSERT, one transaction',
  keyed: 'POST /orders, 1 unit, a new Idempotency-Key each',
  unkeyed: 'POST /orders, 1 unit, no Idempotency-Key',
  mine: 'GET /orders/my-orders (client with 200 orders)',
  webhook: 'POST /payments/mobilemoney/webhook, a payment received each',
} as const;
const DEALS = {
  nearby: 'GET /deals near a new point (20,000 deals)',
  words: 'GET /deals?q=, new words each time',
  book: 'POST /deals/:dealId/book, 1 place, 50 clients in turn',
  bookInApp: 'POST /deals/:dealId/book paid in the app (wave), a new Idempotency-Key each',
} as const;
const TOPUP = 'POST /advertising/topups (wave), a new Idempotency-Key each';
/** A request of a client in turn (of the booking clients), with a new Idempotency-Key when `keyed`. */
const inTurn = (keyed: boolean) => {
  let next = 0;
  return [
    {
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        headers: {
          ...req.headers,
          authorization: `Bearer ${info.bookingTokens[next++ % info.bookingTokens.length]}`,
          ...(keyed && { 'idempotency-key': randomUUID() }),
        },
      }),
    },
  ];
};
const newKey = [
  {
    setupRequest: (req: autocannon.Request) => ({
      ...req,
      headers: { ...req.headers, 'idempotency-key': randomUUID() },
    }),
  },
];
// The administrators' moderation queue with 10,000 products waiting (bench/moderation-setup.ts) among the
// catalogue's 100,000: pages of 20, oldest first, and the admin list filtered on the same status, newest first.
const MODERATION = {
  first: `GET /admin/products/moderation, page 1 (${PENDING_PRODUCTS.toLocaleString('en')} pending)`,
  middle: 'GET /admin/products/moderation, middle page',
  last: 'GET /admin/products/moderation, last page',
  listFirst: 'GET /admin/products?status=PENDING_REVIEW, page 1 (moderation list)',
  listLast: 'GET /admin/products?status=PENDING_REVIEW, last page (moderation list)',
} as const;
const moderationPage = (path: string, page: number) => ({
  path: `${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=${MODERATION_PAGE_SIZE}`,
  // One administrator paging: each request's own time, nothing queued behind another.
  connections: 1,
  headers: { authorization: `Bearer ${info.adminToken}` },
});
const orderBody = JSON.stringify({ items: [{ productId: info.productId, quantity: 1 }], paymentMethod: 'wave' });
const asClient = { authorization: `Bearer ${info.accessToken}`, 'content-type': 'application/json' };

const rows: Row[] = [];
// `uptime`'s three load averages around the moderation scenarios, written beside their figures.
const moderationLoad: { before?: string; after?: string } = {};
let rss = { rss: 0 };
let settled = { rss: 0 };
try {
  const scenario = async (name: string, opts: Parameters<typeof load>[1]) => {
    if (selected(name)) rows.push(await load(name, opts));
  };
  // A write is compared with the reference run just before it, round after round, and its ratio is the
  // median of the rounds: the reference (a row lock held through a commit's flush to disk) moved between
  // 458 and 696 requests/s in runs minutes apart on the same quiet machine, the writes far less.
  const reference = { path: `/bench/reserve/${info.productId}`, method: 'POST', connections: 8 } as const;
  const paired = async (name: string, opts: Parameters<typeof load>[1]) => {
    if (!selected(name)) return;
    const runs: Row[] = [];
    for (let round = 1; round <= WRITE_ROUNDS; round++) {
      const ref = await load(`${ORDERS.reference} (round ${round})`, reference);
      runs.push(await load(name, opts));
      (pairedRatios[name] ??= []).push(runs.at(-1)!.rps / ref.rps);
    }
    rows.push(merged(name, runs));
  };
  await load('warm-up', {
    path: `/api/v1/auth/me`,
    headers: { authorization: `Bearer ${info.accessToken}` },
    duration: 3,
  });
  await scenario('bare route, constant', { path: '/bench/constant' });
  await scenario(ADS, {
    path: '/api/v1/advertising/ads?placement=HOME_BANNER&city=Dakar&latitude=14.7167&longitude=-17.4677&category=BAKERY',
  });
  await scenario('bare route, one primary-key SELECT', { path: `/bench/select/${info.userId}` });
  await scenario('GET /auth/me', { path: '/api/v1/auth/me', headers: { authorization: `Bearer ${info.accessToken}` } });
  await scenario('GET /notifications (page of 20)', {
    path: '/api/v1/notifications',
    headers: { authorization: `Bearer ${info.accessToken}` },
  });
  await scenario('GET /notifications/unread-count', {
    path: '/api/v1/notifications/unread-count',
    headers: { authorization: `Bearer ${info.accessToken}` },
  });
  await scenario('GET /stores/nearby (10,000 stores)', {
    path: '/api/v1/stores/nearby?latitude=14.7167&longitude=-17.4677&radiusKm=5',
  });
  await scenario(COMPRESSED.storesBr, {
    path: '/api/v1/stores/nearby?latitude=14.7167&longitude=-17.4677&radiusKm=5',
    headers: BR,
  });
  await scenario(COMPRESSED.storesGzip, {
    path: '/api/v1/stores/nearby?latitude=14.7167&longitude=-17.4677&radiusKm=5',
    headers: GZIP,
  });
  await scenario('GET /suppliers/search (1,000 suppliers)', {
    path: '/api/v1/suppliers/search?q=boulangerie&city=Dakar',
  });
  await scenario('POST /auth/login', {
    path: '/api/v1/auth/login',
    method: 'POST',
    connections: 8,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phoneNumber: info.phoneNumber, password: info.password }),
  });
  // The same reads when every request asks something new, so (almost) none is answered from the
  // cache. They are bound by the database: more connections than cores would only queue. Their
  // ratios are to the one-SELECT route loaded the same way (8 connections): with 50 the reference
  // gained 30-45 % on this machine (more requests per turn of the event loop) where these did not.
  await scenario(SELECT_8, { path: `/bench/select/${info.userId}`, connections: 8 });
  await scenario(
    UNCACHED.storesNearby,
    varied(() => `/api/v1/stores/nearby?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    UNCACHED.suppliersNearby,
    varied(() => `/api/v1/suppliers/nearby?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    UNCACHED.storesWords,
    varied(() => `/api/v1/stores?${catalogWords()}`, 8),
  );
  await scenario(
    UNCACHED.suppliersWords,
    varied(() => `/api/v1/suppliers/search?${catalogWords()}`, 8),
  );
  await scenario(
    UNCACHED.productsNearby,
    varied(() => `/api/v1/products/search?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    COMPRESSED.productsNearbyBr,
    varied(() => `/api/v1/products/search?${dakarPoint()}&radiusKm=5`, 8, BR),
  );
  await scenario(
    UNCACHED.productsWords,
    varied(() => `/api/v1/products/search?${catalogWords()}`, 8),
  );
  await scenario(
    UNCACHED.expiringNearby,
    varied(() => `/api/v1/products/expiring-soon?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    UNCACHED.trendingNearby,
    varied(() => `/api/v1/products/trending?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    UNCACHED.productPage,
    varied(() => `/api/v1/products/${any(info.productIds)}`, 8),
  );
  await scenario(
    COMPRESSED.productPageBr,
    varied(() => `/api/v1/products/${any(info.productIds)}`, 8, BR),
  );
  // The OpenAPI document (the largest answer): as is, compressed, and revalidated by its tag.
  await scenario(COMPRESSED.openapi, { path: '/api/v1/openapi.json', connections: 8 });
  await scenario(COMPRESSED.openapiBr, { path: '/api/v1/openapi.json', connections: 8, headers: BR });
  await scenario(COMPRESSED.openapiGzip, { path: '/api/v1/openapi.json', connections: 8, headers: GZIP });
  if (selected(COMPRESSED.openapi304)) {
    const etag = (await fetch(`${base}/api/v1/openapi.json`)).headers.get('etag')!;
    rows.push(
      await load(COMPRESSED.openapi304, {
        path: '/api/v1/openapi.json',
        connections: 8,
        headers: { 'if-none-match': etag },
        expect304: true,
      }),
    );
  }
  // The reviews of a product: one page of a product with 200 reviews, then any product, sort and page.
  await scenario(REVIEWS.one, { path: `/api/v1/reviews/product/${info.reviewedProductIds[0]}` });
  await scenario(
    REVIEWS.varied,
    varied(
      () =>
        `/api/v1/reviews/product/${any(info.reviewedProductIds)}?sort=${any(REVIEW_SORTS)}&page=${1 + Math.floor(Math.random() * 5)}`,
      8,
    ),
  );
  // Writes on one product (a popular basket): every transaction waits for the row lock of the one
  // before, so both are measured with the connections the database-bound reads get.
  await scenario(ORDERS.reference, reference);
  await paired(ORDERS.keyed, {
    path: '/api/v1/orders',
    method: 'POST',
    connections: 8,
    headers: asClient,
    body: orderBody,
    requests: newKey,
  });
  await paired(ORDERS.unkeyed, {
    path: '/api/v1/orders',
    method: 'POST',
    connections: 8,
    headers: asClient,
    body: orderBody,
  });
  // Each delivery pays one of the orders the two scenarios above made: as many requests as there
  // are waiting payments, every one a first delivery (none answered as a duplicate).
  if (selected(ORDERS.webhook)) {
    const deliveries = (await (await fetch(`${base}/bench/webhook-deliveries`)).json()) as {
      body: string;
      signature: string;
    }[];
    if (!deliveries.length)
      throw new Error('no waiting payment to settle: run the POST /orders scenarios before the webhook one');
    let next = 0;
    rows.push(
      await load(ORDERS.webhook, {
        path: '/api/v1/payments/mobilemoney/webhook',
        method: 'POST',
        connections: 8,
        amount: deliveries.length,
        requests: [
          {
            setupRequest: (req) => {
              const d = deliveries[next++ % deliveries.length]!;
              return {
                ...req,
                body: d.body,
                headers: { ...req.headers, 'content-type': 'application/json', 'wave-signature': d.signature },
              };
            },
          },
        ],
      }),
    );
  }
  // Deals: the public list near a new point each request, then bookings of one deal (its row lock
  // orders them, as the stock row orders orders), by clients in turn.
  await scenario(
    DEALS.nearby,
    varied(() => `/api/v1/deals?${dakarPoint()}&radiusKm=5`, 8),
  );
  await scenario(
    DEALS.words,
    varied(() => `/api/v1/deals?${catalogWords()}`, 8),
  );
  await scenario(DEALS.book, {
    path: `/api/v1/deals/${info.dealId}/book`,
    method: 'POST',
    connections: 8,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ quantity: 1 }),
    requests: inTurn(false),
  });
  // Paid in the app: the booking, its payment attempt and the provider's session, as POST /orders does.
  await paired(DEALS.bookInApp, {
    path: `/api/v1/deals/${info.inAppDealId}/book`,
    method: 'POST',
    connections: 8,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ quantity: 1, paymentMethod: 'wave' }),
    requests: inTurn(true),
  });
  // An advertiser's top-up: the top-up, its payment attempt and the provider's session.
  await paired(TOPUP, {
    path: '/api/v1/advertising/topups',
    method: 'POST',
    connections: 8,
    headers: { authorization: `Bearer ${info.advertiserToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 5000, paymentMethod: 'wave' }),
    requests: newKey,
  });
  await scenario(ORDERS.mine, {
    path: '/api/v1/orders/my-orders',
    headers: { authorization: `Bearer ${info.listToken}` },
  });
  // Administrators' dashboard over 1,000,000 seeded orders (bench/dashboard-setup.ts): as served (from
  // its 30 s cache, through the whole route), and computed on every request, one at a time.
  await scenario(DASHBOARD_SCENARIOS.cached, {
    path: '/api/v1/admin/dashboard/stats',
    headers: { authorization: `Bearer ${info.adminToken}` },
  });
  await scenario(DASHBOARD_SCENARIOS.computed, { path: '/bench/dashboard-computed', connections: 1 });
  const lastPage = info.moderationLastPage;
  if (Object.values(MODERATION).some(selected)) moderationLoad.before = loadAverage();
  await scenario(MODERATION.first, moderationPage('/api/v1/admin/products/moderation', 1));
  await scenario(MODERATION.middle, moderationPage('/api/v1/admin/products/moderation', Math.ceil(lastPage / 2)));
  await scenario(MODERATION.last, moderationPage('/api/v1/admin/products/moderation', lastPage));
  await scenario(MODERATION.listFirst, moderationPage('/api/v1/admin/products?status=PENDING_REVIEW', 1));
  await scenario(MODERATION.listLast, moderationPage('/api/v1/admin/products?status=PENDING_REVIEW', lastPage));
  if (moderationLoad.before) moderationLoad.after = loadAverage();
} finally {
  // Resident memory right after the load (after a full collection, so garbage not yet collected
  // does not count), and again once the process has been idle for 15 s.
  if (!only) {
    rss = (await (await fetch(`${base}/bench/rss`)).json()) as { rss: number };
    await new Promise((r) => setTimeout(r, 15_000));
    settled = (await (await fetch(`${base}/bench/rss`)).json()) as { rss: number };
  }
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
}
// The moderation queue's figures are times per page against an absolute target, not ratios: their section is
// written by any run that measured them (BENCH_ONLY=moderation too) and kept by a full run that did not.
const moderationRows = Object.values(MODERATION).flatMap((name) => rows.filter((r) => r.name === name));
// One section per database: each run replaces the one of the database it measured.
if (moderationRows.length) writeBenchSection(`moderation-bench-${info.database}`, moderationSection(moderationRows));
if (only) {
  for (const [name, xs] of Object.entries(pairedRatios))
    process.stdout.write(
      `${name} / reference: ${xs.map((x) => `${(x * 100).toFixed(0)} %`).join(', ')} (median ${(median(xs) * 100).toFixed(0)} %)\n`,
    );
  process.stdout.write('\nselected scenarios only (BENCH_ONLY): the rest of docs/benchmarks.md left as it is\n');
  process.exit(0);
}

const argon = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/argon2.ts', String(duration), '4']).toString(),
) as {
  perSecond: number;
};
process.stdout.write(
  `${'argon2id verify alone (4 at a time)'.padEnd(40)} ${argon.perSecond.toFixed(0).padStart(8)} ops/s\n`,
);

const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
const select = byName['bare route, one primary-key SELECT']!.rps;
const select8 = byName[SELECT_8]!.rps;
const ratios = [
  ['GET /auth/me / one-SELECT route', byName['GET /auth/me']!.rps / select, 0.7],
  ['POST /auth/login / argon2id alone', byName['POST /auth/login']!.rps / argon.perSecond, 0.8],
  ['GET /notifications / one-SELECT route', byName['GET /notifications (page of 20)']!.rps / select, 0.6],
  ['GET /notifications/unread-count / one-SELECT route', byName['GET /notifications/unread-count']!.rps / select, 0.6],
  ['GET /stores/nearby / one-SELECT route', byName['GET /stores/nearby (10,000 stores)']!.rps / select, 0.5],
  ['GET /suppliers/search / one-SELECT route', byName['GET /suppliers/search (1,000 suppliers)']!.rps / select, 0.5],
  ['GET /advertising/ads / bare constant route', byName[ADS]!.rps / byName['bare route, constant']!.rps, 0.7],
] as const;
// What a request the cache cannot answer costs (DESIGN section 8).
const uncached = [
  [
    'GET /stores/nearby, new point / one-SELECT route (8 connections)',
    byName[UNCACHED.storesNearby]!.rps / select8,
    0.25,
  ],
  [
    'GET /suppliers/nearby, new point / one-SELECT route (8 connections)',
    byName[UNCACHED.suppliersNearby]!.rps / select8,
    0.25,
  ],
  ['GET /stores?q=, new words / one-SELECT route (8 connections)', byName[UNCACHED.storesWords]!.rps / select8, 0.15],
  [
    'GET /suppliers/search, new words / one-SELECT route (8 connections)',
    byName[UNCACHED.suppliersWords]!.rps / select8,
    0.15,
  ],
  [
    'GET /products/search near a new point / one-SELECT route (8 connections)',
    byName[UNCACHED.productsNearby]!.rps / select8,
    0.25,
  ],
  [
    'GET /products/search?q=, new words / one-SELECT route (8 connections)',
    byName[UNCACHED.productsWords]!.rps / select8,
    0.15,
  ],
  [
    'GET /products/expiring-soon near a new point / one-SELECT route (8 connections)',
    byName[UNCACHED.expiringNearby]!.rps / select8,
    0.5,
  ],
  [
    'GET /products/trending near a new point / one-SELECT route (8 connections)',
    byName[UNCACHED.trendingNearby]!.rps / select8,
    0.5,
  ],
  ['GET /products/:id / one-SELECT route (8 connections)', byName[UNCACHED.productPage]!.rps / select8, 0.6],
  ['GET /reviews/product/:id / one-SELECT route', byName[REVIEWS.one]!.rps / select, 0.6],
  [
    'GET /reviews/product/:id, any product, sort and page / one-SELECT route (8 connections)',
    byName[REVIEWS.varied]!.rps / select8,
    0.6,
  ],
  ['GET /deals near a new point / one-SELECT route (8 connections)', byName[DEALS.nearby]!.rps / select8, 0.25],
  ['GET /deals?q=, new words / one-SELECT route (8 connections)', byName[DEALS.words]!.rps / select8, 0.15],
] as const;
// Writes against the least a reservation costs (the bare guarded UPDATE + INSERT route), each the median
// of its rounds against the reference run just before them (`paired`).
const reserve = byName[ORDERS.reference]!.rps;
const pairedRatio = (name: string) => median(pairedRatios[name]!);
const writes = [
  ['POST /orders, new Idempotency-Key / guarded UPDATE + INSERT route', pairedRatio(ORDERS.keyed), 0.4],
  ['POST /orders, no Idempotency-Key / guarded UPDATE + INSERT route', pairedRatio(ORDERS.unkeyed), 0.4],
  [
    'POST /deals/:dealId/book paid in the app, new Idempotency-Key / guarded UPDATE + INSERT route',
    pairedRatio(DEALS.bookInApp),
    0.4,
  ],
  ['POST /advertising/topups, new Idempotency-Key / guarded UPDATE + INSERT route', pairedRatio(TOPUP), 0.4],
] as const;
// What compression costs: the compressed twin of a scenario against it, and against the reference.
const plainStores = byName['GET /stores/nearby (10,000 stores)']!.rps;
const compression: (readonly [string, number, number | null])[] = [
  ['GET /stores/nearby, br / the same without Accept-Encoding', byName[COMPRESSED.storesBr]!.rps / plainStores, null],
  [
    'GET /stores/nearby, gzip / the same without Accept-Encoding',
    byName[COMPRESSED.storesGzip]!.rps / plainStores,
    null,
  ],
  ['GET /stores/nearby, br / one-SELECT route', byName[COMPRESSED.storesBr]!.rps / select, 0.5],
  [
    'GET /products/search near a new point, br / one-SELECT route (8 connections)',
    byName[COMPRESSED.productsNearbyBr]!.rps / select8,
    0.25,
  ],
  ['GET /products/:id, br / one-SELECT route (8 connections)', byName[COMPRESSED.productPageBr]!.rps / select8, 0.6],
  [
    'GET /openapi.json, br / the same without Accept-Encoding',
    byName[COMPRESSED.openapiBr]!.rps / byName[COMPRESSED.openapi]!.rps,
    null,
  ],
];
const rssMb = rss.rss / 1024 / 1024;
const settledMb = settled.rss / 1024 / 1024;
process.stdout.write(`server RSS: ${rssMb.toFixed(0)} MB after the run, ${settledMb.toFixed(0)} MB 15 s later\n`);

const md = [
  '# Benchmarks',
  '',
  'Produced by `npm run bench` (autocannon against the server in a separate process on 127.0.0.1;',
  `${duration} s per scenario, 50 connections, 8 for login). Targets are ratios within one run, because the`,
  'machine is shared and absolute figures move from run to run. The writes compared with the guarded UPDATE +',
  `INSERT route run in ${WRITE_ROUNDS} rounds, each right after its own run of that route: their ratio is the median of`,
  'the rounds, their row the mean (the worst p99).',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  `- Load average (1 min) at the start: ${loadAtStart.toFixed(1)} on ${cpus().length} cores${loadAtStart > cpus().length ? ' (a busy machine: ratios are unreliable, run again when it is quiet)' : ''}`,
  `- Database: ${info.database}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded PGlite)'}; Redis: ${process.env.REDIS_URL ? 'yes' : 'no'}`,
  '',
  '| scenario | requests/s | p99 (ms) | errors | server CPU per answer (ms) | bytes per answer |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows
    .filter((r) => !moderationRows.includes(r))
    .map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.errors} | ${r.cpuMs.toFixed(2)} | ${r.bytes.toFixed(0)} |`,
    ),
  `| argon2id verify alone, 4 at a time (same parameters) | ${argon.perSecond.toFixed(0)} | | | | |`,
  '',
  '| ratio | value | target |',
  '|---|---:|---:|',
  ...ratios.map(
    ([name, value, target]) =>
      `| ${name} | ${(value * 100).toFixed(0)} % | >= ${target * 100} % ${value >= target ? 'met' : 'NOT met'} |`,
  ),
  ...uncached.map(
    ([name, value, target]) =>
      `| ${name} | ${(value * 100).toFixed(0)} % | >= ${target * 100} % ${value >= target ? 'met' : 'NOT met'} |`,
  ),
  ...writes.map(
    ([name, value, target]) =>
      `| ${name} | ${(value * 100).toFixed(0)} % | >= ${target * 100} % ${value >= target ? 'met' : 'NOT met'} |`,
  ),
  ...compression.map(
    ([name, value, target]) =>
      `| ${name} | ${(value * 100).toFixed(0)} % | ${target ? `>= ${target * 100} % ${value >= target ? 'met' : 'NOT met'}` : ''} |`,
  ),
  `| POST /deals/:dealId/book / guarded UPDATE + INSERT route | ${((byName[DEALS.book]!.rps / reserve) * 100).toFixed(0)} % | |`,
  `| GET /orders/my-orders / one-SELECT route | ${((byName[ORDERS.mine]!.rps / select) * 100).toFixed(0)} % | |`,
  `| server RSS after the run | ${rssMb.toFixed(0)} MB | < 200 MB ${rssMb < 200 ? 'met' : 'NOT met'} |`,
  `| server RSS after 15 s idle | ${settledMb.toFixed(0)} MB | |`,
  '',
  '## How these figures are reached',
  '',
  "- The one-SELECT reference is a prepared statement, as the application's hot reads are: the database's limit",
  '  for one read through the same pool and the same hooks (rate limit, headers, metrics).',
  '- Authenticated requests make one database round trip: a prepared join of session and user, whose row the',
  "  handler reuses; the service's own HS256 tokens are checked with `node:crypto`. What `GET /auth/me` does",
  '  beyond the reference is the token check, a wider row (the whole account) and a larger answer; against an',
  '  unprepared reference the same route measured 97-141 %, against the prepared one 64-67 % over three runs.',
  '- Sign-in makes two statements: a prepared lookup by phone, then one statement that opens the session and',
  '  stamps the last sign-in. Password hashing (argon2id, 19 MiB, 2 passes) is the rest of its cost; the server,',
  '  PostgreSQL and the load generator share the same two cores, so the ratio moves by a few points between runs.',
  '- The notification list reads its page and the total in one prepared statement (`count(*) over ()` beside',
  '  the rows, from the `(user_id, created_at desc, id desc)` index); the unread count is one prepared count',
  '  over a partial index of unread rows. Each is one round trip after the session lookup, as `GET /auth/me` is.',
  '  The bench user has 200 notifications, a third unread.',
  '- Lists follow DESIGN section 8 (docs/listings.md): nearby pages come from the GiST index in its own distance',
  "  order (the point's cube computed in the application, no `ll_to_earth` per query, the radius and tie break",
  '  applied to the rows read); word searches rank only the first 200 matches of the GIN index; totals are capped',
  '  or estimated, never a count of every match. The common nearby and word pages are prepared statements. The',
  '  same seeded data (1,000 suppliers, 10,000 stores, a quarter of them around Dakar, 100,000 products) is used',
  '  on both databases; cached answers are dropped on every write that can change them.',
  '- Product lists (docs/product-search.md) read a stored `listed` flag (kept by triggers) instead of looking up',
  '  the store and the supplier of each row, through one partial index per order (`WHERE listed`); the page is',
  '  picked from `products` alone and the store name and picture are looked up for its rows only. Expiring soon',
  "  and trending near a point read their order's index and apply the radius to at most 2,000 rows. Near",
  "  spellings run with bitmap scans only. The cache's 16 MB budget counts heap (3 bytes per byte of JSON).",
  '- The rows a list passes over are read from its index alone (docs/listings.md, "Uncached speed"): the newest,',
  "  expiry and popularity indexes carry the columns those queries test, and the card's fields are read for the",
  "  page's rows only; words alone are matched among the newest 20,000 public products first.",
  '- PostgreSQL writes the JSON of the hottest pages (docs/decisions.md): product cards, nearby stores and',
  "  suppliers and the product page's parts come as one JSON text per row, which the server sends without parsing",
  '  or serializing it again (a cached page too, as it is stored).',
  '- The "new ... each time" rows and `GET /products/:id` run with 8 connections; their ratios are to the',
  '  one-SELECT route run with 8 connections too (both rows are in the table). On a busy machine the 50-connection',
  '  reference gained 30-45 % over the 8-connection one; with no other load the two are within a few percent.',
  '- The load matters more than the connections: the server, PostgreSQL and the load generator share two cores,',
  '  and other work on them slows the one-SELECT reference far more than the database-bound routes (runs at load',
  '  average 20-25 gave most list ratios twice what a quiet machine gives). Only runs started with a load average',
  '  under 2 are comparable. On a quiet machine a list request costs the server about 0.5-0.8 ms of CPU and',
  '  PostgreSQL 0.3-0.6 ms (words: 2 ms), the reference 0.3 ms and 0.05 ms (`/proc/<pid>/stat` before and after).',
  '- Prepared list pages keep their plan (docs/listings.md, `preparedPage`): PostgreSQL planned each again on',
  '  every request, about as long as running it. The product page is one prepared statement, the reviews joined in.',
  '- The trending job writes only products whose activity changed (the stored popularity no longer decays in',
  '  the column): it used to rewrite every product with activity in the week every 10 minutes, which left the',
  '  index-only reads of the lists fetching rows from the table until the next vacuum (the words search took',
  '  twice the database time on such a table).',
  "- The seed ends as a database in service is: popularity computed by the trending job's own function from a",
  "  week of seeded activity (hand-written scores without activity were all zeroed by the job's first run, 100,000",
  '  row updates that could fall inside a measurement), then `VACUUM ANALYZE`, which autovacuum would do after the',
  '  bulk load (the test server runs with autovacuum off: the GIN pending lists, which every word search reads in',
  '  full, and 100,000 dead rows stayed for the whole run).',
  '- The "new ... each time" rows ask a different point or words on every request, so (almost) none is answered',
  '  from the cache: words are one or two words of one seeded description, the last sometimes cut short, with',
  '  18 to 22 items a page. The machine is shared with other work, which moves absolute figures a lot.',
  '- Orders (PostgreSQL figures; 8 connections): every request orders 1 unit of the same product, seeded with',
  '  10,000,000 units, as the client of an account signed in once. The reference route takes one unit with the same',
  '  guarded `UPDATE` and inserts one row in one transaction (4 statements, 1 commit). `POST /orders` is 9 statements',
  '  and 1 commit with the default sandbox provider (docs/orders.md): the session lookup, then in one transaction the',
  '  products with their store and supplier, the order with its line, history and plan discount, the sandbox session,',
  '  the payment attempt, the payment deadline job and the stock (taken last, so the product row stays locked for one',
  '  statement and the commit), all prepared; a key adds one insert in the transaction, the key with its answer',
  '  (10 statements, 1 commit). The figure includes all of it. While the answer was stored by a second commit after',
  '  the response was built, the keyed figure moved between 35 and 42 % from run to run.',
  '- `GET /reviews/product/:id`: 50 products with 200 reviews each (a tenth with a picture, a quarter answered). One',
  '  statement reads the rating summary (which gives the total) and the page from the partial index of its order,',
  '  with the pictures of its rows. Not cached.',
  '- Deals (docs/deals.md): 20,000 public deals, two a store; the list near a new point reads the GiST index of',
  '  listed deals in its order (a prepared statement), as the product list does. A booking (8 connections, 50',
  '  clients in turn, one deal of ten million places) checks the deal and the store, writes the booking (its code',
  "  and commission in the insert), takes the place with a guarded `UPDATE` and counts the client's places behind",
  '  that lock, all prepared; at the counter with its no-show job and two notifications (and their push jobs), paid',
  '  in the app with its payment attempt (the sandbox session) and its deadline job instead. A top-up writes the',
  '  top-up and its payment attempt; neither takes a lock another request waits for. A key is kept by the',
  "  booking's own unique index, and the answer is stored with the key in the transaction, as for an order.",
  '- The reference slows down as a run goes on: its product row (wide, with fifteen indexes, updated by the',
  '  reference and by every order) leaves a dead version at each update, and from 565 requests/s at the start',
  '  it was down to 370 by the booking scenario of the same run. Each write is therefore measured in rounds right',
  '  after a run of the reference; the rows of those reference runs are printed, not tabled.',
  '- `GET /orders/my-orders`: a page of 20 of a client with 200 orders (and their items, payments and stores).',
  '- The webhook scenario sends, after the order scenarios, one signed `checkout.session.completed` per waiting',
  '  payment they made (each a distinct event, so none is a duplicate): the event stored once, the payment',
  '  SUCCEEDED, the escrow HELD with its ledger posting, the order PAID and the supplier notified. No target.',
  '- `GET /advertising/ads` (docs/advertising.md) answers from the ACTIVE campaigns kept in memory (200 seeded,',
  '  over three placements, half targeting cities, some a point or a category): no database round per request;',
  '  impressions are added in memory and written every 10 s; each ad signs its click token (HMAC-SHA256).',
  '- Compression (docs/decisions.md, "HTTP caching and compression"): autocannon sends no `Accept-Encoding`, so',
  '  the rows ending in "br" or "gzip" ask for that one alone, right after their twin without it.',
  '  Answers above 1 KB are compressed (brotli quality 4, gzip level 6). "server CPU per answer" is the server',
  '  process\'s user + system time over the scenario divided by its answers; "bytes per answer" is what went over',
  '  the socket, headers included. The OpenAPI document is serialized once and tagged by its hash; a client that',
  '  sends the tag back gets a 304 without a body.',
  '- The server runs compiled JavaScript with a 4 MB young generation and an old generation of at most twice',
  '  its live heap (`--heap-growing-percent=100`, as `npm start` does); resident memory',
  '  is read after a full garbage collection, right after the load and again after 15 s idle.',
  '',
].join('\n');
// The start-up and compression sections, and every section of bench/doc-section.ts's writer (job queue,
// pictures, console, moderation queue), are written by their own runs: all kept.
const docFile = new URL('../docs/benchmarks.md', import.meta.url);
const previous = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '';
const kept = [
  ...[/<!-- compression -->[\s\S]*<!-- \/compression -->/, /<!-- startup -->[\s\S]*<!-- \/startup -->/].map(
    (re) => re.exec(previous)?.[0],
  ),
  ...[...previous.matchAll(/<!-- ([\w-]+):begin -->[\s\S]*?<!-- \1:end -->/g)].map((m) => m[0]),
].filter((s): s is string => s !== undefined);
writeFileSync(docFile, [md, ...kept].join('\n') + (kept.length ? '\n' : ''));
process.stdout.write('\nwritten to docs/benchmarks.md\n');

function moderationSection(found: Row[]): string[] {
  const quiet = Number(moderationLoad.before?.split(',')[0]) < 2;
  return [
    `## Moderation queue (${info.database === 'postgres' ? 'PostgreSQL' : 'embedded PGlite'})`,
    '',
    `Produced by \`npm run bench\` or \`BENCH_ONLY=moderation npm run bench\` (this section alone): ${PENDING_PRODUCTS.toLocaleString('en')} products`,
    'waiting for review among the 100,000 of the catalogue (bench/moderation-setup.ts), pages of 20 asked by one',
    `administrator at a time (1 connection, ${duration} s a page), through the whole route (session, page, pictures, sales`,
    'figures). The queue is oldest first; the admin list filtered on the same status newest first. Target: every page',
    'under 300 ms.',
    '',
    `- Date: ${new Date().toISOString()}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
    `- Database: ${info.database}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded PGlite)'}`,
    `- Load average (\`uptime\`: 1, 5, 15 min): ${moderationLoad.before} before, ${moderationLoad.after} after${quiet ? '' : ' (a busy machine: times are longer than on a quiet one)'}`,
    '',
    '| page | requests/s | p50 (ms) | p99 (ms) | errors | target |',
    '|---|---:|---:|---:|---:|---:|',
    ...found.map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | p99 < 300 ms ${r.p99 < 300 && r.errors === 0 ? 'met' : 'NOT met'} |`,
    ),
  ];
}
