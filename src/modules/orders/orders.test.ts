import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createStore } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { orders } from '../../db/schema/orders.js';
import { products } from '../../db/schema/products.js';
import { storeMembers } from '../../db/schema/staff.js';
import { stores } from '../../db/schema/stores.js';
import { uuidv7 } from '../../shared/ids.js';
import { commissionOf } from '../../shared/money.js';
import {
  admin,
  markOrderPaidForTest,
  publish,
  newClient,
  orderOk,
  placeOrder,
  productState,
  setStatus,
  shopWithProducts,
} from './orders.test-support.js';

let t: TestApp;
let adminToken: string;
const settings = (body: unknown) => call(t.app, 'PATCH', '/admin/settings', { token: adminToken, body });
const fields = (res: { body: { error: { details?: { field: string }[] } } }) =>
  res.body.error.details?.map((d) => d.field) ?? [];

beforeAll(async () => {
  // It switches platform settings: on PostgreSQL, a database of its own.
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  adminToken = (await admin(t)).token;
});
let db: PrivateDatabase;
afterAll(async () => {
  await t.close();
  await db.drop();
});
// Every test here moves stock or money: the invariants (stock follows orders included) must hold after each.
afterEach(() => assertMoneyInvariants(t.app));

describe('POST /orders', () => {
  it('creates the order from database prices, reserves the stock and starts a payment', async () => {
    const shop = await shopWithProducts(t, adminToken, 2);
    const [a, b] = shop.products;
    const c = await newClient(t);
    const res = await placeOrder(t, c.token, [{ productId: a!.id, quantity: 2 }, { productId: b!.id }], {
      payerPhone: '+221 77 123 45 67',
      note: 'Sans sac',
    });
    expect(res.status).toBe(201);
    const o = res.body.data;
    expect(o).toMatchObject({
      status: 'PENDING',
      paymentStatus: 'UNPAID',
      clientId: c.user.id,
      supplierId: shop.profile.id,
      storeId: shop.store.id,
      storeName: shop.store.name,
      currency: 'XOF',
      itemsTotal: 1800,
      originalTotal: 4500,
      savings: 2700,
      paymentMethod: 'wave',
      payerPhone: '+221771234567',
      note: 'Sans sac',
      payment: { method: 'wave', status: 'PENDING', amount: 1800, currency: 'XOF', attempt: 1 },
    });
    expect(o.items).toEqual([
      { productId: a!.id, name: 'Panier 1', unitPrice: 600, originalUnitPrice: 1500, quantity: 2, lineTotal: 1200 },
      { productId: b!.id, name: 'Panier 2', unitPrice: 600, originalUnitPrice: 1500, quantity: 1, lineTotal: 600 },
    ]);
    expect(o.pickup.code).toMatch(/^[ACDEFGHJKMNPQRTUVWXY234679]{6}$/);
    // Pickup window 18:00-20:00 Dakar (UTC+0), today or tomorrow.
    expect(o.pickup.startsAt).toMatch(/T18:00:00\.000Z$/);
    expect(o.pickup.endsAt).toMatch(/T20:00:00\.000Z$/);
    expect(Date.parse(o.pickup.endsAt)).toBeGreaterThan(t.clock.now().getTime());
    expect(Date.parse(o.paymentDeadline) - Date.parse(o.createdAt)).toBe(15 * 60_000);
    expect(o.payment.expiresAt).toBe(o.paymentDeadline);
    expect(o.message).toContain('redirectUrl');
    // The checkout session was opened at the provider after the commit, keyed by the payment id.
    const created = t.mobilemoney.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/checkout/sessions' && r.idempotencyKey === o.payment.transactionId,
    );
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toMatchObject({
      amount: '1800',
      currency: 'XOF',
      client_reference: o.payment.transactionId,
      success_url: `http://api.test/api/v1/payments/mobilemoney/success?ref=${o.payment.transactionId}`,
      error_url: `http://api.test/api/v1/payments/mobilemoney/error?ref=${o.payment.transactionId}`,
      restrict_payer_mobile: '+221771234567',
    });
    expect(o.payment.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/c\//);
    expect(await productState(t, a!.id)).toEqual({ quantity: 8, reserved: 2, sold: 0 });
    expect(await productState(t, b!.id)).toEqual({ quantity: 9, reserved: 1, sold: 0 });
  });

  it('refuses bad input naming the field', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const other = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const cases: [unknown[], Record<string, unknown>, string, number][] = [
      [
        [
          { productId: p, quantity: 1 },
          { productId: other.products[0]!.id, quantity: 1 },
        ],
        {},
        'body.items.1.productId',
        400,
      ],
      [
        [
          { productId: p, quantity: 1 },
          { productId: p, quantity: 2 },
        ],
        {},
        'body.items.1.productId',
        400,
      ],
      [[{ productId: p }], {}, 'body.items.0.quantity', 400],
      [[{ productId: p, quantity: 0 }], {}, 'body.items.0.quantity', 400],
      [[{ productId: p, quantity: 101 }], {}, 'body.items.0.quantity', 400],
      [[{ productId: p, quantity: 1.5 }], {}, 'body.items.0.quantity', 400],
      [[{ productId: 'nope', quantity: 1 }], {}, 'body.items.0.productId', 400],
      [[], {}, 'body.items', 400],
      [Array.from({ length: 21 }, () => ({ productId: uuidv7(), quantity: 1 })), {}, 'body.items', 400],
      [[{ productId: p, quantity: 1 }], { paymentMethod: 'cash' }, 'body.paymentMethod', 400],
      [[{ productId: p, quantity: 1 }], { payerPhone: '12' }, 'body.payerPhone', 400],
      [[{ productId: p, quantity: 1 }], { extra: true }, 'body.extra', 400],
      [[{ productId: uuidv7(), quantity: 1 }], {}, 'body.items.0.productId', 404],
    ];
    for (const [items, over, field, status] of cases) {
      const res = await call(t.app, 'POST', '/orders', {
        token: c.token,
        body: { items, paymentMethod: 'wave', ...over },
      });
      expect(res.status, `${field} ${JSON.stringify(over)}`).toBe(status);
      expect(fields(res), field).toContain(field);
    }
    expect(await productState(t, p)).toEqual({ quantity: 10, reserved: 0, sold: 0 });
  });

  it('takes a product priced at the top of its range, and refuses an order above the maximum by name', async () => {
    // 100,000,000 XOF: its discount overflowed 32-bit arithmetic in the database (a 500) before migration 0040.
    const shop = await shopWithProducts(t, adminToken, 1, { originalPrice: 100_000_000, quantity: 100 });
    const product = shop.products[0]!;
    const page = await call(t.app, 'GET', `/products/${product.id}`);
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ originalPrice: 100_000_000, discountPercent: expect.any(Number) });
    const c = await newClient(t);
    const big = await placeOrder(t, c.token, [{ productId: product.id, quantity: 100 }]);
    expect(big.status).toBe(409);
    expect(big.body.error.code).toBe('ORDER_ABOVE_MAXIMUM');
    expect(big.body.error.message).toMatch(/at most 5000000 XOF/);
    // Nothing was held: the same units can still be ordered within the maximum.
    const stock = await call(t.app, 'GET', `/products/${product.id}`);
    expect(stock.body.data.quantity).toBe(100);
  });

  it('refuses a method switched off in the settings, and an order under the minimum amount', async () => {
    // Settings are shared by the test files on PostgreSQL: a minimum under every other file's orders
    // (600 and more), a method no other file pays with.
    const shop = await shopWithProducts(t, adminToken, 1, { originalPrice: 500, discountedPrice: 250 });
    const c = await newClient(t);
    expect(
      (await settings({ mobilemoney: { orangeMoney: { enabled: false } }, business: { minimumOrderAmount: 500 } }))
        .status,
    ).toBe(200);
    try {
      const off = await placeOrder(t, c.token, [{ productId: shop.products[0]!.id, quantity: 2 }], {
        paymentMethod: 'orangeMoney',
      });
      expect(off.status).toBe(400);
      expect(fields(off)).toEqual(['body.paymentMethod']);
      const small = await placeOrder(t, c.token, [{ productId: shop.products[0]!.id }]);
      expect(small.status).toBe(409);
      expect(small.body.error.code).toBe('ORDER_BELOW_MINIMUM');
      const methods = await call(t.app, 'GET', '/orders/payments/providers');
      expect(methods.body.data.map((m: { method: string }) => m.method)).toEqual(['wave', 'freeMoney', 'card']);
    } finally {
      await settings({ mobilemoney: { orangeMoney: { enabled: true } }, business: { minimumOrderAmount: 0 } });
    }
    const all = await call(t.app, 'GET', '/orders/payments/providers');
    expect(all.body.data).toEqual([
      { method: 'wave', displayName: 'Wave', kind: 'mobile_money', feeBps: 100 },
      { method: 'orangeMoney', displayName: 'Orange Money', kind: 'mobile_money', feeBps: 100 },
      { method: 'freeMoney', displayName: 'Free Money', kind: 'mobile_money', feeBps: 100 },
      { method: 'card', displayName: 'Carte bancaire', kind: 'card', feeBps: 250 },
    ]);
  });

  it('says why a product or its store cannot be ordered (409)', async () => {
    const shop = await shopWithProducts(t, adminToken, 3);
    const [expired, hidden, fine] = shop.products;
    const c = await newClient(t);
    const code = async (productId: string) => (await placeOrder(t, c.token, [{ productId }])).body.error?.code;

    await t.app.ctx.db
      .update(products)
      .set({ expiresAt: new Date(t.clock.now().getTime() - 1000) })
      .where(eq(products.id, expired!.id));
    expect(await code(expired!.id)).toBe('PRODUCT_EXPIRED');
    expect(
      (await call(t.app, 'PUT', `/products/${hidden!.id}`, { token: shop.token, body: { status: 'INACTIVE' } })).status,
    ).toBe(200);
    expect(await code(hidden!.id)).toBe('PRODUCT_UNAVAILABLE');

    const closure = {
      startsAt: t.clock.now().toISOString(),
      endsAt: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
      reason: 'Inventaire',
    };
    expect(
      (
        await call(t.app, 'POST', `/supplier/stores/${shop.store.id}/temporary-closure`, {
          token: shop.token,
          body: closure,
        })
      ).status,
    ).toBe(200);
    expect(await code(fine!.id)).toBe('STORE_CLOSED');
    await t.app.ctx.db
      .update(stores)
      .set({ closureStartsAt: null, closureEndsAt: null, isActive: false })
      .where(eq(stores.id, shop.store.id));
    expect(await code(fine!.id)).toBe('STORE_INACTIVE');
    await t.app.ctx.db.update(stores).set({ isActive: true }).where(eq(stores.id, shop.store.id));
    expect((await placeOrder(t, c.token, [{ productId: fine!.id }])).status).toBe(201);
  });

  it('reserves nothing when one line is short: 409 INSUFFICIENT_STOCK naming it', async () => {
    const shop = await shopWithProducts(t, adminToken, 2, { quantity: 3 });
    const [a, b] = shop.products;
    const c = await newClient(t);
    const res = await placeOrder(t, c.token, [
      { productId: a!.id, quantity: 1 },
      { productId: b!.id, quantity: 4 },
    ]);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INSUFFICIENT_STOCK');
    expect(res.body.error.details).toEqual([
      { field: 'body.items.1.productId', message: expect.stringContaining('Panier 2') },
    ]);
    expect(await productState(t, a!.id)).toEqual({ quantity: 3, reserved: 0, sold: 0 });
    expect(await productState(t, b!.id)).toEqual({ quantity: 3, reserved: 0, sold: 0 });
    expect((await call(t.app, 'GET', '/orders/my-orders', { token: c.token })).body.meta.total).toBe(0);
  });

  it('refuses products whose pickup windows do not overlap', async () => {
    const s = await shopWithProducts(t, adminToken, 1);
    const late = await publish(t, s, adminToken, { pickupStart: '20:00', pickupEnd: '22:00' });
    const c = await newClient(t);
    const res = await placeOrder(t, c.token, [{ productId: s.products[0]!.id }, { productId: late.id }]);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('PICKUP_WINDOWS_DO_NOT_OVERLAP');
  });

  it('still creates the order when the provider is down; the job opens the session later', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    t.mobilemoney.failNext(
      1,
      { status: 503, body: { code: 'service-unavailable', message: 'Down for maintenance' } },
      '/v1/checkout/sessions',
    );
    const res = await placeOrder(t, c.token, [{ productId: shop.products[0]!.id }]);
    expect(res.status).toBe(201);
    expect(res.body.data.payment).toMatchObject({ status: 'PENDING', redirectUrl: null, retryAfterSeconds: 5 });
    expect(res.body.data.message).toContain('being prepared');
    expect(res.body.data.message).toContain(`/payments/status/${res.body.data.id} again in 5 s`);
    const polled = await call(t.app, 'GET', `/payments/status/${res.body.data.id}`, { token: c.token });
    expect(polled.body.data.payment).toMatchObject({ redirectUrl: null, retryAfterSeconds: 5 });
    t.clock.advance(31_000);
    await t.app.jobs.drain();
    const later = await call(t.app, 'GET', `/orders/${res.body.data.id}`, { token: c.token });
    expect(later.body.data.payment.redirectUrl).toMatch(/\/c\//);
    expect(later.body.data.payment.retryAfterSeconds).toBeNull();
    const sessionCalls = t.mobilemoney.requests.filter(
      (r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === res.body.data.payment.transactionId,
    );
    expect(sessionCalls.length).toBeGreaterThanOrEqual(2);
    // One session only, whatever the number of calls: the payment id is the idempotency key.
    expect(
      [...t.mobilemoney.sessions.values()].filter((x) => x.client_reference === res.body.data.payment.transactionId),
    ).toHaveLength(1);
  });

  it('does not hold the client behind a provider that does not answer', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    t.mobilemoney.hangNext(1, '/v1/checkout/sessions');
    const res = await placeOrder(t, c.token, [{ productId: shop.products[0]!.id }]);
    expect(res.status).toBe(201);
    expect(res.body.data.payment).toMatchObject({ status: 'PENDING', redirectUrl: null });
    t.clock.advance(31_000);
    await t.app.jobs.drain();
    const later = await call(t.app, 'GET', `/orders/${res.body.data.id}`, { token: c.token });
    expect(later.body.data.payment.redirectUrl).toMatch(/\/c\//);
  });

  it('replays the answer for a repeated Idempotency-Key: one order, one reservation', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 2 }], paymentMethod: 'wave' };
    const headers = { 'idempotency-key': `order-${uuidv7()}` };
    const first = await call(t.app, 'POST', '/orders', { token: c.token, body, headers });
    const again = await call(t.app, 'POST', '/orders', { token: c.token, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    const changed = await call(t.app, 'POST', '/orders', { token: c.token, body: { ...body, note: 'autre' }, headers });
    expect(changed.status).toBe(422);
    expect(await productState(t, shop.products[0]!.id)).toEqual({ quantity: 8, reserved: 2, sold: 0 });
  });

  it('answers a retry by its first order, even once its product has run out or been taken off the shelves', async () => {
    const shop = await shopWithProducts(t, adminToken, 1, { quantity: 2 });
    const c = await newClient(t);
    const productId = shop.products[0]!.id;
    const body = { items: [{ productId, quantity: 2 }], paymentMethod: 'wave' };
    const headers = { 'idempotency-key': `order-${uuidv7()}` };
    const first = await call(t.app, 'POST', '/orders', { token: c.token, body, headers });
    expect(first.status).toBe(201);
    const retried = async () => {
      const r = await call(t.app, 'POST', '/orders', { token: c.token, body, headers });
      return [r.status, r.headers['idempotent-replayed'], r.body.data?.id];
    };
    expect(await retried()).toEqual([201, 'true', first.body.data.id]);
    // Its answer is the first order's, not that of the product as it is now.
    const off = await call(t.app, 'PUT', `/products/${productId}`, { token: shop.token, body: { status: 'INACTIVE' } });
    expect(off.status).toBe(200);
    expect(await retried()).toEqual([201, 'true', first.body.data.id]);
    expect(await productState(t, productId)).toEqual({ quantity: 0, reserved: 2, sold: 0 });
  });

  it('creates one order for the same Idempotency-Key sent 20 times at once; a refusal is replayed too', async () => {
    const shop = await shopWithProducts(t, adminToken, 1, { quantity: 3 });
    const c = await newClient(t);
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 1 }], paymentMethod: 'wave' };
    const headers = { 'idempotency-key': `order-${uuidv7()}` };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', '/orders', { token: c.token, body, headers })),
    );
    const fresh = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed']);
    expect(fresh).toHaveLength(1);
    for (const r of answers.filter((a) => a !== fresh[0])) {
      if (r.status === 409) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      else expect(r.body.data.id).toBe(fresh[0]!.body.data.id);
    }
    expect(
      (await call(t.app, 'GET', '/orders/my-orders', { token: c.token })).body.data.map((o: { id: string }) => o.id),
    ).toEqual([fresh[0]!.body.data.id]);
    expect(await productState(t, shop.products[0]!.id)).toEqual({ quantity: 2, reserved: 1, sold: 0 });

    // Short of stock: nothing reserved, and the same key answers the same refusal.
    const short = { items: [{ productId: shop.products[0]!.id, quantity: 5 }], paymentMethod: 'wave' };
    const shortKey = { 'idempotency-key': `order-${uuidv7()}` };
    const refused = await call(t.app, 'POST', '/orders', { token: c.token, body: short, headers: shortKey });
    expect(refused.status).toBe(409);
    const replayed = await call(t.app, 'POST', '/orders', { token: c.token, body: short, headers: shortKey });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(refused.body);
    expect(await productState(t, shop.products[0]!.id)).toEqual({ quantity: 2, reserved: 1, sold: 0 });
    await assertMoneyInvariants(t.app);
  });

  it('is for clients only', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 1 }], paymentMethod: 'wave' };
    expect((await call(t.app, 'POST', '/orders', { token: shop.token, body })).status).toBe(403);
    expect((await call(t.app, 'POST', '/orders', { body })).status).toBe(401);
  });
});

