import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { enableAfterCommit } from './db/after-commit.js';
import { createDatabase, ping, type Database } from './db/client.js';
import { EventBus } from './jobs/events.js';
import { createMessages, PayloadSealer } from './jobs/messages.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import { installAccessControl } from './http/access.js';
import { installHttpCaching } from './http/caching.js';
import { consoleRoutes, foreignOrigins } from './http/console.js';
import { installIdempotency } from './http/idempotency.js';
import { errorForLog, installErrorHandling, sendError } from './http/errors.js';
import { ImageWork } from './http/image-work.js';
import { LazyCompilers } from './http/lazy-compile.js';
import { installDependencyMetrics, installMetrics } from './http/metrics.js';
import { installOpenApi } from './http/openapi.js';
import { SECURITY_HEADERS } from './http/security-headers.js';
import type { App } from './http/types.js';
import { installValidation } from './http/validation.js';
import { createAuthService } from './modules/auth/auth.service.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { consoleSessionRoutes } from './modules/auth/console-session.routes.js';
import { createIdpService } from './modules/auth/idp.service.js';
import { createOtpService } from './modules/auth/otp.service.js';
import { createSessionsService } from './modules/auth/sessions.service.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { productSearchRoutes } from './modules/product-search/product-search.routes.js';
import { createProductSearchService } from './modules/product-search/product-search.service.js';
import { createProductsAdminService } from './modules/products/products-admin.service.js';
import { createProductsService } from './modules/products/products.service.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { createOrdersService } from './modules/orders/orders.service.js';
import { paymentsRoutes } from './modules/payments/payments.routes.js';
import { createPaymentsService } from './modules/payments/payments.service.js';
import { createPayoutsService } from './modules/payouts/payouts.service.js';
import { createPayoutsAdminService } from './modules/payouts/payouts-admin.service.js';
import { payoutsAdminRoutes } from './modules/payouts/payouts-admin.routes.js';
import { escrowAdminRoutes } from './modules/escrow/escrow-admin.routes.js';
import { createEscrowAdminService } from './modules/escrow/escrow-admin.service.js';
import { createEscrowReleases } from './modules/escrow/escrow-release.js';
import { reportsRoutes } from './modules/reports/reports.routes.js';
import { createReportsService } from './modules/reports/reports.service.js';
import { supplierMoneyRoutes } from './modules/reports/supplier-money.routes.js';
import { createSupplierMoneyService } from './modules/reports/supplier-money.service.js';
import { createReviewsModerationService } from './modules/reviews/reviews-moderation.service.js';
import { reviewsRoutes } from './modules/reviews/reviews.routes.js';
import { createReviewsService } from './modules/reviews/reviews.service.js';
import { advertisingRoutes } from './modules/advertising/advertising.routes.js';
import { createAdvertisingAdminService } from './modules/advertising/advertising-admin.service.js';
import { createAdvertisingService } from './modules/advertising/advertising.service.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { createAnalyticsService } from './modules/analytics/analytics.service.js';
import { registerModuleFigures } from './modules/analytics/module-figures.js';
import { registerPlatformFigures } from './modules/analytics/platform-figures.js';
import { createSettlementService } from './modules/payments/settlement.service.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { createReadiness } from './modules/health/readiness.js';
import { createLedgerService } from './modules/ledger/ledger.service.js';
import { createEscrowService } from './modules/escrow/escrow.service.js';
import { kycRoutes } from './modules/kyc/kyc.routes.js';
import { createKycService } from './modules/kyc/kyc.service.js';
import { createStoreMembersService } from './modules/staff/members.service.js';
import { staffRoutes } from './modules/staff/staff.routes.js';
import { createStaffService } from './modules/staff/staff.service.js';
import { storesRoutes } from './modules/stores/stores.routes.js';
import { createStoresService } from './modules/stores/stores.service.js';
import { settingsRoutes } from './modules/settings/settings.routes.js';
import { createSettingsService } from './modules/settings/settings.service.js';
import { createSubscriptionsService } from './modules/subscriptions/subscriptions.service.js';
import { createBillingService } from './modules/subscriptions/billing.service.js';
import { createPlansService } from './modules/subscriptions/plans.service.js';
import { createPromoCodesService } from './modules/subscriptions/promo-codes.service.js';
import { subscriptionsRoutes } from './modules/subscriptions/subscriptions.routes.js';
import { suppliersAdminRoutes } from './modules/suppliers/suppliers-admin.routes.js';
import { createSuppliersAdminService } from './modules/suppliers/suppliers-admin.service.js';
import { suppliersRoutes } from './modules/suppliers/suppliers.routes.js';
import { createSuppliersService, type SuppliersDeps } from './modules/suppliers/suppliers.service.js';
import { subscribeToCatalogEvents } from './modules/notifications/catalog-events.js';
import { subscribeToAccountEvents } from './modules/notifications/account-events.js';
import { NotificationStream } from './modules/notifications/notification-stream.js';
import { notificationsRoutes } from './modules/notifications/notifications.routes.js';
import { createNotificationsService } from './modules/notifications/notifications.service.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { createUsersService } from './modules/users/users.service.js';
import { createEmail } from './providers/email/email.js';
import { createIdentityProvider } from './providers/idp/idp.js';
import { createPayments } from './providers/payments/payments.js';
import { SandboxPayments } from './providers/payments/sandbox.js';
import { paymentsSandboxRoutes } from './modules/payments-sandbox/payments-sandbox.routes.js';
import { createSandboxDelivery } from './modules/payments-sandbox/sandbox-webhook.js';
import { createPush } from './providers/push/push.js';
import { createSms } from './providers/sms/sms.js';
import { FileLinks, filesRoot, LocalFileStorage } from './providers/storage/storage.js';
import { filesRoutes } from './modules/files/files.routes.js';
import { CacheRegistry } from './shared/cache-registry.js';
import { ListingCache } from './shared/listing-cache.js';
import { nextClosureChange } from './modules/stores/stores.repository.js';
import { WorkInProgress } from './shared/work-in-progress.js';
import { dealsRoutes } from './modules/deals/deals.routes.js';
import { createBookingsService } from './modules/deals/bookings.service.js';
import { createDealsSearchService } from './modules/deals/deals-search.service.js';
import { createDealsService } from './modules/deals/deals.service.js';
import { createHmac } from 'node:crypto';
import { AppError } from './shared/errors.js';
import { StartupError } from './shared/startup-error.js';
import { type Clock, systemClock } from './shared/clock.js';
import { uuidv7 } from './shared/ids.js';
import { associationsRoutes } from './modules/associations/associations.routes.js';
import { createAssociationsAdminService } from './modules/associations/associations-admin.service.js';
import { createAssociationsService } from './modules/associations/associations.service.js';
import { donationsRoutes } from './modules/donations/donations.routes.js';
import { createDonationsService } from './modules/donations/donations.service.js';
import { createDocumentsService } from './modules/donations/documents.service.js';
import { createFinancialService } from './modules/donations/financial.service.js';
import { announcementsRoutes } from './modules/announcements/announcements.routes.js';
import {
  createAnnouncementsService,
  type AnnouncementsOptions,
} from './modules/announcements/announcements.service.js';

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
  /** Options of services that have some (tests shrink the announcements' batches). */
  services?: ServiceOptions;
}

