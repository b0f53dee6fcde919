import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { adminActions } from '../../db/schema/audit.js';
import { notifications } from '../../db/schema/notifications.js';
import { storeMembers } from '../../db/schema/staff.js';
import { stores } from '../../db/schema/stores.js';
import { uuidv7 } from '../../shared/ids.js';
import { form, image } from '../products/products.test-support.js';
import { DAY, admin, dakarDate, dealBody, publishDeal, supplierWithStore } from './deals.test-support.js';

let t: TestApp;
let adminToken: string;
let adminId: string;
beforeAll(async () => {
  t = await buildTestApp();
  const a = await admin(t);
  adminToken = a.token;
  adminId = a.user.id;
});
afterAll(() => t.close());

const typesOf = async (userId: string) =>
  (
    await t.app.ctx.db.select({ type: notifications.type }).from(notifications).where(eq(notifications.userId, userId))
  ).map((n) => n.type);

describe('creating a deal', () => {
  it('waits for review, then an administrator approves it (audited, supplier told) and the public sees it', async () => {
    const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
    const created = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id) });
    expect(created.status).toBe(201);
    const d = created.body.data;
    expect(d).toMatchObject({
      status: 'PENDING_REVIEW',
      kind: 'SURPRISE_BAG',
      price: 1000,
      originalValue: 3000,
      discountPercent: 66,
      placesLeft: 10,
      placesPerClient: 2,
      paymentMode: 'AT_COUNTER',
    });
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(404);

    const pending = await call(t.app, 'GET', '/admin/deals/pending', { token: adminToken, query: { limit: 100 } });
    expect(pending.body.data.map((x: { id: string }) => x.id)).toContain(d.id);
    const approved = await call(t.app, 'POST', `/admin/deals/${d.id}/approve`, { token: adminToken });
    expect(approved.body.data.status).toBe('ACTIVE');
    const audit = await t.app.ctx.db
      .select()
      .from(adminActions)
      .where(and(eq(adminActions.targetId, d.id), eq(adminActions.actorId, adminId)));
    expect(audit.map((a) => a.action)).toEqual(['deal.approve']);
    expect(await typesOf(s.user.id)).toContain('deal_approved');

    const pub = await call(t.app, 'GET', `/deals/${d.id}`);
    expect(pub.status).toBe(200);
    expect(pub.body.data.store).toMatchObject({ id: s.store.id, openNow: true });
    // Approving twice is not a decision any more.
    expect((await call(t.app, 'POST', `/admin/deals/${d.id}/approve`, { token: adminToken })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
  });

  it('is open to SUPPLIER_FOOD suppliers too', async () => {
    const s = await supplierWithStore(t, { role: 'SUPPLIER_FOOD' });
    expect(
      (await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id) })).status,
    ).toBe(201);
  });

  it('computes the price of a percentage deal and refuses inconsistent prices, windows and places', async () => {
    const s = await supplierWithStore(t);
    const pct = await call(t.app, 'POST', '/supplier/deals', {
      token: s.token,
      body: dealBody(t, s.store.id, { kind: 'PERCENTAGE_OFF', price: undefined, discountPercent: 30 }),
    });
    expect(pct.body.data).toMatchObject({ price: 2100, discountPercent: 30 });
    const bad = async (over: Record<string, unknown>, field: string) => {
      const r = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id, over) });
      expect(r.status).toBe(400);
      expect(r.body.error.details.map((x: { field: string }) => x.field)).toContain(field);
    };
    await bad({ price: 3000 }, 'body.price');
    await bad({ price: undefined }, 'body.price');
    await bad({ kind: 'PERCENTAGE_OFF' }, 'body.price');
    await bad({ discountPercent: 20 }, 'body.discountPercent');
    await bad({ pickupStart: '20:00', pickupEnd: '18:00' }, 'body.pickupEnd');
    await bad({ validUntil: new Date(t.clock.now().getTime() - 1000).toISOString() }, 'body.validUntil');
    await bad({ placesPerClient: 20 }, 'body.placesPerClient');
    await bad({ pickupStart: '25:00' }, 'body.pickupStart');
    await bad({ extra: 1 }, 'body.extra');
  });

  it("only in a store of the caller that is active; another supplier's store is 404", async () => {
    const s = await supplierWithStore(t);
    const other = await supplierWithStore(t);
    expect(
      (await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, other.store.id) })).status,
    ).toBe(404);
    const inactive = await createStore(t.app, s, { isActive: false });
    expect(
      (await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, inactive.id) })).body.error
        .code,
    ).toBe('STORE_INACTIVE');
    expect((await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, uuidv7()) })).status).toBe(
      404,
    );
  });

  it('is refused to clients (403) and anonymous callers (401)', async () => {
    const c = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', '/supplier/deals', { token: c.token, body: {} })).status).toBe(403);
    expect((await call(t.app, 'POST', '/supplier/deals', { body: {} })).status).toBe(401);
  });
});