describe('PATCH /orders/:id/status', () => {
  it('walks the chain: confirm needs the payment, completion checks the pickup code and sells the stock', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: p, quantity: 3 }]);

    const unpaid = await setStatus(t, shop.token, o.id, { status: 'CONFIRMED' });
    expect(unpaid.status).toBe(409);
    expect(unpaid.body.error.code).toBe('PAYMENT_NOT_COMPLETED');
    expect(await markOrderPaidForTest(t, o.id)).toEqual({ open: true });
    expect(await markOrderPaidForTest(t, o.id)).toEqual({ open: true });

    const skip = await setStatus(t, shop.token, o.id, { status: 'READY' });
    expect(skip.status).toBe(409);
    expect(skip.body.error.code).toBe('INVALID_TRANSITION');
    const confirmed = await setStatus(t, shop.token, o.id, { status: 'CONFIRMED' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({
      status: 'CONFIRMED',
      paymentStatus: 'PAID',
      pickup: { code: null },
      payment: { status: 'SUCCEEDED', redirectUrl: null },
    });
    expect((await setStatus(t, shop.token, o.id, { status: 'PREPARING' })).status).toBe(200);
    expect((await setStatus(t, shop.token, o.id, { status: 'READY' })).status).toBe(200);

    const missing = await setStatus(t, shop.token, o.id, { status: 'COMPLETED' });
    expect(missing.status).toBe(400);
    expect(fields(missing)).toEqual(['body.pickupCode']);
    const wrong = await setStatus(t, shop.token, o.id, {
      status: 'COMPLETED',
      pickupCode: o.pickup.code === 'AAAAAA' ? 'CCCCCC' : 'AAAAAA',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('INVALID_PICKUP_CODE');
    const lateCancel = await setStatus(t, shop.token, o.id, { status: 'CANCELLED', reason: 'Trop tard' });
    expect(lateCancel.body.error.code).toBe('INVALID_TRANSITION');

    const done = await setStatus(t, shop.token, o.id, { status: 'COMPLETED', pickupCode: o.pickup.code.toLowerCase() });
    expect(done.status).toBe(200);
    expect(done.body.data.status).toBe('COMPLETED');
    expect(
      done.body.data.history.map(
        (h: { fromStatus: string; toStatus: string; byRole: string }) => `${h.fromStatus}>${h.toStatus}:${h.byRole}`,
      ),
    ).toEqual([
      'null>PENDING:CLIENT',
      'PENDING>PENDING:SYSTEM',
      'PENDING>CONFIRMED:SUPPLIER',
      'CONFIRMED>PREPARING:SUPPLIER',
      'PREPARING>READY:SUPPLIER',
      'READY>COMPLETED:SUPPLIER',
    ]);
    expect(await productState(t, p)).toEqual({ quantity: 7, reserved: 0, sold: 3 });
    const mine = await call(t.app, 'GET', '/products/my-products', { token: shop.token });
    expect(mine.body.data[0]).toMatchObject({ salesCount: 3, sales: { unitsSold: 3, orders: 1, revenue: 1800 } });

    await t.app.jobs.drain();
    const inbox = await call(t.app, 'GET', '/notifications', { token: c.token });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).toEqual(
      expect.arrayContaining(['order_status_changed']),
    );
    expect(inbox.body.data.filter((n: { type: string }) => n.type === 'order_status_changed')).toHaveLength(4);
    const supplierInbox = await call(t.app, 'GET', '/notifications', { token: shop.token });
    expect(supplierInbox.body.data.filter((n: { type: string }) => n.type === 'order_paid')).toHaveLength(1);
  });

  it('accepts the signed QR token as pickup code, and nothing else signed', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    const other = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    await markOrderPaidForTest(t, o.id);
    for (const s of ['CONFIRMED', 'PREPARING', 'READY'])
      expect((await setStatus(t, shop.token, o.id, { status: s })).status).toBe(200);
    const png = await t.app.inject({
      method: 'GET',
      url: `/api/v1/orders/${o.id}/qr`,
      headers: { authorization: `Bearer ${c.token}` },
    });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const { tokens } = t.app.services.orders;
    const forOther = tokens.sign(other.id, other.pickup.code);
    expect((await setStatus(t, shop.token, o.id, { status: 'COMPLETED', pickupCode: forOther })).body.error.code).toBe(
      'INVALID_PICKUP_CODE',
    );
    const forged = `${tokens.sign(o.id, o.pickup.code).split('.')[0]}.AAAA`;
    expect((await setStatus(t, shop.token, o.id, { status: 'COMPLETED', pickupCode: forged })).body.error.code).toBe(
      'INVALID_PICKUP_CODE',
    );
    expect(
      (await setStatus(t, shop.token, o.id, { status: 'COMPLETED', pickupCode: tokens.sign(o.id, o.pickup.code) }))
        .status,
    ).toBe(200);
    // The QR code is the client's: anyone else gets 404 (a supplier is refused by role).
    const stranger = await newClient(t);
    expect((await call(t.app, 'GET', `/orders/${o.id}/qr`, { token: stranger.token })).status).toBe(404);
    expect((await call(t.app, 'GET', `/orders/${o.id}/qr`, { token: shop.token })).status).toBe(403);
  });

  it('lets store staff with orders.update act, and hides the order from other sellers', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const other = await shopWithProducts(t, adminToken, 0);
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    await markOrderPaidForTest(t, o.id);
    expect((await setStatus(t, other.token, o.id, { status: 'CONFIRMED' })).status).toBe(404);
    expect((await setStatus(t, c.token, o.id, { status: 'CONFIRMED' })).status).toBe(403);
    const staff = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const at = t.clock.now();
    await t.app.ctx.db.insert(storeMembers).values({
      id: uuidv7(),
      storeId: shop.store.id,
      userId: staff.user.id,
      role: 'STAFF',
      createdAt: at,
      updatedAt: at,
    });
    const res = await setStatus(t, staff.token, o.id, { status: 'CONFIRMED' });
    expect(res.status).toBe(200);
    expect(res.body.data.history.at(-1)).toMatchObject({
      toStatus: 'CONFIRMED',
      byRole: 'STAFF',
      byUserId: staff.user.id,
    });
    // A member with a client account reads the order (not its pickup code); the seller routes need a supplier account.
    const clerk = await newClient(t);
    await t.app.ctx.db.insert(storeMembers).values({
      id: uuidv7(),
      storeId: shop.store.id,
      userId: clerk.user.id,
      role: 'STAFF',
      createdAt: at,
      updatedAt: at,
    });
    const read = await call(t.app, 'GET', `/orders/${o.id}`, { token: clerk.token });
    expect(read.status).toBe(200);
    expect(read.body.data.pickup.code).toBeNull();
    expect((await setStatus(t, clerk.token, o.id, { status: 'PREPARING' })).status).toBe(403);
    const list = await call(t.app, 'GET', '/orders/supplier-orders', { token: staff.token });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([o.id]);
    expect((await call(t.app, 'GET', '/orders/supplier-orders', { token: other.token })).body.meta.total).toBe(0);
  });

  it('lets the seller cancel until READY with a reason: stock back, client told', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: p, quantity: 2 }]);
    await markOrderPaidForTest(t, o.id);
    expect((await setStatus(t, shop.token, o.id, { status: 'CONFIRMED' })).status).toBe(200);
    const noReason = await setStatus(t, shop.token, o.id, { status: 'CANCELLED' });
    expect(noReason.status).toBe(400);
    expect(fields(noReason)).toEqual(['body.reason']);
    const res = await setStatus(t, shop.token, o.id, { status: 'CANCELLED', reason: 'Rupture de stock' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'Rupture de stock',
      paymentStatus: 'PAID',
    });
    expect(await productState(t, p)).toEqual({ quantity: 10, reserved: 0, sold: 0 });
    expect((await setStatus(t, shop.token, o.id, { status: 'PREPARING' })).body.error.code).toBe('INVALID_TRANSITION');
    await t.app.jobs.drain();
    const inbox = await call(t.app, 'GET', '/notifications', { token: c.token });
    expect(inbox.body.data.find((n: { type: string }) => n.type === 'order_cancelled')?.body).toContain(
      'Rupture de stock',
    );
  });
});

