import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createPlan, createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { BULK_ALPHABET, BULK_CODE_LENGTH } from './promo-codes.service.js';
import { PROMO_VALIDATE_LIMIT } from './subscriptions.routes.js';

let t: TestApp;
let adminToken: string;
const DAY = 86_400_000;
const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await createSignedIn(t.app, { role: 'ADMIN' })).token;
});
afterAll(() => t.close());

const planBody = (over: Record<string, unknown> = {}) => ({
  code: unique('PRO'),
  name: 'Pro',
  priceAmount: 5000,
  maxProducts: 100,
  features: ['Statistiques'],
  ...over,
});

describe('admin plans', () => {
  it('creates, lists, changes and hides plans; the public list shows only public, active ones in order', async () => {
    const created = await call(t.app, 'POST', '/admin/subscriptions/plans', {
      token: adminToken,
      body: planBody({ sortOrder: -5, commissionDiscountBps: 200 }),
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Pro',
      priceAmount: 5000,
      periodDays: 30,
      maxProducts: 100,
      commissionDiscountBps: 200,
      features: ['Statistiques'],
      isPublic: true,
      isActive: true,
      subscriberCount: 0,
    });
    const id = created.body.data.id;
    const dup = await call(t.app, 'POST', '/admin/subscriptions/plans', {
      token: adminToken,
      body: planBody({ code: created.body.data.code.toLowerCase() }),
    });
    expect(dup.status).toBe(409);
    const unlimited = await call(t.app, 'POST', '/admin/subscriptions/plans', {
      token: adminToken,
      body: planBody({ maxProducts: null, isPublic: false }),
    });
    expect(unlimited.body.data.maxProducts).toBeNull();

    let pub = (await call(t.app, 'GET', '/subscriptions/plans')).body.data;
    expect(pub.map((p: { id: string }) => p.id)).toContain(id);
    expect(pub.map((p: { id: string }) => p.id)).not.toContain(unlimited.body.data.id);
    expect(pub[0].id).toBe(id);
    expect(pub[0]).not.toHaveProperty('subscriberCount');

    const changed = await call(t.app, 'PUT', `/admin/subscriptions/plans/${id}`, {
      token: adminToken,
      body: { priceAmount: 6000, isActive: false },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ priceAmount: 6000, isActive: false });
    pub = (await call(t.app, 'GET', '/subscriptions/plans')).body.data;
    expect(pub.map((p: { id: string }) => p.id)).not.toContain(id);
    const all = (await call(t.app, 'GET', '/admin/subscriptions/plans', { token: adminToken })).body.data;
    expect(all.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([id, unlimited.body.data.id]));

    expect((await call(t.app, 'PUT', `/admin/subscriptions/plans/${id}`, { token: adminToken, body: {} })).status).toBe(
      400,
    );
    expect(
      (await call(t.app, 'PUT', `/admin/subscriptions/plans/${id}`, { token: adminToken, body: { priceAmount: -1 } }))
        .status,
    ).toBe(400);
    expect(
      (await call(t.app, 'PUT', `/admin/subscriptions/plans/${id}`, { token: adminToken, body: { code: 'X' } })).status,
    ).toBe(400);
    expect(
      (
        await call(t.app, 'PUT', '/admin/subscriptions/plans/01900000-0000-7000-8000-000000000000', {
          token: adminToken,
          body: { name: 'x' },
        })
      ).status,
    ).toBe(404);
  });

  it('refuses to delete a plan while suppliers are on it (409 with the count), and keeps FREE free and undeletable', async () => {
    const plan = await createPlan(t.app, { maxProducts: 20 });
    const s = await createSupplier(t.app);
    expect(
      (await call(t.app, 'POST', '/subscriptions/subscribe', { token: s.token, body: { planId: plan.id } })).status,
    ).toBe(200);
    const refused = await call(t.app, 'DELETE', `/admin/subscriptions/plans/${plan.id}`, { token: adminToken });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'PLAN_HAS_SUBSCRIBERS',
      details: [{ field: 'subscriberCount', message: '1' }],
    });
    expect(refused.body.error.message).toContain('1 supplier');
    const listed = (await call(t.app, 'GET', '/admin/subscriptions/plans', { token: adminToken })).body.data.find(
      (p: { id: string }) => p.id === plan.id,
    );
    expect(listed.subscriberCount).toBe(1);

    const free = (await call(t.app, 'GET', '/subscriptions/plans')).body.data.find(
      (p: { code: string }) => p.code === 'FREE',
    );
    expect(
      (await call(t.app, 'POST', '/subscriptions/subscribe', { token: s.token, body: { planId: free.id } })).status,
    ).toBe(200);
    const gone = await call(t.app, 'DELETE', `/admin/subscriptions/plans/${plan.id}`, { token: adminToken });
    expect(gone.status).toBe(200);
    expect(
      (await call(t.app, 'GET', '/admin/subscriptions/plans', { token: adminToken })).body.data.map(
        (p: { id: string }) => p.id,
      ),
    ).not.toContain(plan.id);
    expect((await call(t.app, 'DELETE', `/admin/subscriptions/plans/${plan.id}`, { token: adminToken })).status).toBe(
      404,
    );

    expect((await call(t.app, 'DELETE', `/admin/subscriptions/plans/${free.id}`, { token: adminToken })).status).toBe(
      409,
    );
    expect(
      (
        await call(t.app, 'PUT', `/admin/subscriptions/plans/${free.id}`, {
          token: adminToken,
          body: { priceAmount: 100 },
        })
      ).status,
    ).toBe(400);
  });

  it('is for administrators only', async () => {
    const s = await createSupplier(t.app);
    expect((await call(t.app, 'GET', '/admin/subscriptions/plans', { token: s.token })).status).toBe(403);
    expect((await call(t.app, 'POST', '/admin/subscriptions/plans', { token: s.token, body: planBody() })).status).toBe(
      403,
    );
    expect((await call(t.app, 'GET', '/admin/subscriptions/promo-codes')).status).toBe(401);
  });
});

