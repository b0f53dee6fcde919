import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';
import { admin, productBody, publishProduct, supplierWithStore } from './products.test-support.js';

let t: TestApp;
let adminToken: string;
let adminId: string;
const busy = new Set<string>();
// Events heard, as the notifications module will hear them.
const heard: { name: string; productId: string; reason?: string }[] = [];
beforeAll(async () => {
  t = await buildTestApp({}, undefined, {
    beforeStart: (app) => {
      for (const name of [
        'products.created',
        'products.approved',
        'products.rejected',
        'products.published',
      ] as const) {
        app.ctx.events.subscribe(name, 'test', async (payload) => {
          heard.push({ name, ...payload });
        });
      }
    },
  });
  const a = await admin(t);
  adminToken = a.token;
  adminId = a.user.id;
  t.app.ctx.workInProgress.register(async (_ex, scope) =>
    'productId' in scope && busy.has(scope.productId) ? '1 order in progress' : null,
  );
});
afterAll(() => t.close());

const create = async (s: { token: string; store: { id: string } }, over: Record<string, unknown> = {}) => {
  const res = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id, over) });
  return res.body.data as { id: string };
};
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);

describe('admin products', () => {
  it('is for administrators only', async () => {
    const client = await createSignedIn(t.app);
    const s = await supplierWithStore(t);
    for (const token of [client.token, s.token]) {
      expect((await call(t.app, 'GET', '/admin/products', { token })).status).toBe(403);
      expect(
        (await call(t.app, 'POST', '/admin/products/bulk-approve', { token, body: { ids: [uuidv7()] } })).status,
      ).toBe(403);
    }
    expect((await call(t.app, 'GET', '/admin/products/moderation')).status).toBe(401);
  });

  it('lists with filters: status, supplier, store, category, words without accents', async () => {
    const s = await supplierWithStore(t);
    const a = await create(s, { name: 'Crème brûlée maison', category: 'DAIRY' });
    const b = await publishProduct(t, s, adminToken, { name: 'Thiéboudienne', category: 'PREPARED_MEALS' });
    const bySupplier = await call(t.app, 'GET', '/admin/products', {
      token: adminToken,
      query: { supplierId: s.profile.id },
    });
    expect(ids(bySupplier).sort()).toEqual([a.id, b.id].sort());
    expect(
      ids(
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { supplierId: s.profile.id, status: 'ACTIVE' },
        }),
      ),
    ).toEqual([b.id]);
    expect(
      ids(
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { storeId: s.store.id, category: 'DAIRY' },
        }),
      ),
    ).toEqual([a.id]);
    expect(
      ids(
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { supplierId: s.profile.id, q: 'CREME brulee' },
        }),
      ),
    ).toEqual([a.id]);
    expect(
      ids(
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { supplierId: s.profile.id, q: 'thieb' },
        }),
      ),
    ).toEqual([b.id]);
    expect(
      ids(
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { supplierId: s.profile.id, q: '100%_' },
        }),
      ),
    ).toEqual([]);
    const malformed: Record<string, string | number>[] = [
      { category: 'CARS' },
      { page: 0 },
      { limit: 1000 },
      { status: 'GONE' },
      { supplierId: 'x' },
      { q: '' },
      { extra: 1 },
    ];
    for (const query of malformed) {
      const res = await call(t.app, 'GET', '/admin/products', { token: adminToken, query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.details[0].field).toMatch(/^query\./);
    }
  });

  it('queues products to review oldest first; approves and rejects with a reason, audited', async () => {
    const s = await supplierWithStore(t);
    const first = await create(s);
    t.clock.advance(1000);
    const second = await create(s);
    const queue = await call(t.app, 'GET', '/admin/products/moderation', { token: adminToken, query: { limit: 100 } });
    const order = ids(queue).filter((id) => id === first.id || id === second.id);
    expect(order).toEqual([first.id, second.id]);

    const approved = await call(t.app, 'PATCH', `/admin/products/${first.id}/approve`, { token: adminToken });
    expect(approved.body.data).toMatchObject({ status: 'ACTIVE' });
    expect(approved.body.data.publishedAt).not.toBeNull();
    const again = await call(t.app, 'PATCH', `/admin/products/${first.id}/approve`, { token: adminToken });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_TRANSITION');

    expect(
      (await call(t.app, 'PATCH', `/admin/products/${second.id}/reject`, { token: adminToken, body: {} })).status,
    ).toBe(400);
    const rejected = await call(t.app, 'PATCH', `/admin/products/${second.id}/reject`, {
      token: adminToken,
      body: { reason: 'Prix barré invraisemblable' },
    });
    expect(rejected.body.data).toMatchObject({ status: 'REJECTED', rejectionReason: 'Prix barré invraisemblable' });
    const audit = await listAdminActions(t.app.ctx.db, 'product', second.id);
    expect(audit[0]).toMatchObject({
      actorId: adminId,
      action: 'product.reject',
      reason: 'Prix barré invraisemblable',
    });
    expect((await call(t.app, 'PATCH', `/admin/products/${uuidv7()}/approve`, { token: adminToken })).status).toBe(404);

    await t.app.jobs.drain();
    // Each (event, handler) pair is its own job: compare without order.
    const about = (id: string) =>
      heard
        .filter((h) => h.productId === id)
        .map((h) => h.name)
        .sort();
    expect(about(first.id)).toEqual(['products.approved', 'products.created', 'products.published']);
    expect(about(second.id)).toEqual(['products.created', 'products.rejected']);
    expect(heard.find((h) => h.name === 'products.rejected' && h.productId === second.id)?.reason).toBe(
      'Prix barré invraisemblable',
    );
  });

  it('names the supplier and the store of each listed product, unverified or deleted ones too', async () => {
    const s = await supplierWithStore(t, { verification: 'PENDING', businessName: 'Fromagerie de Ngor' });
    const waiting = await create(s);
    const moderation = await call(t.app, 'GET', '/admin/products/moderation', {
      token: adminToken,
      query: { limit: 100 },
    });
    const row = moderation.body.data.find((p: { id: string }) => p.id === waiting.id);
    expect(row).toMatchObject({
      supplier: { id: s.profile.id, businessName: 'Fromagerie de Ngor', verificationStatus: 'PENDING', deleted: false },
      store: { id: s.store.id, name: s.store.name, city: 'Dakar' },
    });
    expect(row.images).toEqual([]);

    await t.app.ctx.db
      .update(supplierProfiles)
      .set({ deletedAt: t.clock.now() })
      .where(eq(supplierProfiles.id, s.profile.id));
    const listed = await call(t.app, 'GET', '/admin/products', {
      token: adminToken,
      query: { supplierId: s.profile.id },
    });
    expect(listed.body.data[0].supplier).toEqual({
      id: s.profile.id,
      businessName: 'Fromagerie de Ngor',
      verificationStatus: 'PENDING',
      deleted: true,
    });
  });

  it('changes the status of an approved product, and refuses other moves', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const off = await call(t.app, 'PATCH', `/admin/products/${p.id}/status`, {
      token: adminToken,
      body: { status: 'INACTIVE', reason: 'Signalé par des clients' },
    });
    expect(off.body.data.status).toBe('INACTIVE');
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    expect(
      (await call(t.app, 'PATCH', `/admin/products/${p.id}/status`, { token: adminToken, body: { status: 'ACTIVE' } }))
        .body.data.status,
    ).toBe('ACTIVE');
    const pending = await create(s);
    expect(
      (
        await call(t.app, 'PATCH', `/admin/products/${pending.id}/status`, {
          token: adminToken,
          body: { status: 'ACTIVE' },
        })
      ).status,
    ).toBe(409);
    expect(
      (await call(t.app, 'PATCH', `/admin/products/${p.id}/status`, { token: adminToken, body: { status: 'DELETED' } }))
        .status,
    ).toBe(400);
    const audit = await listAdminActions(t.app.ctx.db, 'product', p.id);
    expect(audit.map((a) => a.action)).toContain('product.status');
  });

  it('deletes, refusing while orders are in progress', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    busy.add(p.id);
    const refused = await call(t.app, 'DELETE', `/admin/products/${p.id}`, { token: adminToken });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('PRODUCT_HAS_ACTIVE_ORDERS');
    busy.delete(p.id);
    expect(
      (
        await call(t.app, 'DELETE', `/admin/products/${p.id}`, {
          token: adminToken,
          query: { reason: 'Produit interdit' },
        })
      ).status,
    ).toBe(200);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/admin/products/${p.id}`, { token: adminToken })).status).toBe(404);
    expect((await listAdminActions(t.app.ctx.db, 'product', p.id))[0]).toMatchObject({
      action: 'product.delete',
      reason: 'Produit interdit',
    });
  });

  it('bulk-approves all or nothing, each decision audited', async () => {
    const s = await supplierWithStore(t);
    const a = await create(s);
    const b = await create(s);
    const active = await publishProduct(t, s, adminToken);
    const refused = await call(t.app, 'POST', '/admin/products/bulk-approve', {
      token: adminToken,
      body: { ids: [a.id, b.id, active.id, uuidv7()] },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).toEqual(['body.ids.2', 'body.ids.3']);
    expect(
      (
        await call(t.app, 'GET', '/admin/products', {
          token: adminToken,
          query: { supplierId: s.profile.id, status: 'ACTIVE' },
        })
      ).body.meta.total,
    ).toBe(1);

    const ok = await call(t.app, 'POST', '/admin/products/bulk-approve', {
      token: adminToken,
      body: { ids: [a.id, b.id], reason: 'Catalogue conforme' },
    });
    expect(ok.body.data).toEqual({ approved: 2, ids: [a.id, b.id] });
    for (const id of [a.id, b.id]) {
      expect((await call(t.app, 'GET', `/products/${id}`)).status).toBe(200);
      expect((await listAdminActions(t.app.ctx.db, 'product', id))[0]).toMatchObject({
        action: 'product.approve',
        reason: 'Catalogue conforme',
      });
    }
    const tooMany = Array.from({ length: 101 }, () => uuidv7());
    expect(
      (await call(t.app, 'POST', '/admin/products/bulk-approve', { token: adminToken, body: { ids: tooMany } })).status,
    ).toBe(400);
    expect(
      (await call(t.app, 'POST', '/admin/products/bulk-approve', { token: adminToken, body: { ids: [] } })).status,
    ).toBe(400);
    expect(
      (await call(t.app, 'POST', '/admin/products/bulk-approve', { token: adminToken, body: { ids: [a.id, a.id] } }))
        .status,
    ).toBe(400);
  });
});
