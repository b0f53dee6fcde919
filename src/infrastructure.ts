import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/client.js';
import { ImageWork } from './http/image-work.js';
import { installDependencyMetrics } from './http/metrics.js';
import { EventBus } from './jobs/events.js';
import { createMessages, PayloadSealer } from './jobs/messages.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import { nextClosureChange } from './modules/stores/index.js';
import { createEmail } from './providers/email/email.js';
import { createIdentityProvider } from './providers/idp/idp.js';
import { createPayments } from './providers/payments/payments.js';
import { createPush } from './providers/push/push.js';
import { createSms } from './providers/sms/sms.js';
import { createFiles } from './providers/storage/files.js';
import { FileLinks } from './providers/storage/storage.js';
import { CacheRegistry } from './shared/cache-registry.js';
import type { Clock } from './shared/clock.js';
import { ListingCache } from './listings/index.js';
import { StartupError } from './shared/startup-error.js';
import { WorkInProgress } from './shared/work-in-progress.js';

/** Redis when REDIS_URL is set, connected (a start-up error names why not); null without. */
export async function connectRedis(config: Config, log: FastifyBaseLogger): Promise<Redis | null> {
  if (!config.REDIS_URL) return null;
  const redis = new (await import('ioredis')).Redis(config.REDIS_URL, {
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  let cause: unknown;
  redis.on('error', (err) => log.warn({ err }, 'redis error'));
  redis.once('error', (err) => (cause = err));
  await redis.connect().catch((err: unknown) => {
    redis.disconnect();
    const why = (cause ?? err) instanceof Error ? ((cause ?? err) as Error).message : String(err);
    throw new StartupError(`REDIS_URL: cannot connect (${why})`);
  });
  return redis;
}

const derived = (secret: string, purpose: string) => createHmac('sha256', secret).update(purpose).digest('hex');

/**
 * What every module is built from: the database, the job queue and events, the providers (SMS,
 * email, push, identity, payments, files) and the instance's caches, started.
 */
export async function createContext(o: {
  config: Config;
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  redis: Redis | null;
  metrics: Registry;
  apiPrefix: string;
}): Promise<{ ctx: AppContext; jobs: JobQueue; events: EventBus }> {
  const { config, database, clock, log, redis, metrics } = o;
  const jobs = createJobQueue({ config, database, clock, log, metrics });
  const sms = createSms(config, log);
  const email = createEmail(config, log);
  const events = new EventBus(jobs, database.db, clock);
  const sealer = new PayloadSealer(config.JOBS_PAYLOAD_KEY ?? derived(config.OTP_SECRET, 'job-payloads'));
  const linkSecret = config.FILES_SIGNING_SECRET ?? derived(config.JWT_ACCESS_SECRET, 'file-links');
  const ctx: AppContext = {
    config,
    db: database.db,
    clock,
    log,
    redis,
    sms,
    email,
    idp: createIdentityProvider(config, clock),
    push: createPush(config, log, clock),
    payments: createPayments(config, { db: database.db, clock }),
    messages: createMessages(jobs, { sms, email }, sealer),
    jobs,
    events,
    storage: await createFiles(config, jobs, log),
    images: new ImageWork(config.IMAGE_CONCURRENCY, config.IMAGE_QUEUE_MAX),
    links: new FileLinks(linkSecret, o.apiPrefix, config.FILES_PUBLIC_BASE_URL),
    workInProgress: new WorkInProgress(),
    listings: new ListingCache(
      clock,
      redis,
      undefined,
      (now) => nextClosureChange(database.db, now),
      (err) => log.warn({ err }, 'listing versions not shared through Redis'),
    ),
    caches: new CacheRegistry(redis),
  };
  ctx.caches.register('listings', () => ctx.listings.dropLocal());
  installDependencyMetrics(metrics, { database, redis, listings: ctx.listings, caches: ctx.caches });
  await ctx.caches.start((err) => log.warn({ err }, 'redis subscriber error'));
  return { ctx, jobs, events };
}