export interface ServiceOptions {
  announcements?: AnnouncementsOptions;
}

function buildServices(ctx: AppContext, stream: NotificationStream, opts: ServiceOptions = {}) {
  const settings = createSettingsService(ctx);
  const sessions = createSessionsService(ctx);
  const otp = createOtpService(ctx);
  const users = createUsersService(ctx, { sessions, otp });
  const auth = createAuthService(ctx, { users, otp, sessions });
  const idp = createIdpService(ctx, { users, auth });
  const subscriptions = createSubscriptionsService(ctx);
  // Stores use suppliers and suppliers count stores: the stores service joins the deps once built.
  const suppliersDeps: SuppliersDeps = { subscriptions, settings };
  const suppliers = createSuppliersService(ctx, suppliersDeps);
  const suppliersAdmin = createSuppliersAdminService(ctx);
  const kyc = createKycService(ctx, { suppliers });
  const storeMembers = createStoreMembersService(ctx);
  const stores = createStoresService(ctx, { suppliers, members: storeMembers });
  suppliersDeps.stores = stores;
  const staff = createStaffService(ctx, { stores, users, suppliers, members: storeMembers });
  const notifications = createNotificationsService(ctx, { users, stream });
  sessions.onRevoked(notifications.forgetSessions);
  subscribeToAccountEvents(ctx.events, ctx.db, notifications);
  const products = createProductsService(ctx, { settings, suppliers, stores, subscriptions });
  const productsAdmin = createProductsAdminService(ctx, products, { suppliers, stores });
  subscribeToCatalogEvents(ctx.events, ctx.db, notifications, {
    product: products.announcementOf,
    followersOf: products.followersOf,
  });
  const productSearch = createProductSearchService(ctx);
  const ledger = createLedgerService(ctx);
  const escrow = createEscrowService(ctx, { ledger });
  const publicBase = ctx.config.PUBLIC_BASE_URL;
  const payments = createPaymentsService(ctx, {
    settings,
    provider: () => ctx.payments,
    returnUrls: (id) => ({
      successUrl: `${publicBase}${API_PREFIX}/payments/mobilemoney/success?ref=${id}`,
      errorUrl: `${publicBase}${API_PREFIX}/payments/mobilemoney/error?ref=${id}`,
    }),
  });
  const orders = createOrdersService(ctx, {
    settings,
    products,
    stores,
    members: storeMembers,
    suppliers,
    users,
    notifications,
    payments,
  });
  const settlement = createSettlementService(ctx, {
    payments,
    orders,
    escrow,
    ledger,
    notifications,
    provider: () => ctx.payments,
  });
  const payouts = createPayoutsService(ctx, { ledger, suppliers, notifications });
  // The provider's payout webhooks settle payouts; one we never sent is recorded as unknown.
  settlement.onPayoutEvent(async (tx, ev) => {
    const outcome = await payouts.applyProviderPayout(tx, ev.payout);
    return outcome === 'unknown_payout' ? 'unknown_payment' : outcome;
  });
  const releases = createEscrowReleases(ctx, { ledger, payouts, settings, suppliers, notifications });
  const escrowAdmin = createEscrowAdminService(ctx, {
    escrow,
    releases,
    ledger,
    payouts,
    payments,
    suppliers,
    notifications,
  });
  const payoutsAdmin = createPayoutsAdminService(ctx);
  const reports = createReportsService(ctx, { ledger, orders });
  const supplierMoney = createSupplierMoneyService(ctx, { suppliers });
  // subscriptions: plans, promo codes and paying for plans (a payment subject declared by billing)
  const plans = createPlansService(ctx);
  const promoCodes = createPromoCodesService(ctx);
  const billing = createBillingService(ctx, {
    subscriptions,
    plans,
    promos: promoCodes,
    payments,
    settings,
    suppliers,
    notifications,
  });
  // reviews
  const reviews = createReviewsService(ctx, { settings, products, suppliers, orders, notifications });
  const reviewsModeration = createReviewsModerationService(ctx, reviews);
  // associations
  const associations = createAssociationsService(ctx);
  const associationsAdmin = createAssociationsAdminService(ctx, { notifications });
  // donations
  const donationPayments = createFinancialService(ctx, { associations, notifications, payments, payouts, settings });
  const donations = createDonationsService(ctx, {
    products,
    suppliers,
    associations,
    notifications,
    financial: donationPayments,
    settings,
  });
  const donationDocuments = createDocumentsService(ctx, { associations, users });
  // advertising
  const advertising = createAdvertisingService(ctx, {
    notifications,
    settings,
    apiPrefix: API_PREFIX,
    targets: { product: products.isPublic, store: stores.isPublic, supplier: suppliers.isPublic },
  });
  const advertisingAdmin = createAdvertisingAdminService(ctx, advertising, { notifications });
  // analytics: the dashboard's figures are read by the modules owning them, registered here
  const analytics = createAnalyticsService(ctx, { users, suppliers, orders });
  registerPlatformFigures(analytics, { users, suppliers, kyc, products, orders, ledger });
  // deals
  const deals = createDealsService(ctx, { settings, suppliers, stores, members: storeMembers, notifications });
  const bookings = createBookingsService(ctx, { stores, members: storeMembers, suppliers, notifications });
  const dealsSearch = createDealsSearchService(ctx);
  // analytics: the figures of reviews, deals and bookings, associations, food donations and advertising
  registerModuleFigures(analytics, { reviews, deals, associations, donations, advertising });
  // announcements: administrators' messages to every user or one role, sent in batches
  const announcements = createAnnouncementsService(ctx, { users, notifications }, opts.announcements);
  return {
    announcements,
    payouts,
    payoutsAdmin,
    escrowAdmin,
    reports,
    supplierMoney,
    ledger,
    escrow,
    settlement,
    settings,
    sessions,
    otp,
    users,
    auth,
    idp,
    subscriptions,
    suppliers,
    suppliersAdmin,
    kyc,
    stores,
    staff,
    notifications,
    products,
    productsAdmin,
    productSearch,
    payments,
    orders,
    plans,
    promoCodes,
    billing,
    reviews,
    reviewsModeration,
    associations,
    associationsAdmin,
    donations,
    donationPayments,
    donationDocuments,
    advertising,
    advertisingAdmin,
    analytics,
    deals,
    bookings,
    dealsSearch,
  };
}
export type Services = ReturnType<typeof buildServices>;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    services: Services;
    database: Database;
    jobs: JobQueue;
    events: EventBus;
  }
}

