// The benchmark's server process: the real app plus two reference routes, on the database the
// runner prepared and seeded (DATABASE_URL, or the embedded database in BENCH_DATA_DIR).
import { eq, sql } from 'drizzle-orm';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { notifications } from '../src/db/schema/notifications.js';
import { users } from '../src/db/schema/users.js';
import { uuidv7 } from '../src/shared/ids.js';
import { hashPassword } from '../src/shared/passwords.js';
import { prepareAds } from './ads-setup.js';
import { prepareDeals } from './deals-setup.js';
import { prepareModeration } from './moderation-setup.js';
import { prepareOrders, webhookDeliveries } from './orders-setup.js';
import { prepareReviews } from './reviews-setup.js';

const config = loadConfig({
  ...process.env,
  DATA_DIR: process.env.BENCH_DATA_DIR,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MAX: '100000000',
  AUTH_RATE_LIMIT_MAX: '100000000',
  PORT: process.env.BENCH_PORT ?? '3900',
  SMS_PROVIDER: 'log',
  EMAIL_PROVIDER: 'log',
});
const app = await buildApp({ config });
const { db } = app.ctx;

app.get('/bench/constant', async () => ({ success: true, data: { ok: true } }));
// Prepared, as the application's hot reads are: the database's limit for one read.
const selectUser = db
  .select({ id: users.id, role: users.role })
  .from(users)
  .where(eq(users.id, sql.placeholder('id')))
  .limit(1)
  .prepare('bench_select_user');
app.get('/bench/select/:id', async (req) => {
  const [row] = await selectUser.execute({ id: (req.params as { id: string }).id });
  return { success: true, data: row };
});
// What POST /orders cannot do without, on the same pool: take one unit of the product with the same
// guarded UPDATE and insert one row, in one transaction.
app.post('/bench/reserve/:id', async (req, reply) => {
  const productId = (req.params as { id: string }).id;
  await db.transaction(async (tx) => {
    const done = await tx.execute(
      sql`update products set quantity = quantity - 1, reserved_quantity = reserved_quantity + 1 where id = ${productId} and quantity >= 1 returning id`,
    );
    if (!(done as unknown as { rows: unknown[] }).rows.length) throw new Error('out of stock');
    await tx.execute(
      sql`insert into bench_reservations (id, product_id, quantity, created_at) values (${uuidv7()}, ${productId}, 1, now())`,
    );
  });
  return reply.code(201).send({ success: true, data: { ok: true } });
});
// The dashboard computed on every request (its cache dropped first), for the figure a cache miss costs.
app.get('/bench/dashboard-computed', async () => {
  app.ctx.caches.changed('dashboard');
  return { success: true, data: await app.services.analytics.stats({}) };
});
app.get('/bench/webhook-deliveries', async () => webhookDeliveries(app, user.id));
// The CPU time the server has used so far (user + system, microseconds): read before and after a scenario.
app.get('/bench/cpu', async () => process.cpuUsage());
app.get('/bench/rss', async () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage();
});

const password = 'Bench-Password-1';
const passwordHash = await hashPassword(password);
/** A verified account of `role` (its number made of `prefix` and the time) and its access token. */
async function signedIn(role: 'CLIENT' | 'ADMIN' | 'ADVERTISER', prefix: string, lastName: string) {
  const phoneNumber = `${prefix}${String(Date.now()).slice(-9)}`;
  const created = await app.services.users.create(db, {
    phoneNumber,
    passwordHash,
    role,
    firstName: 'Bench',
    lastName,
    verified: true,
  });
  return { user: created, token: (await app.services.auth.signIn(created, {})).accessToken };
}
const { user, token: accessToken } = await signedIn('CLIENT', '+4917', 'User');
const adminToken = (await signedIn('ADMIN', '+4915', 'Admin')).token;
// The bench user's inbox: 200 notifications over the last days, a third of them unread.
const start = Date.now() - 200 * 3600_000;
await db.insert(notifications).values(
  Array.from({ length: 200 }, (_, i) => ({
    id: uuidv7(start + i * 3600_000),
    userId: user.id,
    type: 'system_announcement',
    category: 'system',
    title: `Annonce ${i}`,
    body: 'Nouveaux paniers anti-gaspi disponibles près de chez vous',
    data: { storeId: uuidv7() },
    readAt: i % 3 === 0 ? null : new Date(start + i * 3600_000 + 60_000),
    createdAt: new Date(start + i * 3600_000),
  })),
);
// Product ids for the product page scenario, drawn from the whole catalogue.
const productIds = (
  (await db.execute(sql`select id from products tablesample bernoulli (1) limit 500`)) as unknown as {
    rows: { id: string }[];
  }
).rows.map((r) => r.id);
const orderBench = await prepareOrders(app);
const reviewBench = await prepareReviews(app);
// The campaigns' advertiser, who also tops up its balance in the top-up scenario.
const { user: advertiser, token: advertiserToken } = await signedIn('ADVERTISER', '+4916', 'Advertiser');
await prepareAds(app, advertiser.id);
const dealBench = await prepareDeals(app);
const moderationBench = await prepareModeration(app);
await app.listen({ host: '127.0.0.1', port: config.PORT });
process.stdout.write(`${JSON.stringify({ ready: true, userId: user.id, phoneNumber: user.phoneNumber, password, accessToken, adminToken, advertiserToken, database: app.database.kind, productIds, ...orderBench, ...reviewBench, ...dealBench, ...moderationBench })}
`);
// BENCH_CPU_PROF=<dir>: a V8 CPU profile of the load only (from here to the end), not of the set-up above.
const profiler = process.env.BENCH_CPU_PROF ? await startProfile() : undefined;
process.on(
  'SIGTERM',
  () => void (profiler?.() ?? Promise.resolve()).then(() => app.close()).then(() => process.exit(0)),
);

async function startProfile(): Promise<() => Promise<void>> {
  // Imported only here: with the inspector module merely loaded, every route ran 8-15 % slower.
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(process.env.BENCH_CPU_PROF!, `server-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  };
}
