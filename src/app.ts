import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { enableAfterCommit } from './db/after-commit.js';
import { createDatabase, type Database } from './db/client.js';
import { installAccessControl } from './http/access.js';
import { consoleRoutes, foreignOrigins } from './http/console.js';
import { installIdempotency } from './http/idempotency.js';
import { createServer, installPlugins } from './http/server.js';
import type { App } from './http/types.js';
import { connectRedis, createContext } from './infrastructure.js';
import { installListingDrops } from './listings/index.js';
import type { EventBus } from './jobs/events.js';
import type { JobQueue } from './jobs/queue.js';
import { type Clock, systemClock } from './shared/clock.js';
import { healthRoutes, createReadiness } from './modules/health/index.js';
import { MODULES } from './modules/index.js';
import { assemble, type ModuleApis, type ModuleOptions } from './modules/module.js';

export const API_PREFIX = '/api/v1';

export interface BuildOptions {
  config: Config;
  clock?: Clock;
  /** Run pending migrations before serving (default true). */
  migrate?: boolean;
  /** An archive of a migrated embedded database to start from (tests; see createDatabase). */
  initialData?: Blob;
  /** Where log lines go (default standard output). */
  logStream?: { write(line: string): void };
  /**
   * `worker`: the process `npm run worker` starts. Every service and job handler is built as in the
   * API, but the only routes are health and metrics (for the orchestrator and the job metrics).
   */
  role?: 'api' | 'worker';
  /** Options of modules that have some (tests shrink the announcements' batches). */
  services?: ModuleOptions;
}

export type Services = ModuleApis;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    services: Services;
    database: Database;
    jobs: JobQueue;
    events: EventBus;
  }
}

export { compileEverySchema } from './http/server.js';

export async function buildApp(opts: BuildOptions): Promise<App> {
  const { config } = opts;
  const app = createServer(config, opts.logStream);
  const redis = await connectRedis(config, app.log);
  const metrics = await installPlugins(app, config, redis, API_PREFIX);
  const database = await createDatabase(config, { initialData: opts.initialData });
  if (opts.migrate !== false) await database.migrate();
  enableAfterCommit(database.db);
  const clock = opts.clock ?? systemClock;
  const { ctx, jobs, events } = await createContext({
    config,
    database,
    clock,
    log: app.log,
    redis,
    metrics,
    apiPrefix: API_PREFIX,
  });
  installListingDrops(app, ctx.listings);
  const { apis: services, built } = await assemble(ctx, MODULES, {
    apiPrefix: API_PREFIX,
    options: opts.services ?? {},
  });
  app.decorate('ctx', ctx);
  app.decorate('services', services);
  app.decorate('database', database);
  app.decorate('jobs', jobs);
  app.decorate('events', events);

  installAccessControl(app, services.auth.sessions.authenticate, {
    ADVERTISER_OR_ADM: (u) => services.advertising.isAdvertiser(u.id),
  });
  installIdempotency(app, ctx);
  await app.register(healthRoutes(createReadiness(database.db, database.kind, redis)), { prefix: API_PREFIX });
  if (opts.role !== 'worker') {
    for (const { routes } of built) if (routes) await app.register(routes, { prefix: API_PREFIX });
    // The operators' console beside the reference page (/api/v1/docs); pictures come from where public files
    // are, and private documents from the bucket the API's signed links redirect to.
    const bucketUrl = await ctx.storage.presignedUrl?.('private', 'origin.pdf', 60).catch(() => undefined);
    const imageOrigins = foreignOrigins(ctx.links.publicPrefix, bucketUrl ?? '');
    await app.register(consoleRoutes({ dir: config.CONSOLE_DIR, imageOrigins }));
  }

  // Handlers and subscriptions are all registered by now: the queue starts with the app.
  app.addHook('onReady', async () => {
    await jobs.start();
  });
  app.addHook('onClose', async () => {
    // Waits for the jobs running here; what is left waiting stays in the database for the next worker.
    await jobs.stop();
    // Batched writes (product views, ad counts) go in before the database closes.
    for (const { close } of built) await close?.();
    await ctx.caches.close();
    ctx.email.close();
    await database.close();
    await redis?.quit().catch(() => undefined);
  });

  if (config.SUPER_ADMIN_PHONE && config.SUPER_ADMIN_PASSWORD) {
    await services.users.ensureSuperAdmin(config.SUPER_ADMIN_PHONE, config.SUPER_ADMIN_PASSWORD);
  }
  return app;
}