const lazyCompilers = new WeakMap<object, LazyCompilers>();
/** Compiles every validator and serializer not used yet (they compile on first use); answers how many. */
export const compileEverySchema = (app: App) => lazyCompilers.get(app)?.compileAll() ?? 0;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

// Routes whose writes can change what public listings show, and the listing scopes (prefixes of
// `ctx.listings.get` scopes) each can change: a supplier's visibility reaches its stores and their
// products; a store's state reaches its products. Other scopes keep their cached answers.
const EVERY_LISTING = ['suppliers.', 'stores.', 'products.', 'deals.'];
const LISTING_WRITERS: [prefix: string, scopes: string[]][] = [
  ['/suppliers/', EVERY_LISTING],
  ['/supplier/', EVERY_LISTING],
  ['/admin/suppliers', EVERY_LISTING],
  ['/admin/kyc', EVERY_LISTING],
  ['/admin/users', [...EVERY_LISTING, 'associations.']],
  ['/stores', ['stores.', 'products.', 'deals.']],
  ['/products', ['products.']],
  ['/admin/products', ['products.']],
  // Reviews change the ratings product and supplier lists show; marks, answers and pictures do not.
  ['/reviews/:id/helpful', []],
  ['/reviews/:id/reply', []],
  ['/reviews/:id/images', []],
  ['/reviews', ['products.', 'suppliers.']],
  ['/admin/reviews', ['products.', 'suppliers.']],
  ['/associations', ['associations.']],
  ['/admin/associations', ['associations.']],
  ['/deals', ['deals.']],
  ['/admin/deals', ['deals.']],
].map(([p, scopes]) => [`${API_PREFIX}${p as string}`, scopes as string[]]);
const listingsChangedBy = (url: string | undefined) =>
  url === undefined ? undefined : LISTING_WRITERS.find(([p]) => url.startsWith(p))?.[1];

