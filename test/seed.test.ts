import { and, count, inArray, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '../src/db/schema/users.js';
import { DEMO_ADMIN, DEMO_CLIENTS } from '../src/seed/accounts.seed.js';
import { DEMO_SUPPLIERS } from '../src/seed/dakar.js';
import { DEMO_PRODUCTS } from '../src/seed/products.seed.js';
import { formatReport, runSeed, type SeedReport } from '../src/seed/seed.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call } from './helpers/http.js';

// The seed writes fixed phone numbers: on PostgreSQL the run's database is shared by the test
// files, and this is the only file that seeds it.
let t: TestApp;
let first: SeedReport;
let sessionsAfterFirst: { all: number; open: number };
beforeAll(async () => {
  t = await buildTestApp();
  first = await runSeed(t.app);
  sessionsAfterFirst = await sessionCounts(idsOf(first, 'account'));
});
afterAll(() => t.close());

const idsOf = (r: SeedReport, kind: string) => r.entries.filter((e) => e.kind === kind).map((e) => e.id);
const login = (phoneNumber: string, password: string) =>
  call(t.app, 'POST', '/auth/login', { body: { phoneNumber, password } });

async function sessionCounts(userIds: string[]) {
  const db = t.app.ctx.db;
  const [all] = await db.select({ n: count() }).from(sessions).where(inArray(sessions.userId, userIds));
  const [open] = await db
    .select({ n: count() })
    .from(sessions)
    .where(and(inArray(sessions.userId, userIds), isNull(sessions.revokedAt)));
  return { all: all!.n, open: open!.n };
}

describe('npm run seed on a fresh database', () => {
  it('creates the demo accounts, which sign in with the printed passwords', async () => {
    const stores = DEMO_SUPPLIERS.reduce((n, s) => n + s.stores.length, 0);
    expect(first.created).toBe(first.entries.length);
    expect(idsOf(first, 'account')).toHaveLength(1 + DEMO_CLIENTS.length + DEMO_SUPPLIERS.length);
    expect(idsOf(first, 'supplier')).toHaveLength(DEMO_SUPPLIERS.length);
    expect(idsOf(first, 'store')).toHaveLength(stores);

    const admin = await login(DEMO_ADMIN.phoneNumber, DEMO_ADMIN.password);
    expect(admin.status).toBe(200);
    expect(admin.body.data.user.role).toBe('SUPER_ADMIN');
    for (const account of [...DEMO_CLIENTS, ...DEMO_SUPPLIERS.map((s) => s.owner)]) {
      const res = await login(account.phoneNumber, account.password);
      expect(res.status, account.phoneNumber).toBe(200);
      expect(res.body.data.user.role).toBe(account.role);
      expect(formatReport(first)).toContain(`phone ${account.phoneNumber}, password ${account.password}`);
    }
  });

  it('makes every supplier public through KYC approval and verification, with its documents on file', async () => {
    const admin = (await login(DEMO_ADMIN.phoneNumber, DEMO_ADMIN.password)).body.data.accessToken as string;
    for (const id of idsOf(first, 'supplier')) {
      const pub = await call(t.app, 'GET', `/suppliers/${id}`);
      expect(pub.status).toBe(200);
      expect(pub.body.data.timezone).toBe('Africa/Dakar');
      const attempts = await call(t.app, 'GET', '/admin/kyc/attempts', { token: admin, query: { supplierId: id } });
      expect(attempts.body.data).toHaveLength(1);
      expect(attempts.body.data[0].status).toBe('APPROVED');
      const detail = await call(t.app, 'GET', `/admin/kyc/attempts/${attempts.body.data[0].id}`, { token: admin });
      expect(detail.body.data.documents.map((d: { contentType: string }) => d.contentType).sort()).toEqual([
        'application/pdf',
        'image/jpeg',
      ]);
    }
  });

  it('publishes the demo products, each on its public page in its store', async () => {
    const ids = idsOf(first, 'product');
    expect(ids).toHaveLength(DEMO_PRODUCTS.length);
    for (const [i, id] of ids.entries()) {
      const page = await call(t.app, 'GET', `/products/${id}`);
      expect(page.status).toBe(200);
      expect(page.body.data).toMatchObject({ name: DEMO_PRODUCTS[i]!.name, store: { name: DEMO_PRODUCTS[i]!.store } });
    }
  });

  it('lets a demo client order a demo product', async () => {
    const client = (await login(DEMO_CLIENTS[0]!.phoneNumber, DEMO_CLIENTS[0]!.password)).body.data
      .accessToken as string;
    const mangoes = idsOf(first, 'product')[DEMO_PRODUCTS.findIndex((p) => p.name === 'Panier de mangues')]!;
    const order = await call(t.app, 'POST', '/orders', {
      token: client,
      body: { items: [{ productId: mangoes, quantity: 1 }], paymentMethod: 'wave' },
    });
    expect(order.status).toBe(201);
    expect(order.body.data).toMatchObject({ status: 'PENDING', itemsTotal: 1000, storeName: 'Primeurs de Ouakam' });
  });

  it('shows the suppliers and stores in public search and nearby around Dakar', async () => {
    const teranga = await call(t.app, 'GET', '/suppliers/search', { query: { q: 'boulangerie teranga' } });
    expect(teranga.body.data.map((s: { businessName: string }) => s.businessName)).toContain('Boulangerie Teranga');

    for (const [i, demo] of DEMO_SUPPLIERS.entries()) {
      const { latitude, longitude } = demo.profile;
      const near = await call(t.app, 'GET', '/suppliers/nearby', {
        query: { latitude, longitude, radiusKm: 1, limit: 100 },
      });
      expect(near.body.data.map((s: { id: string }) => s.id)).toContain(idsOf(first, 'supplier')[i]);
    }
    const storeIds = idsOf(first, 'store');
    const seededStores = DEMO_SUPPLIERS.flatMap((s) => s.stores);
    for (const [i, store] of seededStores.entries()) {
      const near = await call(t.app, 'GET', '/stores/nearby', {
        query: { latitude: store.latitude, longitude: store.longitude, radiusKm: 1, limit: 100 },
      });
      const found = near.body.data.find((s: { id: string }) => s.id === storeIds[i]);
      expect(found, store.name).toMatchObject({ name: store.name, distanceKm: 0, timezone: 'Africa/Dakar' });
    }
    // From the Médina, the bakery's two stores are the nearest seeded ones, nearest first.
    // Every page: other test files add stores around Dakar to the shared database.
    const names: string[] = [];
    for (let page = 1, more = true; more && page <= 10; page++) {
      const medina = await call(t.app, 'GET', '/stores/nearby', {
        query: { latitude: 14.6826, longitude: -17.4479, radiusKm: 3, limit: 100, page },
      });
      names.push(
        ...medina.body.data.map((s: { name: string }) => s.name).filter((n: string) => n.startsWith('Teranga ')),
      );
      more = medina.body.meta.hasMore;
    }
    expect(names).toEqual(['Teranga Médina', 'Teranga Plateau']);
  });

  it('ends the sessions it signed in with', () => {
    expect(sessionsAfterFirst.all).toBeGreaterThan(0);
    expect(sessionsAfterFirst.open).toBe(0);
  });

  it('creates nothing on a second run, and opens no session to find that out', async () => {
    const accounts = idsOf(first, 'account');
    const before = await sessionCounts(accounts);

    const second = await runSeed(t.app);
    expect(second.created).toBe(0);
    expect(second.entries.map((e) => [e.kind, e.id])).toEqual(first.entries.map((e) => [e.kind, e.id]));
    expect(formatReport(second)).toContain('Nothing new was created');
    expect(await sessionCounts(accounts)).toEqual(before);

    const stores = await call(t.app, 'GET', '/stores', { query: { city: 'Pikine', limit: 100 } });
    expect(stores.body.data.filter((s: { name: string }) => s.name === 'Keur Yaay Pikine')).toHaveLength(1);
  });
});
