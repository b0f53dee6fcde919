import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { Events } from './jobs/events.js';
import type { Messages } from './jobs/messages.js';
import type { Jobs } from './jobs/queue.js';
import type { EmailSender } from './providers/email/email.js';
import type { IdentityProvider } from './providers/idp/idp.js';
import type { PaymentProvider } from './providers/payments/types.js';
import type { PushSender } from './providers/push/push.js';
import type { SmsSender } from './providers/sms/sms.js';
import type { Files } from './providers/storage/files.js';
import type { FileLinks } from './providers/storage/storage.js';
import type { CacheRegistry } from './shared/cache-registry.js';
import type { ImageWork } from './http/image-work.js';
import type { Clock } from './shared/clock.js';
import type { ListingCache } from './listings/index.js';
import type { WorkInProgress } from './shared/work-in-progress.js';

/** What services are built from; assembled once in app.ts. */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  redis: Redis | null;
  sms: SmsSender;
  email: EmailSender;
  idp: IdentityProvider | null;
  push: PushSender;
  /** Mobile-money checkout sessions, refunds and payouts; `payments.webhookSecrets` check the webhook's signature. */
  payments: PaymentProvider;
  /** SMS and email, enqueued as jobs in the caller's transaction (never sent from inside it). */
  messages: Messages;
  /** Durable jobs (pg-boss): enqueue with `{ tx }` inside a transaction so the job commits with it. */
  jobs: Jobs;
  /** Domain events, published inside the business transaction and handled after commit. */
  events: Events;
  /** Uploaded files (disk or bucket); `deleteLater` and `discard` record deletions as jobs. */
  storage: Files;
  /** Bounds the picture work (decode, re-encode, resize) of this instance; see src/http/image-work.ts. */
  images: ImageWork;
  links: FileLinks;
  workInProgress: WorkInProgress;
  listings: ListingCache;
  /** Every in-process cache, so that one request can drop them all on every instance. */
  caches: CacheRegistry;
}