async function registerApiRoutes(
  app: App,
  services: Services,
  ctx: AppContext,
  config: Config,
  stream: NotificationStream,
): Promise<void> {
  await app.register(authRoutes(services.auth, services.idp, config.AUTH_RATE_LIMIT_MAX), { prefix: API_PREFIX });
  await app.register(consoleSessionRoutes(services.auth, config), { prefix: API_PREFIX });
  await app.register(usersRoutes(services.users), { prefix: API_PREFIX });
  await app.register(filesRoutes(ctx.storage, ctx.links, ctx.clock), { prefix: API_PREFIX });
  await app.register(suppliersRoutes(services.suppliers), { prefix: API_PREFIX });
  await app.register(suppliersAdminRoutes(services.suppliersAdmin), { prefix: API_PREFIX });
  await app.register(kycRoutes(services.kyc), { prefix: API_PREFIX });
  await app.register(storesRoutes(services.stores), { prefix: API_PREFIX });
  await app.register(staffRoutes(services.staff), { prefix: API_PREFIX });
  await app.register(settingsRoutes(services.settings), { prefix: API_PREFIX });
  await app.register(notificationsRoutes(services.notifications, stream), { prefix: API_PREFIX });
  await app.register(productsRoutes(services.products, services.productsAdmin, services.sessions.authenticate), {
    prefix: API_PREFIX,
  });
  await app.register(productSearchRoutes(services.productSearch), { prefix: API_PREFIX });
  await app.register(ordersRoutes(services.orders), { prefix: API_PREFIX });
  await app.register(
    paymentsRoutes(services.orders, services.settlement, { appReturnUrl: ctx.config.APP_RETURN_URL }),
    { prefix: API_PREFIX },
  );
  await app.register(escrowAdminRoutes(services.escrowAdmin), { prefix: API_PREFIX });
  await app.register(payoutsAdminRoutes(services.payoutsAdmin), { prefix: API_PREFIX });
  await app.register(reportsRoutes(services.reports), { prefix: API_PREFIX });
  await app.register(supplierMoneyRoutes(services.supplierMoney), { prefix: API_PREFIX });
  await app.register(
    subscriptionsRoutes({
      subscriptions: services.subscriptions,
      plans: services.plans,
      promos: services.promoCodes,
      billing: services.billing,
      supplierIdOf: services.billing.supplierIdOf,
    }),
    { prefix: API_PREFIX },
  );
  await app.register(reviewsRoutes(services.reviews, services.reviewsModeration, services.sessions.authenticate), {
    prefix: API_PREFIX,
  });
  await app.register(associationsRoutes(services.associations, services.associationsAdmin), { prefix: API_PREFIX });
  await app.register(donationsRoutes(services.donations, services.donationPayments, services.donationDocuments), {
    prefix: API_PREFIX,
  });
  await app.register(advertisingRoutes(services.advertising, services.advertisingAdmin), { prefix: API_PREFIX });
  await app.register(analyticsRoutes(services.analytics), { prefix: API_PREFIX });
  await app.register(
    dealsRoutes(services.deals, services.bookings, services.dealsSearch, services.sessions.authenticate),
    { prefix: API_PREFIX },
  );
  await app.register(announcementsRoutes(services.announcements), { prefix: API_PREFIX });
  if (ctx.payments instanceof SandboxPayments) {
    // The sandbox's pages exist only with the sandbox; their webhook goes through this very app.
    ctx.payments.setDelivery(createSandboxDelivery(app, ctx.payments.webhookSecrets[0]!, ctx.clock, ctx.log));
    await app.register(paymentsSandboxRoutes(ctx.payments), { prefix: API_PREFIX });
  }
}