describe('POST /orders/:id/cancel', () => {
  it('cancels a pending order once; others get 404, a confirmed one 409 ORDER_NOT_PENDING', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: p, quantity: 4 }]);
    const stranger = await newClient(t);
    expect((await call(t.app, 'POST', `/orders/${o.id}/cancel`, { token: stranger.token })).status).toBe(404);
    const res = await call(t.app, 'POST', `/orders/${o.id}/cancel`, {
      token: c.token,
      body: { reason: "J'ai changé d'avis" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'CANCELLED',
      cancelReason: "J'ai changé d'avis",
      payment: { status: 'CANCELLED', redirectUrl: null },
    });
    expect(await productState(t, p)).toEqual({ quantity: 10, reserved: 0, sold: 0 });
    await t.app.jobs.drain();
    const session = [...t.mobilemoney.sessions.values()].find((x) => x.client_reference === o.payment.transactionId)!;
    expect(t.mobilemoney.requests.filter((r) => r.path === `/v1/checkout/sessions/${session.id}/expire`)).toHaveLength(
      1,
    );
    expect(session.checkout_status).toBe('expired');
    const again = await call(t.app, 'POST', `/orders/${o.id}/cancel`, { token: c.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ORDER_NOT_PENDING');
    // A payment arriving for the cancelled order is reported as such, for the webhook to refund it.
    expect(await markOrderPaidForTest(t, o.id)).toEqual({ open: false });

    const paid = await orderOk(t, c.token, [{ productId: p }]);
    await markOrderPaidForTest(t, paid.id);
    expect((await setStatus(t, shop.token, paid.id, { status: 'CONFIRMED' })).status).toBe(200);
    const late = await call(t.app, 'POST', `/orders/${paid.id}/cancel`, { token: c.token });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('ORDER_NOT_PENDING');
    expect((await call(t.app, 'POST', `/orders/${paid.id}/cancel`, { token: shop.token })).status).toBe(403);
    await t.app.jobs.drain();
    const inbox = await call(t.app, 'GET', '/notifications', { token: shop.token });
    expect(inbox.body.data.filter((n: { type: string }) => n.type === 'order_cancelled')).toHaveLength(1);
  });
});