describe("a supplier's deals", () => {
  it('edits send an active deal back to review; a rejected one too, with the reason kept until then', async () => {
    const s = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken);
    const edited = await call(t.app, 'PUT', `/supplier/deals/${d.id}`, {
      token: s.token,
      body: { title: 'Panier du soir' },
    });
    expect(edited.body.data).toMatchObject({ title: 'Panier du soir', status: 'PENDING_REVIEW' });
    const rejected = await call(t.app, 'POST', `/admin/deals/${d.id}/reject`, {
      token: adminToken,
      body: { reason: 'Photos manquantes' },
    });
    expect(rejected.body.data).toMatchObject({ status: 'REJECTED', rejectionReason: 'Photos manquantes' });
    expect(await typesOf(s.user.id)).toContain('deal_rejected');
    expect(
      (await call(t.app, 'POST', `/admin/deals/${d.id}/reject`, { token: adminToken, body: { reason: 'x' } })).status,
    ).toBe(400);
    const again = await call(t.app, 'PUT', `/supplier/deals/${d.id}`, { token: s.token, body: { price: 900 } });
    expect(again.body.data).toMatchObject({ status: 'PENDING_REVIEW', price: 900, rejectionReason: null });
    expect((await call(t.app, 'PUT', `/supplier/deals/${d.id}`, { token: s.token, body: {} })).status).toBe(400);
  });

  it('pauses and resumes; the public page hides a paused deal; only ACTIVE and PAUSED toggle', async () => {
    const s = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken);
    const paused = await call(t.app, 'POST', `/supplier/deals/${d.id}/toggle-pause`, { token: s.token });
    expect(paused.body.data.status).toBe('PAUSED');
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(404);
    expect(
      (await call(t.app, 'POST', `/supplier/deals/${d.id}/toggle-pause`, { token: s.token })).body.data.status,
    ).toBe('ACTIVE');
    const pending = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id) });
    if (pending.body.data.status === 'PENDING_REVIEW') {
      expect(
        (await call(t.app, 'POST', `/supplier/deals/${pending.body.data.id}/toggle-pause`, { token: s.token })).body
          .error.code,
      ).toBe('INVALID_TRANSITION');
    }
  });

  it("lists the caller's deals with their shown state (SOLD_OUT and EXPIRED derived), filtered", async () => {
    const s = await supplierWithStore(t);
    const a = await publishDeal(t, s, adminToken, {
      validUntil: new Date(t.clock.now().getTime() + 2 * DAY).toISOString(),
    });
    const b = await publishDeal(t, s, adminToken, { totalPlaces: 1, placesPerClient: 1 });
    const c = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/deals/${b.id}/book`, { token: c.token, body: { quantity: 1 } })).status).toBe(
      201,
    );
    const all = await call(t.app, 'GET', '/supplier/deals', { token: s.token });
    expect(all.body.meta.total).toBe(2);
    expect(new Map(all.body.data.map((x: { id: string; status: string }) => [x.id, x.status]))).toEqual(
      new Map([
        [a.id, 'ACTIVE'],
        [b.id, 'SOLD_OUT'],
      ]),
    );
    expect(
      (await call(t.app, 'GET', '/supplier/deals', { token: s.token, query: { status: 'SOLD_OUT' } })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([b.id]);
    // Another supplier sees none of them.
    const other = await supplierWithStore(t);
    expect((await call(t.app, 'GET', '/supplier/deals', { token: other.token })).body.meta.total).toBe(0);
    // A store manager sees the store's deals and may edit them; a STAFF member may not.
    const manager = await createSupplier(t.app);
    const staff = await createSupplier(t.app);
    const at = t.clock.now();
    await t.app.ctx.db.insert(storeMembers).values([
      { id: uuidv7(), storeId: s.store.id, userId: manager.user.id, role: 'MANAGER', createdAt: at, updatedAt: at },
      { id: uuidv7(), storeId: s.store.id, userId: staff.user.id, role: 'STAFF', createdAt: at, updatedAt: at },
    ]);
    expect((await call(t.app, 'GET', '/supplier/deals', { token: manager.token })).body.meta.total).toBe(2);
    expect(
      (await call(t.app, 'PUT', `/supplier/deals/${a.id}`, { token: manager.token, body: { terms: 'Sur place' } }))
        .status,
    ).toBe(200);
    expect(
      (await call(t.app, 'PUT', `/supplier/deals/${a.id}`, { token: staff.token, body: { terms: 'x' } })).status,
    ).toBe(403);
  });

  it('another supplier: 403 NOT_OWNER on a public deal, 404 on a hidden one; malformed id 400', async () => {
    const s = await supplierWithStore(t);
    const other = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken);
    expect(
      (await call(t.app, 'PUT', `/supplier/deals/${d.id}`, { token: other.token, body: { title: 'Mine' } })).body.error
        .code,
    ).toBe('NOT_OWNER');
    await call(t.app, 'POST', `/supplier/deals/${d.id}/toggle-pause`, { token: s.token });
    expect((await call(t.app, 'DELETE', `/supplier/deals/${d.id}`, { token: other.token })).status).toBe(404);
    expect((await call(t.app, 'PUT', '/supplier/deals/nope', { token: s.token, body: { title: 'abc' } })).status).toBe(
      400,
    );
    expect((await call(t.app, 'GET', `/deals/${uuidv7()}`)).status).toBe(404);
  });

  it('deletion is refused while bookings are to be collected, also for the store and the supplier', async () => {
    const s = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken);
    const c = await createSignedIn(t.app);
    const booked = await call(t.app, 'POST', `/deals/${d.id}/book`, {
      token: c.token,
      body: { quantity: 1, pickupDate: dakarDate(t, 1) },
    });
    expect(booked.status).toBe(201);
    expect((await call(t.app, 'DELETE', `/supplier/deals/${d.id}`, { token: s.token })).body.error.code).toBe(
      'DEAL_HAS_OPEN_BOOKINGS',
    );
    const store = await call(t.app, 'DELETE', `/supplier/stores/${s.store.id}`, { token: s.token });
    expect(store.status).toBe(409);
    expect(store.body.error.message).toContain('deal booking');
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(409);
    expect(
      (await call(t.app, 'POST', `/deals/bookings/${booked.body.data.id}/cancel`, { token: c.token })).status,
    ).toBe(200);
    expect((await call(t.app, 'DELETE', `/supplier/deals/${d.id}`, { token: s.token })).body.data.message).toBe(
      'Deal deleted',
    );
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/supplier/deals/${d.id}`, { token: s.token })).status).toBe(404);
  });

  it('pictures: JPEG, PNG or WebP, at most 5, deleted one by one', async () => {
    const s = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken);
    const png = await image(64, 48, 'png');
    const added = await t.app.inject({
      method: 'POST',
      url: `/api/v1/supplier/deals/${d.id}/images`,
      headers: { authorization: `Bearer ${s.token}` },
      payload: form([['images', png, 'a.png']]) as never,
    });
    expect(added.statusCode).toBe(200);
    const body = added.json().data;
    expect(body.images).toHaveLength(1);
    expect(body.images[0].thumbnailUrl).toMatch(/\/files\/public\/deals\//);
    const text = await t.app.inject({
      method: 'POST',
      url: `/api/v1/supplier/deals/${d.id}/images`,
      headers: { authorization: `Bearer ${s.token}` },
      payload: form([['images', Buffer.from('not an image'), 'a.txt']]) as never,
    });
    expect(text.statusCode).toBe(415);
    const six = await t.app.inject({
      method: 'POST',
      url: `/api/v1/supplier/deals/${d.id}/images`,
      headers: { authorization: `Bearer ${s.token}` },
      payload: form(
        Array.from({ length: 5 }, (_, i) => ['images', png, `${i}.png`] as [string, Buffer, string]),
      ) as never,
    });
    expect(six.statusCode).toBe(422);
    const removed = await call(t.app, 'DELETE', `/supplier/deals/${d.id}/images`, {
      token: s.token,
      query: { imageId: body.images[0].id },
    });
    expect(removed.body.data.images).toEqual([]);
    expect(
      (
        await call(t.app, 'DELETE', `/supplier/deals/${d.id}/images`, {
          token: s.token,
          query: { imageId: body.images[0].id },
        })
      ).status,
    ).toBe(404);
  });
});

