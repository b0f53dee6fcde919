import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { products } from '../../db/schema/products.js';
import { uuidv7 } from '../../shared/ids.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { HOUR, admin as makeAdmin, publishProduct, supplierWithStore } from '../products/products.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

type Supplier = Awaited<ReturnType<typeof supplierWithStore>>;
type Association = Awaited<ReturnType<typeof createAssociation>>;

const stock = async (productId: string) => {
  const [p] = await t.app.ctx.db
    .select({
      quantity: products.quantity,
      reserved: products.reservedQuantity,
      sold: products.soldQuantity,
      sales: products.salesCount,
      unitWeightGrams: products.unitWeightGrams,
    })
    .from(products)
    .where(eq(products.id, productId));
  return p!;
};
const window = (fromHours = 1, toHours = 5) => ({
  pickupWindowStart: new Date(t.clock.now().getTime() + fromHours * HOUR).toISOString(),
  pickupWindowEnd: new Date(t.clock.now().getTime() + toHours * HOUR).toISOString(),
});
const donate = (s: { token: string }, body: Record<string, unknown>) =>
  call(t.app, 'POST', '/donations/food', { token: s.token, body });
const inbox = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    data: Record<string, unknown>;
  }[];

async function setup(quantity = 10) {
  const supplier = await supplierWithStore(t);
  const product = await publishProduct(t, supplier, (await makeAdmin(t)).token, { quantity });
  const association = await createAssociation(t.app);
  return { supplier, product, association };
}