export async function buildApp(opts: BuildOptions): Promise<App> {
  const { config } = opts;
  const compilers = new LazyCompilers();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: compilers.serializerFactory() } },
    logger: {
      level: config.LOG_LEVEL,
      ...(opts.logStream && { stream: opts.logStream }),
      redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.newPassword', '*.currentPassword'],
      serializers: { err: errorForLog },
    },
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    requestIdHeader: false,
    // Errors raised by the router before any route runs (over-long or badly encoded path
    // parameters) get the same envelope as everything else.
    frameworkErrors: (err, req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void sendError(reply, req, {
        status: 400,
        code: 'VALIDATION_ERROR',
        message: tooLong ? 'A path parameter is too long' : 'The URL is not valid',
        details: [{ field: 'params', message: tooLong ? 'must be at most 100 characters' : 'is not a valid URL' }],
      });
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app, compilers);
  lazyCompilers.set(app, compilers);
  // The database is there by the time a request fails.
  installErrorHandling(app, () => ping(app.database.db));
  // Bodiless POSTs sent with a JSON content type are treated as having no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, undefined) : parseJson(req, body as string, done),
  );
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  const redis = config.REDIS_URL
    ? new (await import('ioredis')).Redis(config.REDIS_URL, {
        connectTimeout: 2000,
        maxRetriesPerRequest: 1,
        lazyConnect: true,
      })
    : null;
  if (redis) {
    let cause: unknown;
    redis.on('error', (err) => app.log.warn({ err }, 'redis error'));
    redis.once('error', (err) => (cause = err));
    await redis.connect().catch((err: unknown) => {
      redis.disconnect();
      const why = (cause ?? err) instanceof Error ? ((cause ?? err) as Error).message : String(err);
      throw new StartupError(`REDIS_URL: cannot connect (${why})`);
    });
  }

  await app.register(helmet, SECURITY_HEADERS);
  await app.register(cors, {
    origin: config.CORS_ORIGINS === '*' ? true : config.CORS_ORIGINS.split(',').map((o) => o.trim()),
  });
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_MAX,
    timeWindow: '1 minute',
    redis: redis ?? undefined,
    nameSpace: 'foodsave:rl:',
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError(429, 'RATE_LIMITED', `Too many requests; try again in ${Math.ceil(ctx.ttl / 1000)} s`),
  });
  await app.register(multipart, { limits: { fileSize: 5 * 1024 * 1024, files: 10, fields: 20, fieldSize: 10_000 } });
  // Before any route is declared: compression attaches itself to routes as they are.
  await installHttpCaching(app);
  const metrics = installMetrics(app, API_PREFIX, config.METRICS_TOKEN);
  await installOpenApi(app, API_PREFIX);

  const database = await createDatabase(config, { initialData: opts.initialData });
  if (opts.migrate !== false) await database.migrate();
  enableAfterCommit(database.db);
  const clock = opts.clock ?? systemClock;
  const jobs = createJobQueue({ config, database, clock, log: app.log, metrics });
  const events = new EventBus(jobs, database.db, clock);
  const sms = createSms(config, app.log);
  const email = createEmail(config, app.log);
  const sealer = new PayloadSealer(
    config.JOBS_PAYLOAD_KEY ?? createHmac('sha256', config.OTP_SECRET).update('job-payloads').digest('hex'),
  );
  const ctx: AppContext = {
    config,
    db: database.db,
    clock,
    log: app.log,
    redis,
    sms,
    email,
    idp: createIdentityProvider(config, clock),
    push: createPush(config, app.log, clock),
    payments: createPayments(config, { db: database.db, clock }),
    messages: createMessages(jobs, { sms, email }, sealer),
    jobs,
    events,
    storage: new LocalFileStorage(filesRoot(config.FILES_DIR, config.DATA_DIR)),
    images: new ImageWork(config.IMAGE_CONCURRENCY, config.IMAGE_QUEUE_MAX),
    links: new FileLinks(
      config.FILES_SIGNING_SECRET ?? createHmac('sha256', config.JWT_ACCESS_SECRET).update('file-links').digest('hex'),
      API_PREFIX,
    ),
    workInProgress: new WorkInProgress(),
    listings: new ListingCache(clock, redis, undefined, (now) => nextClosureChange(database.db, now)),
    caches: new CacheRegistry(redis),
  };
  await ctx.listings.start((err) => app.log.warn({ err }, 'redis subscriber error'));
  ctx.caches.register('listings', () => ctx.listings.dropLocal());
  installDependencyMetrics(metrics, { database, redis, listings: ctx.listings, caches: ctx.caches });
  await ctx.caches.start((err) => app.log.warn({ err }, 'redis subscriber error'));
  // A successful write to anything public listings show drops the cached listings. onSend runs
  // after the handler, so after its transaction committed, and before the client hears back.
  app.addHook('onSend', async (req, reply) => {
    if (req.method === 'GET' || req.method === 'HEAD' || reply.statusCode >= 400) return;
    const scopes = listingsChangedBy(req.routeOptions.url);
    if (scopes?.length) ctx.listings.changed(scopes);
  });
  const stream = new NotificationStream(redis);
  await stream.start((err) => app.log.warn({ err }, 'redis subscriber error'));
  // Open event streams never end on their own: close them before the server waits for its connections.
  app.addHook('preClose', async () => stream.closeAll());
  const services = buildServices(ctx, stream, opts.services);
  app.decorate('ctx', ctx);
  app.decorate('services', services);
  app.decorate('database', database);
  app.decorate('jobs', jobs);
  app.decorate('events', events);

  installAccessControl(app, services.sessions.authenticate, {
    ADVERTISER_OR_ADM: (u) => services.advertising.isAdvertiser(u.id),
  });
  installIdempotency(app, ctx);
  await app.register(healthRoutes(createReadiness(database.db, database.kind, redis)), { prefix: API_PREFIX });
  if (opts.role !== 'worker') {
    await registerApiRoutes(app, services, ctx, config, stream);
    // The operators' console beside the reference page (/api/v1/docs); pictures come from where public files are.
    await app.register(
      consoleRoutes({ dir: config.CONSOLE_DIR, imageOrigins: foreignOrigins(ctx.links.publicPrefix) }),
    );
  }

  // Handlers and subscriptions are all registered by now: the queue starts with the app.
  app.addHook('onReady', async () => {
    await jobs.start();
  });
  app.addHook('onClose', async () => {
    // Waits for the jobs running here; what is left waiting stays in the database for the next worker.
    await jobs.stop();
    // Batched product views are written before the database closes.
    await services.products.close();
    await services.productSearch.close();
    await services.advertising.close();
    await ctx.listings.close();
    await ctx.caches.close();
    await stream.close();
    ctx.email.close();
    await database.close();
    await redis?.quit().catch(() => undefined);
  });

  if (config.SUPER_ADMIN_PHONE && config.SUPER_ADMIN_PASSWORD) {
    await services.users.ensureSuperAdmin(config.SUPER_ADMIN_PHONE, config.SUPER_ADMIN_PASSWORD);
  }
  return app;
}