describe('administration', () => {
  it('is for administrators only; reject needs a reason; unknown deals 404', async () => {
    const s = await supplierWithStore(t);
    expect((await call(t.app, 'GET', '/admin/deals/pending', { token: s.token })).status).toBe(403);
    expect((await call(t.app, 'POST', `/admin/deals/${uuidv7()}/approve`, { token: adminToken })).status).toBe(404);
    const created = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id) });
    expect(
      (await call(t.app, 'POST', `/admin/deals/${created.body.data.id}/reject`, { token: adminToken, body: {} }))
        .status,
    ).toBe(400);
  });
});

describe('expiry', () => {
  it('public visibility follows the store and the supplier, and ends the second the deal expires', async () => {
    const s = await supplierWithStore(t);
    const d = await publishDeal(t, s, adminToken, {
      validUntil: new Date(t.clock.now().getTime() + 5 * 60_000).toISOString(),
    });
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(200);
    await t.app.ctx.db.update(stores).set({ isActive: false }).where(eq(stores.id, s.store.id));
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(404);
    await t.app.ctx.db.update(stores).set({ isActive: true }).where(eq(stores.id, s.store.id));
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(200);
    // Tokens live 15 minutes: the clock moves 5, in the last test of the file.
    t.clock.advance(5 * 60_000);
    expect((await call(t.app, 'GET', `/deals/${d.id}`)).status).toBe(404);
    expect(
      (await call(t.app, 'GET', '/supplier/deals', { token: s.token, query: { status: 'EXPIRED' } })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([d.id]);
    expect(
      (await call(t.app, 'POST', `/supplier/deals/${d.id}/toggle-pause`, { token: s.token })).body.error.code,
    ).toBe('DEAL_EXPIRED');
  });
});