async function foodDonation(supplier: Supplier, association: Association, productId: string, quantity = 2) {
  const res = await donate(supplier, {
    associationId: association.association.id,
    items: [
      { productId, quantity },
      { name: 'Sacs de riz', quantity: 2, unitWeightGrams: 5000 },
    ],
    ...window(),
    message: 'Pour la distribution de ce soir',
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

describe('creating a food donation', () => {
  it('takes catalog units from stock, records free-form items with their weight, and tells the association', async () => {
    const { supplier, product, association } = await setup();
    const unit = (await stock(product.id)).unitWeightGrams;
    const d = await foodDonation(supplier, association, product.id, 3);
    expect(d).toMatchObject({
      kind: 'FOOD',
      status: 'PENDING',
      supplierId: supplier.profile.id,
      associationId: association.association.id,
      donorUserId: supplier.user.id,
      totalWeightGrams: 3 * unit + 10_000,
      message: 'Pour la distribution de ce soir',
      history: [{ from: null, to: 'PENDING', actorId: supplier.user.id }],
    });
    expect(d.items).toEqual([
      { productId: product.id, name: 'Pain de campagne', quantity: 3, unitWeightGrams: unit, weightGrams: 3 * unit },
      { productId: null, name: 'Sacs de riz', quantity: 2, unitWeightGrams: 5000, weightGrams: 10_000 },
    ]);
    expect(await stock(product.id)).toMatchObject({ quantity: 7, reserved: 3 });
    expect((await inbox(association.token)).find((n) => n.type === 'donation_received')?.data).toMatchObject({
      donationId: d.id,
    });
    const mine = await call(t.app, 'GET', '/donations/my-donations', { token: supplier.token });
    expect(mine.body.data.map((x: { id: string }) => x.id)).toEqual([d.id]);
    expect(mine.body.meta.total).toBe(1);
  });

  it('refuses bad items, windows, associations and products by field, writing nothing', async () => {
    const { supplier, product, association } = await setup(5);
    const other = await setup();
    const base = { associationId: association.association.id, ...window() };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, items: [] }, 400, 'body.items'],
      [{ ...base, items: [{ name: 'Riz', quantity: 1 }] }, 400, 'body.items.0.unitWeightGrams'],
      [{ ...base, items: [{ quantity: 1, unitWeightGrams: 10 }] }, 400, 'body.items.0.name'],
      [
        { ...base, items: [{ productId: product.id, quantity: 1, unitWeightGrams: 10 }] },
        400,
        'body.items.0.unitWeightGrams',
      ],
      [
        {
          ...base,
          items: [
            { productId: product.id, quantity: 1 },
            { productId: product.id, quantity: 1 },
          ],
        },
        400,
        'body.items.1.productId',
      ],
      [{ ...base, items: [{ productId: product.id, quantity: 0 }] }, 400, 'body.items.0.quantity'],
      [{ ...base, ...window(5, 1), items: [{ productId: product.id, quantity: 1 }] }, 400, 'body.pickupWindowEnd'],
      [{ ...base, ...window(-5, -1), items: [{ productId: product.id, quantity: 1 }] }, 400, 'body.pickupWindowEnd'],
      [
        { ...base, ...window(24 * 40, 24 * 41), items: [{ productId: product.id, quantity: 1 }] },
        400,
        'body.pickupWindowStart',
      ],
      [{ ...base, items: [{ productId: other.product.id, quantity: 1 }] }, 404, 'body.items.0.productId'],
      [{ ...base, items: [{ productId: uuidv7(), quantity: 1 }] }, 404, 'body.items.0.productId'],
      [
        { ...base, associationId: uuidv7(), items: [{ productId: product.id, quantity: 1 }] },
        404,
        'body.associationId',
      ],
      [
        {
          ...base,
          associationId: (await createAssociation(t.app, { verification: 'PENDING' })).association.id,
          items: [{ productId: product.id, quantity: 1 }],
        },
        404,
        'body.associationId',
      ],
      [{ ...base, items: [{ productId: product.id, quantity: 6 }] }, 409, 'body.items.0.quantity'],
    ];
    for (const [body, status, field] of cases) {
      const res = await donate(supplier, body);
      expect(res.status, field).toBe(status);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        field,
      ).toContain(field);
    }
    const heavy = await donate(supplier, {
      ...base,
      items: [{ name: 'Farine', quantity: 100, unitWeightGrams: 25_000 }],
    });
    expect(heavy.status).toBe(409);
    expect(heavy.body.error.code).toBe('ABOVE_PICKUP_CAPACITY');
    expect(await stock(product.id)).toMatchObject({ quantity: 5, reserved: 0 });
    expect((await call(t.app, 'GET', '/donations/my-donations', { token: supplier.token })).body.data).toEqual([]);

    const client = await createSignedIn(t.app);
    expect((await donate(client, { ...base, items: [{ name: 'Riz', quantity: 1, unitWeightGrams: 10 }] })).status).toBe(
      403,
    );
    expect(
      (await donate(association, { ...base, items: [{ name: 'Riz', quantity: 1, unitWeightGrams: 10 }] })).status,
    ).toBe(403);
  });

  it('gives the last unit to exactly one of two concurrent donations', async () => {
    const { supplier, product, association } = await setup(1);
    const body = {
      associationId: association.association.id,
      items: [{ productId: product.id, quantity: 1 }],
      ...window(),
    };
    const results = await Promise.all([donate(supplier, body), donate(supplier, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.error.code).toBe('INSUFFICIENT_STOCK');
    expect(await stock(product.id)).toMatchObject({ quantity: 0, reserved: 1 });
    expect((await call(t.app, 'GET', '/donations/my-donations', { token: supplier.token })).body.meta.total).toBe(1);
  });
});

describe('the life of a donation', () => {
  it('accepted, scheduled within the window, rescheduled, collected: units leave as given, not sold', async () => {
    const { supplier, product, association } = await setup();
    const d = await foodDonation(supplier, association, product.id, 2);
    const url = `/donations/${d.id}`;
    expect((await call(t.app, 'POST', `${url}/confirm-pickup`, { token: association.token })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
    const accepted = await call(t.app, 'PATCH', `${url}/status`, {
      token: association.token,
      body: { status: 'ACCEPTED' },
    });
    expect(accepted.body.data.status).toBe('ACCEPTED');
    expect((await inbox(supplier.token)).find((n) => n.type === 'donation_status_changed')?.data).toMatchObject({
      donationId: d.id,
      status: 'ACCEPTED',
    });

    const outside = await call(t.app, 'POST', `${url}/schedule-pickup`, {
      token: association.token,
      body: { pickupAt: new Date(t.clock.now().getTime() + 10 * HOUR).toISOString() },
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details[0].field).toBe('body.pickupAt');
    const noTime = await call(t.app, 'PATCH', `${url}/status`, {
      token: association.token,
      body: { status: 'PICKUP_SCHEDULED' },
    });
    expect(noTime.body.error.details[0].field).toBe('body.pickupAt');
    const at = new Date(t.clock.now().getTime() + 2 * HOUR).toISOString();
    const scheduled = await call(t.app, 'POST', `${url}/schedule-pickup`, {
      token: association.token,
      body: { pickupAt: at, note: 'Camionnette blanche' },
    });
    expect(scheduled.body.data).toMatchObject({
      status: 'PICKUP_SCHEDULED',
      scheduledPickupAt: at,
      pickupNote: 'Camionnette blanche',
    });
    const later = new Date(t.clock.now().getTime() + 3 * HOUR).toISOString();
    expect(
      (await call(t.app, 'POST', `${url}/schedule-pickup`, { token: association.token, body: { pickupAt: later } }))
        .body.data.scheduledPickupAt,
    ).toBe(later);

    const pending = await call(t.app, 'GET', '/associations/donations/pending-pickups', { token: association.token });
    expect(pending.body.data.map((x: { id: string }) => x.id)).toEqual([d.id]);

    const collected = await call(t.app, 'POST', `${url}/confirm-pickup`, { token: association.token });
    expect(collected.body.data.status).toBe('COLLECTED');
    expect(Date.parse(collected.body.data.collectedAt)).toBeLessThanOrEqual(t.clock.now().getTime());
    expect(collected.body.data.history.map((h: { to: string }) => h.to)).toEqual([
      'PENDING',
      'ACCEPTED',
      'PICKUP_SCHEDULED',
      'PICKUP_SCHEDULED',
      'COLLECTED',
    ]);
    expect(await stock(product.id)).toMatchObject({ quantity: 8, reserved: 0, sold: 2, sales: 0 });
    expect((await call(t.app, 'POST', `${url}/cancel`, { token: supplier.token })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
    expect(
      (await call(t.app, 'GET', '/associations/donations/pending-pickups', { token: association.token })).body.data,
    ).toEqual([]);
  });

  it('cancelled by the donor or declined by the association: the units come back to stock', async () => {
    const { supplier, product, association } = await setup();
    const first = await foodDonation(supplier, association, product.id, 4);
    const second = await foodDonation(supplier, association, product.id, 3);
    expect(await stock(product.id)).toMatchObject({ quantity: 3, reserved: 7 });

    await call(t.app, 'PATCH', `/donations/${first.id}/status`, {
      token: association.token,
      body: { status: 'ACCEPTED' },
    });
    const cancelled = await call(t.app, 'POST', `/donations/${first.id}/cancel`, {
      token: supplier.token,
      body: { reason: 'Stock vendu en boutique' },
    });
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', closingReason: 'Stock vendu en boutique' });
    expect(await stock(product.id)).toMatchObject({ quantity: 7, reserved: 3 });
    expect(
      (await inbox(association.token)).some(
        (n) => n.type === 'donation_status_changed' && n.data.status === 'CANCELLED',
      ),
    ).toBe(true);

    const declined = await call(t.app, 'PATCH', `/donations/${second.id}/status`, {
      token: association.token,
      body: { status: 'DECLINED', reason: 'Pas de chambre froide' },
    });
    expect(declined.body.data).toMatchObject({ status: 'DECLINED', closingReason: 'Pas de chambre froide' });
    expect(await stock(product.id)).toMatchObject({ quantity: 10, reserved: 0 });
    expect(
      (await call(t.app, 'POST', `/donations/${second.id}/cancel`, { token: supplier.token })).body.error.code,
    ).toBe('INVALID_TRANSITION');
  });

  it('lets each party do only its part: others 403, strangers 404', async () => {
    const { supplier, product, association } = await setup();
    const d = await foodDonation(supplier, association, product.id);
    const url = `/donations/${d.id}`;
    const stranger = await createSignedIn(t.app);
    const otherAssociation = await createAssociation(t.app);
    const otherSupplier = await supplierWithStore(t);

    for (const who of [stranger, otherAssociation, otherSupplier]) {
      expect((await call(t.app, 'GET', url, { token: who.token })).status).toBe(404);
      expect(
        (await call(t.app, 'PATCH', `${url}/status`, { token: who.token, body: { status: 'CANCELLED' } })).status,
      ).toBe(404);
      expect((await call(t.app, 'POST', `${url}/cancel`, { token: who.token })).status).toBe(404);
    }
    expect(
      (
        await call(t.app, 'POST', `${url}/schedule-pickup`, {
          token: otherAssociation.token,
          body: { pickupAt: window().pickupWindowStart },
        })
      ).status,
    ).toBe(404);
    expect((await call(t.app, 'POST', `${url}/confirm-pickup`, { token: otherAssociation.token })).status).toBe(404);
    // Role guards come first.
    expect(
      (
        await call(t.app, 'POST', `${url}/schedule-pickup`, {
          token: supplier.token,
          body: { pickupAt: window().pickupWindowStart },
        })
      ).status,
    ).toBe(403);

    const donorAccepts = await call(t.app, 'PATCH', `${url}/status`, {
      token: supplier.token,
      body: { status: 'ACCEPTED' },
    });
    expect(donorAccepts.status).toBe(403);
    const associationCancels = await call(t.app, 'POST', `${url}/cancel`, { token: association.token });
    expect(associationCancels.status).toBe(403);
    expect((await call(t.app, 'GET', url, { token: association.token })).body.data.status).toBe('PENDING');
    expect((await call(t.app, 'GET', url, { token: supplier.token })).body.data.id).toBe(d.id);
    expect((await call(t.app, 'GET', `/donations/${uuidv7()}`, { token: supplier.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/donations/xyz', { token: supplier.token })).status).toBe(400);
    expect(
      (await call(t.app, 'PATCH', `${url}/status`, { token: association.token, body: { status: 'PENDING' } })).status,
    ).toBe(400);
  });

  it('keeps a product with units in an open donation from being deleted', async () => {
    const { supplier, product, association } = await setup();
    const d = await foodDonation(supplier, association, product.id);
    const refused = await call(t.app, 'DELETE', `/products/${product.id}`, { token: supplier.token });
    expect(refused.status).toBe(409);
    await call(t.app, 'POST', `/donations/${d.id}/cancel`, { token: supplier.token });
    expect((await call(t.app, 'DELETE', `/products/${product.id}`, { token: supplier.token })).status).toBe(200);
  });
});

describe('the association side', () => {
  it('lists received donations by state and counts them by month with kg and impact', async () => {
    const { supplier, product, association } = await setup();
    const a = await foodDonation(supplier, association, product.id, 1);
    const b = await foodDonation(supplier, association, product.id, 1);
    await call(t.app, 'PATCH', `/donations/${a.id}/status`, { token: association.token, body: { status: 'ACCEPTED' } });
    await call(t.app, 'POST', `/donations/${a.id}/schedule-pickup`, {
      token: association.token,
      body: { pickupAt: window(2).pickupWindowStart },
    });
    await call(t.app, 'POST', `/donations/${a.id}/confirm-pickup`, { token: association.token });

    const received = await call(t.app, 'GET', '/associations/donations', { token: association.token });
    expect(received.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    const collectedOnly = await call(t.app, 'GET', '/associations/donations', {
      token: association.token,
      query: { status: 'COLLECTED' },
    });
    expect(collectedOnly.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);

    const stats = (
      await call(t.app, 'GET', '/associations/donations/stats', { token: association.token, query: { months: 3 } })
    ).body.data;
    const grams = a.totalWeightGrams as number;
    expect(stats).toMatchObject({
      associationId: association.association.id,
      received: 2,
      byStatus: { COLLECTED: 1, PENDING: 1 },
      collected: { count: 1, kg: grams / 1000 },
    });
    expect(stats.byMonth).toHaveLength(3);
    expect(stats.byMonth[2]).toEqual({
      month: t.clock.now().toISOString().slice(0, 7),
      received: 2,
      collected: 1,
      kgCollected: grams / 1000,
      amountReceived: 0,
    });
    expect(stats.impact).toEqual({
      kgCollected: grams / 1000,
      mealsEquivalent: Math.floor(grams / 420),
      co2eAvoidedKg: Math.round(grams * 2.5) / 1000,
    });

    const noProfile = await createSignedIn(t.app, { role: 'ASSOCIATION' });
    for (const url of [
      '/associations/donations',
      '/associations/donations/pending-pickups',
      '/associations/donations/stats',
    ]) {
      const res = await call(t.app, 'GET', url, { token: noProfile.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('ASSOCIATION_PROFILE_REQUIRED');
      expect((await call(t.app, 'GET', url, { token: supplier.token })).status).toBe(403);
    }
    expect(
      (await call(t.app, 'GET', '/associations/donations/stats', { token: association.token, query: { months: 30 } }))
        .status,
    ).toBe(400);
  });
});
