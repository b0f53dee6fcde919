import { existsSync, readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { associations } from '../../db/schema/associations.js';
import { dealBookings } from '../../db/schema/deals.js';
import { uuidv7 } from '../../shared/ids.js';
import { activeCampaign, advertiser, campaignBody, profileBody } from '../advertising/advertising.test-support.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { dakarDate, moveTo, publishDeal } from '../deals/deals.test-support.js';
import { completeOrder, payForTest, shop } from '../escrow/escrow.test-support.js';
import { admin, newClient, orderOk, productState, setStatus } from '../orders/orders.test-support.js';
import { deliverWebhook } from '../payments/payments.test-support.js';
import { supplierWithStore } from '../products/products.test-support.js';
import { SETTING_KEYS } from './settings.definition.js';

// Each setting flipped as an operator would (PATCH /admin/settings) and its effect seen through
// HTTP. Settings are global to a database: this suite has one of its own.
let db: PrivateDatabase;
let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  adminToken = (await admin(t)).token;
}, 120_000);
afterAll(async () => {
  await t.close();
  await db.drop();
});

const HOUR = 3_600_000;
const set = async (body: Record<string, unknown>) => {
  const res = await call(t.app, 'PATCH', '/admin/settings', { token: adminToken, body: { ...body, reason: 'test' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const code = (res: { body: { error?: { code: string } } }) => res.body.error?.code;

/** Where the effect of each key is tested; this file unless said otherwise. */
const EFFECT_TESTS: Record<string, string> = {
  'business.defaultCommissionBps': 'src/modules/settings/settings-cache.test.ts',
  'business.paymentTimeoutMinutes': 'src/modules/settings/settings-effects.test.ts',
  'business.escrowReleaseDelayHours': 'src/modules/settings/settings-effects.test.ts',
  'business.minimumOrderAmount': 'src/modules/orders/orders.test.ts',
  'business.paymentFailureGraceMinutes': 'src/modules/settings/settings-effects.test.ts',
  'business.pickupCodeRequired': 'src/modules/settings/settings-effects.test.ts',
  'business.dealsPaidInAppByDefault': 'src/modules/settings/settings-effects.test.ts',
  'business.noShowRefunded': 'src/modules/settings/settings-effects.test.ts',
  'mobilemoney.<method>.displayName': 'src/modules/settings/settings-effects.test.ts',
  'mobilemoney.<method>.enabled': 'src/modules/settings/settings-effects.test.ts',
  'mobilemoney.<method>.feeBps': 'src/modules/settings/settings-effects.test.ts',
  'features.autoApproveVerifiedSupplierProducts': 'src/modules/products/products.test.ts',
  'features.donationsEnabled': 'src/modules/settings/settings-effects.test.ts',
  'features.advertisingEnabled': 'src/modules/settings/settings-effects.test.ts',
  'features.reviewsRequirePurchase': 'src/modules/reviews/reviews.test.ts',
};

describe('every setting', () => {
  it('has a test of its effect', () => {
    const keys = new Set(
      [...SETTING_KEYS.keys()].map((k) => k.replace(/^mobilemoney\.\w+\./, 'mobilemoney.<method>.')),
    );
    expect([...keys].sort()).toEqual(Object.keys(EFFECT_TESTS).sort());
    for (const [key, file] of Object.entries(EFFECT_TESTS)) {
      const root = new URL('../../../', import.meta.url);
      expect(existsSync(new URL(file, root)), file).toBe(true);
      expect(readFileSync(new URL(file, root), 'utf8'), `${file} flips ${key}`).toContain(key.split('.').at(-1));
    }
  });
});

describe('business.paymentFailureGraceMinutes', () => {
  it('is how long a refused payment holds the stock for a retry', async () => {
    const s = await shop(t, adminToken);
    const p = s.products[0]!.id;
    await set({ business: { paymentFailureGraceMinutes: 1 } });
    try {
      const client = await newClient(t);
      const order = await orderOk(t, client.token, [{ productId: p }]);
      const sessionId = (await t.app.services.payments.find(t.app.ctx.db, order.payment.transactionId))!
        .providerSessionId!;
      await deliverWebhook(t, t.mobilemoney.event('checkout.session.payment_failed', t.mobilemoney.fail(sessionId)));
      await t.app.jobs.drain();
      const held = await productState(t, p);
      t.clock.advance(60_000 + 1000);
      await t.app.jobs.drain();
      const read = (await call(t.app, 'GET', `/orders/${order.id}`, { token: client.token })).body.data;
      expect(read).toMatchObject({ status: 'CANCELLED', cancelReason: 'PAYMENT_FAILED' });
      expect(await productState(t, p)).toEqual({ ...held, quantity: held.quantity + 1, reserved: held.reserved - 1 });
    } finally {
      await set({ business: { paymentFailureGraceMinutes: 5 } });
    }
    await assertMoneyInvariants(t.app);
  });
});

describe('business.paymentTimeoutMinutes', () => {
  it('sets the deadline of new orders, which expire at it', async () => {
    const s = await shop(t, adminToken);
    await set({ business: { paymentTimeoutMinutes: 5 } });
    try {
      const client = await newClient(t);
      const order = await orderOk(t, client.token, [{ productId: s.products[0]!.id }]);
      const read = async () => (await call(t.app, 'GET', `/orders/${order.id}`, { token: client.token })).body.data;
      const placed = await read();
      expect(Date.parse(placed.paymentDeadline) - Date.parse(placed.createdAt)).toBe(5 * 60_000);
      t.clock.advance(5 * 60_000 + 1000);
      await t.app.jobs.drain();
      // Cancelled by the deadline: its payment attempt is the one marked EXPIRED.
      expect(await read()).toMatchObject({
        status: 'CANCELLED',
        paymentStatus: 'UNPAID',
        payment: { status: 'EXPIRED' },
      });
    } finally {
      await set({ business: { paymentTimeoutMinutes: 15 } });
    }
    await assertMoneyInvariants(t.app);
  }, 120_000);
});

describe('business.escrowReleaseDelayHours', () => {
  it('is the time after completion when the supplier is paid', async () => {
    const s = await shop(t, adminToken);
    await set({ business: { escrowReleaseDelayHours: 1 } });
    try {
      const client = await newClient(t);
      const order = await orderOk(t, client.token, [{ productId: s.products[0]!.id }]);
      await payForTest(t, order);
      await completeOrder(t, s, order);
      await t.app.jobs.drain();
      const escrow = async () =>
        (await call(t.app, 'GET', `/admin/payments/escrow/${order.id}`, { token: adminToken })).body.data.escrow;
      const held = await escrow();
      expect(held.state).toBe('HELD');
      const completedAt = (await call(t.app, 'GET', `/orders/${order.id}`, { token: client.token })).body.data
        .completedAt;
      // Counted from when the completion is handled (just after it), an hour and not the default 48.
      const delay = Date.parse(held.releaseAfter) - Date.parse(completedAt);
      expect(delay).toBeGreaterThanOrEqual(HOUR);
      expect(delay).toBeLessThan(2 * HOUR);
      t.clock.advance(HOUR + 1000);
      await t.app.jobs.drain();
      // Access tokens live 15 minutes: the administrator signs in again.
      adminToken = (await admin(t)).token;
      expect((await escrow()).state).toBe('RELEASED');
    } finally {
      await set({ business: { escrowReleaseDelayHours: 48 } });
    }
    await assertMoneyInvariants(t.app);
  }, 120_000);
});

describe('business.pickupCodeRequired', () => {
  it('lets the seller hand over without the code only when switched off', async () => {
    const s = await shop(t, adminToken, { products: 2 });
    const ready = async (productId: string) => {
      const order = await orderOk(t, (await newClient(t)).token, [{ productId }]);
      await payForTest(t, order);
      for (const status of ['CONFIRMED', 'PREPARING', 'READY'] as const)
        expect((await setStatus(t, s.token, order.id, { status })).status).toBe(200);
      return order;
    };
    const a = await ready(s.products[0]!.id);
    const refused = await setStatus(t, s.token, a.id, { status: 'COMPLETED' });
    expect([refused.status, refused.body.error.details?.[0]?.field]).toEqual([400, 'body.pickupCode']);
    await set({ business: { pickupCodeRequired: false } });
    try {
      const b = await ready(s.products[1]!.id);
      const done = await setStatus(t, s.token, b.id, { status: 'COMPLETED' });
      expect([done.status, done.body.data?.status]).toEqual([200, 'COMPLETED']);
      // A code given is still checked.
      expect(code(await setStatus(t, s.token, a.id, { status: 'COMPLETED', pickupCode: 'WRONG1' }))).toBe(
        'INVALID_PICKUP_CODE',
      );
    } finally {
      await set({ business: { pickupCodeRequired: true } });
    }
    expect(code(await setStatus(t, s.token, a.id, { status: 'COMPLETED' }))).toBe('VALIDATION_ERROR');
    await assertMoneyInvariants(t.app);
  });
});

describe('business.dealsPaidInAppByDefault', () => {
  it('makes new deals paid in the app unless their supplier says otherwise', async () => {
    const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
    const modeOf = async (over: Record<string, unknown> = {}) =>
      ((await publishDeal(t, s, adminToken, over)) as { paymentMode?: string }).paymentMode;
    await set({ business: { dealsPaidInAppByDefault: true } });
    try {
      expect(await modeOf()).toBe('IN_APP');
      expect(await modeOf({ paymentMode: 'AT_COUNTER' })).toBe('AT_COUNTER');
    } finally {
      await set({ business: { dealsPaidInAppByDefault: false } });
    }
    expect(await modeOf()).toBe('AT_COUNTER');
  });
});

describe('business.noShowRefunded', () => {
  it('switched on, sends the money of a paid booking never collected back to the client', async () => {
    const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
    const deal = await publishDeal(t, s, adminToken, { paymentMode: 'IN_APP' });
    const client = await createSignedIn(t.app);
    const booked = await call(t.app, 'POST', `/deals/${deal.id}/book`, {
      token: client.token,
      body: { quantity: 1, pickupDate: dakarDate(t, 1), paymentMethod: 'wave' },
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    const payment = booked.body.data.payment.transactionId as string;
    const session = (await t.app.services.payments.find(t.app.ctx.db, payment))!.providerSessionId!;
    await deliverWebhook(t, t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session)));
    await set({ business: { noShowRefunded: true } });
    try {
      moveTo(t, 1, '20:01');
      await t.app.jobs.drain();
      const [b] = await t.app.ctx.db.select().from(dealBookings).where(eq(dealBookings.id, booked.body.data.id));
      expect(b).toMatchObject({ status: 'NO_SHOW', paymentStatus: 'REFUNDED' });
      expect((await t.app.services.payments.find(t.app.ctx.db, payment))!.status).toBe('REFUNDED');
    } finally {
      // Access tokens live 15 minutes: the administrator signs in again.
      adminToken = (await admin(t)).token;
      await set({ business: { noShowRefunded: false } });
    }
    await assertMoneyInvariants(t.app);
  }, 120_000);
});

describe('mobilemoney.<method>', () => {
  it('names, prices and offers each method as set', async () => {
    const providers = async () =>
      (await call(t.app, 'GET', '/orders/payments/providers')).body.data as {
        method: string;
        displayName: string;
        feeBps: number;
      }[];
    await set({ mobilemoney: { card: { displayName: 'Carte Visa', feeBps: 300 }, freeMoney: { enabled: false } } });
    try {
      const now = await providers();
      expect(now.find((m) => m.method === 'card')).toMatchObject({ displayName: 'Carte Visa', feeBps: 300 });
      expect(now.map((m) => m.method)).toEqual(['wave', 'orangeMoney', 'card']);
      const s = await shop(t, adminToken);
      const res = await call(t.app, 'POST', '/orders', {
        token: (await newClient(t)).token,
        body: { items: [{ productId: s.products[0]!.id, quantity: 1 }], paymentMethod: 'freeMoney' },
      });
      expect([res.status, res.body.error.details?.[0]?.field]).toEqual([400, 'body.paymentMethod']);
    } finally {
      await set({
        mobilemoney: { card: { displayName: 'Carte bancaire', feeBps: 250 }, freeMoney: { enabled: true } },
      });
    }
    expect((await providers()).find((m) => m.method === 'card')).toMatchObject({
      displayName: 'Carte bancaire',
      feeBps: 250,
    });
    await assertMoneyInvariants(t.app);
  });
});

describe('features.donationsEnabled', () => {
  it('switched off, refuses new donations and lets those under way finish, their money included', async () => {
    const donor = await createSignedIn(t.app);
    const association = await createAssociation(t.app);
    const associationId = association.association.id;
    await t.app.ctx.db
      .update(associations)
      .set({ payoutPhone: '+221770001234' })
      .where(eq(associations.id, associationId));
    const supplier = await supplierWithStore(t);
    const give = (body: Record<string, unknown>, key = uuidv7()) =>
      call(t.app, 'POST', '/donations/financial', { token: donor.token, body, headers: { 'idempotency-key': key } });
    const window = () => ({
      pickupWindowStart: new Date(t.clock.now().getTime() + HOUR).toISOString(),
      pickupWindowEnd: new Date(t.clock.now().getTime() + 5 * HOUR).toISOString(),
    });
    const food = () =>
      call(t.app, 'POST', '/donations/food', {
        token: supplier.token,
        body: {
          associationId,
          items: [{ name: 'Pain de la veille', quantity: 10, unitWeightGrams: 250 }],
          ...window(),
        },
      });

    const money = { associationId, amount: 5000, paymentMethod: 'wave' };
    const key = uuidv7();
    const started = await give(money, key);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const goods = await food();
    expect(goods.status, JSON.stringify(goods.body)).toBe(201);

    await set({ features: { donationsEnabled: false } });
    try {
      for (const refused of [await give(money), await food()]) {
        expect([refused.status, code(refused)]).toEqual([403, 'FEATURE_DISABLED']);
        expect(refused.body.error.message).toContain('features.donationsEnabled');
      }
      // The answer of a donation made before is replayed, and its payment still completes.
      const replayed = await give(money, key);
      expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([201, 'true']);
      const session = [...t.mobilemoney.sessions.values()].find(
        (x) => x.client_reference === started.body.data.payment.transactionId,
      )!;
      expect(
        (await deliverWebhook(t, t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(session.id))))
          .outcome,
      ).toBe('applied');
      const paid = await call(t.app, 'GET', `/donations/${started.body.data.donation.id}`, { token: donor.token });
      expect(paid.body.data.status).toBe('PAID');
      expect(
        (await call(t.app, 'POST', `/donations/${paid.body.data.id}/receipt`, { token: donor.token })).status,
      ).toBe(200);
      // The food donation under way goes on.
      const accepted = await call(t.app, 'PATCH', `/donations/${goods.body.data.id}/status`, {
        token: association.token,
        body: { status: 'ACCEPTED' },
      });
      expect([accepted.status, accepted.body.data?.status]).toEqual([200, 'ACCEPTED']);
      expect((await call(t.app, 'GET', '/donations/my-donations', { token: donor.token })).body.meta.total).toBe(1);
    } finally {
      await set({ features: { donationsEnabled: true } });
    }
    expect((await give(money)).status).toBe(201);
    await assertMoneyInvariants(t.app);
  });
});

describe('features.advertisingEnabled', () => {
  it('switched off, serves no ad and refuses what starts or changes one; withdrawing and reading stay open', async () => {
    const a = await advertiser(t);
    const live = await activeCampaign(t, a, adminToken);
    const paused = await activeCampaign(t, a, adminToken);
    expect((await call(t.app, 'POST', `/advertising/campaigns/${paused.id}/pause`, { token: a.token })).status).toBe(
      200,
    );
    const draft = (await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t) })).body
      .data;
    const ads = async (city = live.city!) =>
      (await call(t.app, 'GET', '/advertising/ads', { query: { placement: 'HOME_BANNER', city } })).body.data as {
        id: string;
        clickToken: string;
      }[];
    const seen = await ads();
    expect(seen.map((x) => x.id)).toEqual([live.id]);

    await set({ features: { advertisingEnabled: false } });
    try {
      expect(await ads()).toEqual([]);
      // An ad shown before still leads where it said, and costs nothing.
      const click = await call(t.app, 'POST', `/advertising/ads/${live.id}/click`, {
        body: { token: seen[0]!.clickToken },
      });
      expect(click.body.data).toMatchObject({ counted: false, target: { type: 'URL' } });
      const someone = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
      for (const refused of [
        await call(t.app, 'POST', '/advertising/profile', { token: someone.token, body: profileBody() }),
        await call(t.app, 'PUT', '/advertising/profile', { token: a.token, body: { companyName: 'Autre' } }),
        await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t) }),
        await call(t.app, 'PUT', `/advertising/campaigns/${draft.id}`, { token: a.token, body: { name: 'Autre' } }),
        await call(t.app, 'POST', `/advertising/campaigns/${draft.id}/submit`, { token: a.token }),
        await call(t.app, 'POST', `/advertising/campaigns/${paused.id}/resume`, { token: a.token }),
      ]) {
        expect([refused.status, code(refused)]).toEqual([403, 'FEATURE_DISABLED']);
        expect(refused.body.error.message).toContain('features.advertisingEnabled');
      }
      expect(
        (await call(t.app, 'GET', `/advertising/campaigns/${live.id}/stats`, { token: a.token })).body.data.totals
          .clicks,
      ).toBe(0);
      expect(
        (await call(t.app, 'POST', `/advertising/campaigns/${live.id}/pause`, { token: a.token })).body.data.status,
      ).toBe('PAUSED');
      expect((await call(t.app, 'DELETE', `/advertising/campaigns/${draft.id}`, { token: a.token })).status).toBe(200);
    } finally {
      await set({ features: { advertisingEnabled: true } });
    }
    expect(
      (await call(t.app, 'POST', `/advertising/campaigns/${paused.id}/resume`, { token: a.token })).body.data.status,
    ).toBe('ACTIVE');
    expect((await ads(paused.city)).map((x) => x.id)).toEqual([paused.id]);
  });
});