describe('reading orders', () => {
  it('shows an order to its client, seller and administrators only, the pickup code to the client only', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    const mine = await call(t.app, 'GET', `/orders/${o.id}`, { token: c.token });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({
      pickup: { code: o.pickup.code },
      client: { id: c.user.id, firstName: 'Test' },
      supplier: { id: shop.profile.id, businessName: shop.profile.businessName },
      store: { id: shop.store.id, name: shop.store.name, timezone: 'Africa/Dakar' },
      payments: [{ transactionId: o.payment.transactionId, attempt: 1 }],
    });
    const seller = await call(t.app, 'GET', `/orders/${o.id}`, { token: shop.token });
    expect(seller.status).toBe(200);
    expect(seller.body.data.pickup.code).toBeNull();
    expect((await call(t.app, 'GET', `/orders/${o.id}`, { token: adminToken })).status).toBe(200);
    const other = await shopWithProducts(t, adminToken, 0);
    const stranger = await newClient(t);
    for (const token of [other.token, stranger.token]) {
      expect((await call(t.app, 'GET', `/orders/${o.id}`, { token })).status).toBe(404);
      expect((await call(t.app, 'GET', `/payments/status/${o.id}`, { token })).status).toBe(404);
      expect((await call(t.app, 'GET', `/orders/payments/${o.payment.transactionId}/status`, { token })).status).toBe(
        404,
      );
    }
    expect((await call(t.app, 'GET', `/orders/${uuidv7()}`, { token: c.token })).status).toBe(404);
    const status = await call(t.app, 'GET', `/payments/status/${o.id}`, { token: shop.token });
    expect(status.body.data).toMatchObject({
      orderId: o.id,
      orderStatus: 'PENDING',
      paymentStatus: 'UNPAID',
      attempts: 1,
      payment: { transactionId: o.payment.transactionId, status: 'PENDING', amount: 600 },
    });
    await markOrderPaidForTest(t, o.id);
    const byTx = await call(t.app, 'GET', `/orders/payments/${o.payment.transactionId}/status`, { token: c.token });
    expect(byTx.body.data).toMatchObject({
      paymentStatus: 'PAID',
      payment: { status: 'SUCCEEDED', paidAt: expect.any(String) },
    });
  });

  it("lists the client's orders newest first and the seller's with filters", async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const second = await createStore(t.app, shop);
    const elsewhere = await publish(t, { token: shop.token, store: second }, adminToken);
    const c = await newClient(t);
    const first = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    t.clock.advance(1000);
    const middle = await orderOk(t, c.token, [{ productId: elsewhere.id }]);
    t.clock.advance(1000);
    const last = await orderOk(t, c.token, [{ productId: shop.products[0]!.id }]);
    expect((await call(t.app, 'POST', `/orders/${middle.id}/cancel`, { token: c.token })).status).toBe(200);

    const all = await call(t.app, 'GET', '/orders/my-orders', { token: c.token, query: { limit: 2 } });
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual([last.id, middle.id]);
    expect(all.body.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(all.body.data[0].payment).toMatchObject({ status: 'PENDING' });
    const cancelled = await call(t.app, 'GET', '/orders/my-orders', { token: c.token, query: { status: 'CANCELLED' } });
    expect(cancelled.body.data.map((o: { id: string }) => o.id)).toEqual([middle.id]);

    const list = (query: Record<string, string>) =>
      call(t.app, 'GET', '/orders/supplier-orders', { token: shop.token, query });
    expect((await list({})).body.data.map((o: { id: string }) => o.id)).toEqual([last.id, middle.id, first.id]);
    expect((await list({ storeId: second.id })).body.data.map((o: { id: string }) => o.id)).toEqual([middle.id]);
    expect((await list({ status: 'PENDING' })).body.meta.total).toBe(2);
    const cut = new Date(
      Date.parse((await call(t.app, 'GET', `/orders/${last.id}`, { token: c.token })).body.data.createdAt),
    ).toISOString();
    expect((await list({ from: cut })).body.data.map((o: { id: string }) => o.id)).toEqual([last.id]);
    expect((await list({ to: cut })).body.meta.total).toBe(2);
    expect((await list({ from: 'yesterday' })).status).toBe(400);
    expect((await call(t.app, 'GET', '/orders/supplier-orders', { token: c.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/orders/my-orders', { token: shop.token })).status).toBe(403);
  });
});

describe('commission', () => {
  it("freezes the supplier's rate less its plan's commission discount, never below zero", async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const c = await newClient(t);
    const frozen = async () => {
      const o = await orderOk(t, c.token, [{ productId: shop.products[0]!.id, quantity: 1 }]);
      const [row] = await t.app.ctx.db.select({ bps: orders.commissionBps }).from(orders).where(eq(orders.id, o.id));
      return row!.bps;
    };
    expect(await frozen()).toBe(1000);
    const plan = await createPlan(t.app, { commissionDiscountBps: 400 });
    const subscribe = (planId: string) =>
      call(t.app, 'POST', '/subscriptions/subscribe', { token: shop.token, body: { planId } });
    expect((await subscribe(plan.id)).status).toBe(200);
    expect(await frozen()).toBe(600);
    expect((await subscribe((await createPlan(t.app, { commissionDiscountBps: 2500 })).id)).status).toBe(200);
    expect(await frozen()).toBe(0);
  });
});

describe('statistics', () => {
  it('adds up exactly for the client and the supplier', async () => {
    const shop = await shopWithProducts(t, adminToken, 2);
    const [a, b] = shop.products;
    const c = await newClient(t);
    const completeOrder = async (lines: { productId: string; quantity: number }[]) => {
      const o = await orderOk(t, c.token, lines);
      await markOrderPaidForTest(t, o.id);
      for (const s of ['CONFIRMED', 'PREPARING', 'READY']) await setStatus(t, shop.token, o.id, { status: s });
      expect((await setStatus(t, shop.token, o.id, { status: 'COMPLETED', pickupCode: o.pickup.code })).status).toBe(
        200,
      );
      return o;
    };
    // 1000 bps frozen at creation; a later change of the rate does not reach these orders.
    expect(shop.profile.commissionRateBps).toBe(1000);
    await completeOrder([{ productId: a!.id, quantity: 3 }]); // 1800, commission 180
    const rate = (bps: number) =>
      call(t.app, 'PATCH', `/admin/suppliers/${shop.profile.id}/commission`, {
        token: adminToken,
        body: { commissionRateBps: bps },
      });
    expect((await rate(1234)).status).toBe(200);
    await completeOrder([
      { productId: a!.id, quantity: 1 },
      { productId: b!.id, quantity: 2 },
    ]); // 1800, commission 222.12 -> 222
    const paidOpen = await orderOk(t, c.token, [{ productId: b!.id, quantity: 1 }]); // 600, paid, not collected
    await markOrderPaidForTest(t, paidOpen.id);
    const unpaid = await orderOk(t, c.token, [{ productId: b!.id, quantity: 1 }]);
    await call(t.app, 'POST', `/orders/${unpaid.id}/cancel`, { token: c.token });
    expect((await rate(333)).status).toBe(200);

    const mine = await call(t.app, 'GET', '/orders/statistics', { token: c.token });
    expect(mine.body.data).toEqual({
      currency: 'XOF',
      totalOrders: 4,
      ordersByStatus: { PENDING: 1, CONFIRMED: 0, PREPARING: 0, READY: 0, COMPLETED: 2, CANCELLED: 1 },
      paidOrders: 3,
      totalSpent: 4200,
      savings: 6300,
    });

    const stats = await call(t.app, 'GET', '/orders/supplier-statistics', { token: shop.token });
    expect(stats.status).toBe(200);
    const d = stats.body.data;
    expect(d).toMatchObject({
      currency: 'XOF',
      period: 'day',
      totalOrders: 4,
      sales: { completedOrders: 2, unitsSold: 6, revenueGross: 3600, commission: 402, revenueNet: 3198 },
      // The three paid orders are held in escrow (the ledger, which the balances come from); none is
      // released before the delay after collection (release and payouts: reports.test.ts).
      balances: { escrowHeld: 4200, released: 0, paidOut: 0 },
    });
    expect(commissionOf(1800, 1000) + commissionOf(1800, 1234)).toBe(402);
    expect(d.ordersPerPeriod).toHaveLength(30);
    expect(d.ordersPerPeriod.at(-1)).toEqual({
      periodStart: t.clock.now().toISOString().slice(0, 10),
      orders: 3,
      completedOrders: 2,
      revenueGross: 3600,
    });
    expect(d.popularProducts).toEqual([
      { productId: a!.id, name: 'Panier 1', unitsSold: 4, orders: 2, revenue: 2400 },
      { productId: b!.id, name: 'Panier 2', unitsSold: 2, orders: 1, revenue: 1200 },
    ]);
    const monthly = await call(t.app, 'GET', '/orders/supplier-statistics', {
      token: shop.token,
      query: { period: 'month' },
    });
    expect(monthly.body.data.ordersPerPeriod).toHaveLength(12);
    expect(monthly.body.data.ordersPerPeriod.at(-1).periodStart).toBe(`${t.clock.now().toISOString().slice(0, 7)}-01`);
    expect(
      (await call(t.app, 'GET', '/orders/supplier-statistics', { token: shop.token, query: { period: 'year' } }))
        .status,
    ).toBe(400);
    const store = await call(t.app, 'GET', `/supplier/stores/${shop.store.id}/statistics`, { token: shop.token });
    expect(store.body.data.orders).toEqual({ open: 1, completed: 2, cancelled: 1, unitsSold: 6, revenueGross: 3600 });
    const nobody = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    expect((await call(t.app, 'GET', '/orders/supplier-statistics', { token: nobody.token })).status).toBe(404);
  });
});

describe('deleting while orders are open', () => {
  it('refuses to delete a product with an open order (409 PRODUCT_HAS_ACTIVE_ORDERS), allows it once finished', async () => {
    const shop = await shopWithProducts(t, adminToken, 1);
    const p = shop.products[0]!.id;
    const c = await newClient(t);
    const o = await orderOk(t, c.token, [{ productId: p }]);
    const refused = await call(t.app, 'DELETE', `/products/${p}`, { token: shop.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('PRODUCT_HAS_ACTIVE_ORDERS');
    expect(refused.body.error.message).toContain('1 order in progress');
    expect((await call(t.app, 'DELETE', `/supplier/stores/${shop.store.id}`, { token: shop.token })).status).toBe(409);
    expect((await call(t.app, 'POST', `/orders/${o.id}/cancel`, { token: c.token })).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/products/${p}`, { token: shop.token })).status).toBe(200);
    // The finished order still reads, with its snapshot.
    expect((await call(t.app, 'GET', `/orders/${o.id}`, { token: c.token })).body.data.items[0].name).toBe('Panier 1');
  });
});