describe('admin promo codes', () => {
  it('creates codes unique whatever their case, changes, disables and deletes unused ones', async () => {
    const code = unique('Spring');
    const created = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code, discountBps: 1500, isPublic: true, maxUses: 10, maxUsesPerSupplier: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      code,
      discountBps: 1500,
      discountAmount: null,
      planIds: [],
      isPublic: true,
      disabled: false,
      usesCount: 0,
    });
    expect(
      (
        await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
          token: adminToken,
          body: { code: code.toUpperCase(), discountBps: 10 },
        })
      ).status,
    ).toBe(409);
    const both = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code: unique('B'), discountBps: 10, discountAmount: 100 },
    });
    expect(both.status).toBe(400);
    expect(
      (
        await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
          token: adminToken,
          body: { code: unique('N') },
        })
      ).status,
    ).toBe(400);
    const badPlan = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code: unique('P'), discountBps: 10, planIds: ['01900000-0000-7000-8000-000000000000'] },
    });
    expect(badPlan.status).toBe(400);
    expect(JSON.stringify(badPlan.body.error.details)).toContain('planIds');
    const backwards = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: {
        code: unique('W'),
        discountBps: 10,
        validFrom: '2030-01-02T00:00:00Z',
        validUntil: '2030-01-01T00:00:00Z',
      },
    });
    expect(backwards.status).toBe(400);

    const id = created.body.data.id;
    const changed = await call(t.app, 'PUT', `/admin/subscriptions/promo-codes/${id}`, {
      token: adminToken,
      body: { discountAmount: 500 },
    });
    expect(changed.body.data).toMatchObject({ discountAmount: 500, discountBps: null });
    const disabled = await call(t.app, 'POST', `/admin/subscriptions/promo-codes/${id}/disable`, { token: adminToken });
    expect(disabled.body.data).toMatchObject({ disabled: true });
    const listed = await call(t.app, 'GET', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      query: { search: code.toLowerCase(), status: 'disabled' },
    });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect(listed.body.meta).toMatchObject({ total: 1, page: 1 });
    expect(
      (
        await call(t.app, 'PUT', `/admin/subscriptions/promo-codes/${id}`, {
          token: adminToken,
          body: { disabled: false },
        })
      ).body.data.disabled,
    ).toBe(false);
    expect((await call(t.app, 'DELETE', `/admin/subscriptions/promo-codes/${id}`, { token: adminToken })).status).toBe(
      200,
    );
    expect((await call(t.app, 'DELETE', `/admin/subscriptions/promo-codes/${id}`, { token: adminToken })).status).toBe(
      404,
    );
    expect(
      (await call(t.app, 'POST', `/admin/subscriptions/promo-codes/${id}/disable`, { token: adminToken })).status,
    ).toBe(404);
    expect(
      (await call(t.app, 'POST', '/admin/subscriptions/promo-codes/not-an-id/disable', { token: adminToken })).status,
    ).toBe(400);
  });

  it('refuses to delete a code a subscription used', async () => {
    const plan = await createPlan(t.app, { priceAmount: 1000 });
    const code = unique('USED');
    const promo = await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code, discountBps: 10_000 },
    });
    const s = await createSupplier(t.app);
    expect(
      (
        await call(t.app, 'POST', '/subscriptions/subscribe', {
          token: s.token,
          body: { planId: plan.id, paymentMethod: 'wave', promoCode: code },
        })
      ).body.data.status,
    ).toBe('ACTIVE');
    const refused = await call(t.app, 'DELETE', `/admin/subscriptions/promo-codes/${promo.body.data.id}`, {
      token: adminToken,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('PROMO_CODE_USED');
  });

  it('creates N unguessable codes with a prefix, from an alphabet without look-alikes, all or nothing', async () => {
    const prefix = unique('B').slice(0, 12);
    const res = await call(t.app, 'POST', '/admin/subscriptions/promo-codes/bulk', {
      token: adminToken,
      body: { prefix, count: 50, discountBps: 1000, maxUses: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.count).toBe(50);
    const codes: string[] = res.body.data.codes;
    expect(new Set(codes).size).toBe(50);
    const pattern = new RegExp(`^${prefix.toUpperCase()}-[${BULK_ALPHABET}]{${BULK_CODE_LENGTH}}$`);
    for (const c of codes) expect(c).toMatch(pattern);
    expect(BULK_ALPHABET).not.toMatch(/[01ILO]/);
    // At least 40 bits of chance in each code.
    expect(BULK_CODE_LENGTH * Math.log2(BULK_ALPHABET.length)).toBeGreaterThanOrEqual(40);
    const batch = await call(t.app, 'GET', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      query: { batchId: res.body.data.batchId, limit: 100 },
    });
    expect(batch.body.meta.total).toBe(50);

    // A bad field anywhere: nothing is created.
    const before = (
      await call(t.app, 'GET', '/admin/subscriptions/promo-codes', { token: adminToken, query: { search: 'NOPE' } })
    ).body.meta.total;
    const bad = await call(t.app, 'POST', '/admin/subscriptions/promo-codes/bulk', {
      token: adminToken,
      body: { prefix: 'NOPE', count: 20, discountBps: 10, planIds: ['01900000-0000-7000-8000-000000000000'] },
    });
    expect(bad.status).toBe(400);
    expect(
      (await call(t.app, 'GET', '/admin/subscriptions/promo-codes', { token: adminToken, query: { search: 'NOPE' } }))
        .body.meta.total,
    ).toBe(before);
    expect(
      (
        await call(t.app, 'POST', '/admin/subscriptions/promo-codes/bulk', {
          token: adminToken,
          body: { count: 0, discountBps: 10 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(t.app, 'POST', '/admin/subscriptions/promo-codes/bulk', {
          token: adminToken,
          body: { count: 1001, discountBps: 10 },
        })
      ).status,
    ).toBe(400);
  });
});

describe('validate and available', () => {
  it('answers the discounted price, or a reason code', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { priceAmount: 9999 });
    const other = await createPlan(t.app, { priceAmount: 2000 });
    const free = await createPlan(t.app, { priceAmount: 0 });
    const mk = async (body: Record<string, unknown>) =>
      (
        await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
          token: adminToken,
          body: { code: unique('V'), discountBps: 1000, ...body },
        })
      ).body.data;
    const validate = async (code: string, planId = plan.id) =>
      (await call(t.app, 'POST', '/subscriptions/promo-codes/validate', { token: s.token, body: { code, planId } }))
        .body.data;

    const ok = await mk({ discountBps: 3333 });
    // 33.33 % of 9999 is 3332.67: halves and above round up.
    expect(await validate(ok.code.toLowerCase())).toEqual({
      valid: true,
      reason: null,
      planId: plan.id,
      listPrice: 9999,
      discountAmount: 3333,
      price: 6666,
      currency: 'XOF',
    });
    const fixed = await mk({ discountBps: undefined, discountAmount: 50_000 });
    expect(await validate(fixed.code, other.id)).toMatchObject({ valid: true, discountAmount: 2000, price: 0 });
    expect(await validate('NOSUCHCODE')).toMatchObject({
      valid: false,
      reason: 'PROMO_NOT_FOUND',
      price: 9999,
      discountAmount: 0,
    });
    expect(
      (await validate((await mk({ validUntil: new Date(t.clock.now().getTime() - DAY).toISOString() })).code)).reason,
    ).toBe('PROMO_EXPIRED');
    expect(
      (await validate((await mk({ validFrom: new Date(t.clock.now().getTime() + DAY).toISOString() })).code)).reason,
    ).toBe('PROMO_NOT_STARTED');
    expect((await validate((await mk({ planIds: [other.id] })).code)).reason).toBe('PROMO_NOT_APPLICABLE');
    expect((await validate(ok.code, free.id)).reason).toBe('PROMO_NOT_APPLICABLE');
    const off = await mk({});
    await call(t.app, 'POST', `/admin/subscriptions/promo-codes/${off.id}/disable`, { token: adminToken });
    expect((await validate(off.code)).reason).toBe('PROMO_DISABLED');

    // A supplier that already paid a plan cannot use a first-subscription code.
    const full = await mk({ discountBps: 10_000 });
    expect(
      (
        await call(t.app, 'POST', '/subscriptions/subscribe', {
          token: s.token,
          body: { planId: other.id, paymentMethod: 'wave', promoCode: full.code },
        })
      ).status,
    ).toBe(201);
    expect((await validate((await mk({ firstSubscriptionOnly: true })).code)).reason).toBe(
      'PROMO_FIRST_SUBSCRIPTION_ONLY',
    );
    const once = await mk({ discountBps: 10_000, maxUsesPerSupplier: 1 });
    await call(t.app, 'POST', '/subscriptions/subscribe', {
      token: s.token,
      body: { planId: plan.id, paymentMethod: 'wave', promoCode: once.code },
    });
    expect((await validate(once.code, other.id)).reason).toBe('PROMO_SUPPLIER_LIMIT_REACHED');
    const used = await call(t.app, 'POST', '/subscriptions/subscribe', {
      token: s.token,
      body: { planId: other.id, paymentMethod: 'wave', promoCode: once.code },
    });
    expect(used.status).toBe(409);
    expect(used.body.error.code).toBe('PROMO_SUPPLIER_LIMIT_REACHED');

    // (another account: this one has used its validations of the minute)
    const s2 = await createSupplier(t.app);
    expect(
      (
        await call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
          token: s2.token,
          body: { code: ok.code, planId: '01900000-0000-7000-8000-000000000000' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
          token: s2.token,
          body: { code: 'x', planId: plan.id },
        })
      ).status,
    ).toBe(400);
  });

  it('lets a typing burst through, then bounds each supplier account to a steady rate', async () => {
    const s = await createSupplier(t.app);
    const plan = await createPlan(t.app, { priceAmount: 1000 });
    const { burst, perMinute } = PROMO_VALIDATE_LIMIT;
    const validate = (i: number) =>
      call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
        token: s.token,
        body: { code: `GUESS${i}`, planId: plan.id },
      });
    // The test clock also runs in real time: the bound is the burst (or the tokens left) plus the steady rate over
    // the time the requests took, whatever the machine's speed.
    const batch = async (n: number) => {
      const from = t.clock.now().getTime();
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => validate(i)));
      const refill = Math.ceil(((t.clock.now().getTime() - from) * perMinute) / 60_000);
      return {
        passed: answers.filter((r) => r.status === 200).length,
        refused: answers.filter((r) => r.status === 429),
        refill,
      };
    };
    // Typing a code, one check a keystroke, all at once: the burst passes, beyond it 429 with Retry-After.
    const typed = await batch(burst + 5);
    expect(typed.passed).toBeGreaterThanOrEqual(burst);
    expect(typed.passed).toBeLessThanOrEqual(burst + typed.refill);
    expect(typed.refused[0]!.body.error.code).toBe('RATE_LIMITED');
    const refused = await validate(0);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'RATE_LIMITED']);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60 / perMinute);
    // Retry-After is honest: once it has passed, one more goes through, and the next is refused again.
    t.clock.advance(wait * 1000);
    expect((await validate(0)).status).toBe(200);
    expect((await validate(0)).status).toBe(429);
    // A minute gives the steady rate, not a new burst.
    t.clock.advance(60_000);
    const minute = await batch(perMinute + 5);
    expect(minute.passed).toBeGreaterThanOrEqual(perMinute);
    expect(minute.passed).toBeLessThanOrEqual(perMinute + 1 + minute.refill);
    expect(minute.refused.length).toBeGreaterThan(0);
    // Another supplier is not held back.
    const other = await createSupplier(t.app);
    expect(
      (
        await call(t.app, 'POST', '/subscriptions/promo-codes/validate', {
          token: other.token,
          body: { code: 'GUESS', planId: plan.id },
        })
      ).status,
    ).toBe(200);
  });

  it('lists the public codes the supplier can use now', async () => {
    const s = await createSupplier(t.app);
    const visible = unique('PUB');
    const hidden = unique('PRIV');
    const exhausted = unique('GONE');
    await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code: visible, discountBps: 500, isPublic: true },
    });
    await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code: hidden, discountBps: 500 },
    });
    await call(t.app, 'POST', '/admin/subscriptions/promo-codes', {
      token: adminToken,
      body: { code: exhausted, discountBps: 10_000, isPublic: true, maxUses: 1 },
    });
    const plan = await createPlan(t.app, { priceAmount: 1000 });
    const other = await createSupplier(t.app);
    await call(t.app, 'POST', '/subscriptions/subscribe', {
      token: other.token,
      body: { planId: plan.id, paymentMethod: 'wave', promoCode: exhausted },
    });
    const res = await call(t.app, 'GET', '/subscriptions/promo-codes/available', { token: s.token });
    expect(res.status).toBe(200);
    const codes = res.body.data.map((p: { code: string }) => p.code);
    expect(codes).toContain(visible);
    expect(codes).not.toContain(hidden);
    expect(codes).not.toContain(exhausted);
    expect(res.body.data.find((p: { code: string }) => p.code === visible)).not.toHaveProperty('usesCount');
  });
});
