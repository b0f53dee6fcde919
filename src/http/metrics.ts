import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/client.js';
import type { CacheRegistry } from '../shared/cache-registry.js';
import { unauthenticated } from '../shared/errors.js';
import type { ListingCache } from '../listings/index.js';

// CPU, memory, GC and event loop figures belong to the process, not to an app: collected once per
// process. prom-client never releases its GC observer and event loop monitor, so collected per app they
// kept every closed app (its database included) alive in a process that builds several, as tests do.
let processMetrics: Registry | undefined;
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** Prometheus metrics: process defaults plus request counts and latencies by route template. */
export function installMetrics(app: FastifyInstance, prefix: string, token: string | undefined): Registry {
  const registry = new Registry();
  const defaults = processRegistry();
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Request duration by method, route and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'http_server_errors_total',
    help: 'Responses with status 500 or above',
    labelNames: ['route'],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    // Unmatched URLs share one label so that scanners cannot grow the label set.
    const route = req.routeOptions.url ?? 'unmatched';
    duration.observe({ method: req.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) errors.inc({ route });
  });
  app.get(`${prefix}/metrics`, { schema: { hide: true } }, async (req, reply) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) throw unauthenticated();
    return reply.type(registry.contentType).send(await Registry.merge([defaults, registry]).metrics());
  });
  return registry;
}

export interface MetricSources {
  database: Database;
  redis: Redis | null;
  listings: ListingCache;
  caches: CacheRegistry;
}

/**
 * Figures read at scrape time from what the app holds: the node-postgres pool, the Redis
 * connection (and a PING's round trip), the public listing cache and the cache registry.
 */
export function installDependencyMetrics(
  registry: Registry,
  { database, redis, listings, caches }: MetricSources,
): void {
  const registers = [registry];
  const pool = database.pool;
  if (pool) {
    new Gauge({
      name: 'foodsave_db_pool_connections',
      help: 'Connections of the PostgreSQL pool: total open, idle, in use',
      labelNames: ['state'],
      registers,
      collect() {
        const p = pool();
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'in_use' }, p.total - p.idle);
      },
    });
    new Gauge({
      name: 'foodsave_db_pool_waiting_requests',
      help: 'Queries waiting for a free connection of the PostgreSQL pool',
      registers,
      collect() {
        this.set(pool().waiting);
      },
    });
  }
  if (redis) {
    new Gauge({
      name: 'foodsave_redis_connected',
      help: '1 when the Redis connection is ready, 0 otherwise',
      registers,
      collect() {
        this.set(redis.status === 'ready' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'foodsave_redis_ping_seconds',
      help: 'Round trip of a PING to Redis at scrape time; NaN while disconnected or without an answer within 1 s',
      registers,
      async collect() {
        const started = performance.now();
        const answered =
          redis.status === 'ready' &&
          (await Promise.race([
            redis.ping().then(
              () => true,
              () => false,
            ),
            new Promise<boolean>((r) => setTimeout(r, 1000, false).unref()),
          ]));
        this.set(answered ? (performance.now() - started) / 1000 : NaN);
      },
    });
  }
  const cache = (name: string, help: string, read: (s: ReturnType<ListingCache['stats']>) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(listings.stats()));
      },
    });
  cache('foodsave_listing_cache_entries', 'Answers held by the public listing cache', (s) => s.entries);
  cache(
    'foodsave_listing_cache_bytes',
    'Approximate size of the answers held by the public listing cache (estimated heap: 3 bytes per byte of their JSON)',
    (s) => s.bytes,
  );
  const counter = (name: string, help: string, read: (s: ReturnType<ListingCache['stats']>) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(listings.stats()));
      },
    });
  counter('foodsave_listing_cache_hits_total', 'Public listing requests answered from the cache', (s) => s.hits);
  counter('foodsave_listing_cache_misses_total', 'Public listing requests that went to the database', (s) => s.misses);
  new Gauge({
    name: 'foodsave_caches_registered',
    help: 'In-process caches registered for cluster-wide invalidation',
    registers,
    collect() {
      this.set(caches.names().length);
    },
  });
}
