import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
});
afterAll(() => t.close());

const uniqueCity = () => `Testville ${uuidv7()}`;
const ids = (res: { body: any }) => res.body.data.map((s: { id: string }) => s.id);
const actions = (id: string) => listAdminActions(t.app.ctx.db, 'supplier', id);
/** A supplier created a second after the previous one, so orders by creation time are certain. */
const later = (opts: Parameters<typeof createSupplier>[1]) => {
  t.clock.advance(1000);
  return createSupplier(t.app, opts);
};

describe('access', () => {
  it('is for administrators only', async () => {
    const supplier = await createSupplier(t.app);
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const id = supplier.profile.id;
    const routes: [string, string, unknown?][] = [
      ['GET', '/admin/suppliers'],
      ['GET', '/admin/suppliers/pending'],
      ['GET', `/admin/suppliers/${id}`],
      ['GET', `/admin/suppliers/${id}/stores`],
      ['PATCH', `/admin/suppliers/${id}/verify`],
      ['PATCH', `/admin/suppliers/${id}/reject`, { reason: 'Incomplete' }],
      ['PATCH', `/admin/suppliers/${id}/commission`, { commissionRateBps: 0 }],
      ['POST', '/admin/suppliers/bulk-verify', { ids: [id] }],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(t.app, method, url, { body })).status).toBe(401);
      expect((await call(t.app, method, url, { token: client.token, body })).status).toBe(403);
      const asSupplier = await call(t.app, method, url, { token: supplier.token, body });
      expect(asSupplier.status).toBe(403);
      expect(asSupplier.body.error.code).toBe('FORBIDDEN');
    }
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: supplier.token })).body.data).toMatchObject({
      verificationStatus: 'VERIFIED',
      commissionRateBps: supplier.profile.commissionRateBps,
    });
  });
});

describe('listing', () => {
  it('filters by status, KYC status, category, city and search, with the owner', async () => {
    const city = uniqueCity();
    const a = await later({ city, verification: 'PENDING', kycStatus: 'APPROVED', businessName: 'Alpha Market' });
    const b = await later({ city, verification: 'VERIFIED', kycStatus: 'APPROVED' });
    const c = await later({ city, verification: 'REJECTED', role: 'SUPPLIER_DEALS' });
    const list = (query: Record<string, string | number | boolean> = {}) =>
      call(t.app, 'GET', '/admin/suppliers', { token: admin.token, query: { city, ...query } });

    const all = await list();
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([c.profile.id, b.profile.id, a.profile.id]);
    expect(all.body.meta.total).toBe(3);
    expect(all.body.data[2]).toMatchObject({
      userId: a.user.id,
      owner: { id: a.user.id, phoneNumber: a.user.phoneNumber, status: 'ACTIVE' },
      kycStatus: 'APPROVED',
      payoutPhone: null,
      deletedAt: null,
    });
    expect(ids(await list({ status: 'VERIFIED' }))).toEqual([b.profile.id]);
    expect(ids(await list({ kycStatus: 'NOT_SUBMITTED' }))).toEqual([c.profile.id]);
    expect(ids(await list({ category: 'DEALS' }))).toEqual([c.profile.id]);
    expect(ids(await list({ search: 'alpha mar' }))).toEqual([a.profile.id]);
    expect(ids(await list({ search: a.user.phoneNumber!.slice(1) }))).toEqual([a.profile.id]);
    expect(ids(await list({ search: '%' }))).toEqual([]);
    expect(ids(await list({ limit: 1, page: 2 }))).toEqual([b.profile.id]);

    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: b.token })).status).toBe(200);
    expect(ids(await list())).toEqual([c.profile.id, a.profile.id]);
    const withDeleted = await list({ includeDeleted: true });
    expect(ids(withDeleted)).toEqual([c.profile.id, b.profile.id, a.profile.id]);
    expect(withDeleted.body.data[1].deletedAt).toEqual(expect.any(String));

    const bad = await call(t.app, 'GET', '/admin/suppliers', {
      token: admin.token,
      query: { status: 'DONE', limit: 101, foo: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['query.status', 'query.limit', 'query.foo']),
    );
  });

  it('lists pending suppliers oldest first', async () => {
    const city = uniqueCity();
    const first = await later({ city, verification: 'PENDING' });
    await later({ city, verification: 'VERIFIED' });
    const second = await later({ city, verification: 'PENDING', kycStatus: 'APPROVED' });
    const res = await call(t.app, 'GET', '/admin/suppliers/pending', { token: admin.token, query: { city } });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([first.profile.id, second.profile.id]);
    const ready = await call(t.app, 'GET', '/admin/suppliers/pending', {
      token: admin.token,
      query: { city, kycStatus: 'APPROVED' },
    });
    expect(ids(ready)).toEqual([second.profile.id]);
  });
});

describe('verification', () => {
  it('verifies a pending supplier with approved KYC, records the decision, and makes it public', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(404);

    const res = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.profile.id,
      verificationStatus: 'VERIFIED',
      verifiedAt: expect.any(String),
    });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(200);
    expect(await actions(s.profile.id)).toEqual([
      expect.objectContaining({
        actorId: admin.user.id,
        action: 'supplier.verified',
        data: { from: 'PENDING', to: 'VERIFIED' },
      }),
    ]);

    const again = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, { token: admin.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_TRANSITION');
    expect(await actions(s.profile.id)).toHaveLength(1);
  });

  it('records an optional reason with the verification, bounded to 500 characters', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const url = `/admin/suppliers/${s.profile.id}/verify`;
    for (const body of [{ reason: '' }, { reason: 'x'.repeat(501) }, { reason: 'ok', note: 1 }]) {
      const bad = await call(t.app, 'PATCH', url, { token: admin.token, body });
      expect(bad.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect(await actions(s.profile.id)).toEqual([]);
    const res = await call(t.app, 'PATCH', url, {
      token: admin.token,
      body: { reason: 'Visited the shop; documents match' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ verificationStatus: 'VERIFIED', rejectionReason: null });
    expect(await actions(s.profile.id)).toEqual([
      expect.objectContaining({
        action: 'supplier.verified',
        reason: 'Visited the shop; documents match',
        data: { from: 'PENDING', to: 'VERIFIED' },
      }),
    ]);
  });

  it('refuses to verify a supplier whose KYC is not approved', async () => {
    for (const kycStatus of ['NOT_SUBMITTED', 'PENDING', 'REJECTED'] as const) {
      const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus });
      const res = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, { token: admin.token });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('KYC_NOT_APPROVED');
      expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.verificationStatus).toBe(
        'PENDING',
      );
      expect(await actions(s.profile.id)).toEqual([]);
    }
  });

  it('rejects with a reason the supplier can read; an edit submits the profile again', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const noReason = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/reject`, {
      token: admin.token,
      body: {},
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual([{ field: 'body.reason', message: 'is required' }]);

    const res = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/reject`, {
      token: admin.token,
      body: { reason: 'The address does not match the documents' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      verificationStatus: 'REJECTED',
      rejectionReason: 'The address does not match the documents',
    });
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.rejectionReason).toBe(
      'The address does not match the documents',
    );
    expect(await actions(s.profile.id)).toEqual([
      expect.objectContaining({ action: 'supplier.rejected', reason: 'The address does not match the documents' }),
    ]);

    const twice = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/reject`, {
      token: admin.token,
      body: { reason: 'Again' },
    });
    expect(twice.status).toBe(409);
    const verifyRejected = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, {
      token: admin.token,
    });
    expect(verifyRejected.status).toBe(409);
    expect(verifyRejected.body.error.code).toBe('INVALID_TRANSITION');

    expect(
      (await call(t.app, 'PUT', '/suppliers/profile', { token: s.token, body: { address: '7 Rue Carnot' } })).body.data
        .verificationStatus,
    ).toBe('PENDING');
    const verified = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/verify`, { token: admin.token });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ verificationStatus: 'VERIFIED', rejectionReason: null });
  });

  it('withdraws a verification, which hides the supplier', async () => {
    const s = await createSupplier(t.app, { verification: 'VERIFIED', kycStatus: 'APPROVED' });
    const res = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/reject`, {
      token: admin.token,
      body: { reason: 'Repeated complaints about expired food' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ verificationStatus: 'REJECTED', verifiedAt: null });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(404);
  });

  it('answers 404 for unknown or deleted suppliers and 400 for malformed ids', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(200);
    for (const id of [s.profile.id, uuidv7()]) {
      const res = await call(t.app, 'PATCH', `/admin/suppliers/${id}/verify`, { token: admin.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const malformed = await call(t.app, 'PATCH', '/admin/suppliers/123/reject', {
      token: admin.token,
      body: { reason: 'Nope' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].field).toBe('params.id');
  });
});

describe('bulk verification', () => {
  it('verifies each id it can and says why it skipped the others', async () => {
    const ok1 = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const ok2 = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const noKyc = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'PENDING' });
    const already = await createSupplier(t.app, { verification: 'VERIFIED', kycStatus: 'APPROVED' });
    const unknown = uuidv7();
    const res = await call(t.app, 'POST', '/admin/suppliers/bulk-verify', {
      token: admin.token,
      body: { ids: [ok1.profile.id, noKyc.profile.id, already.profile.id, unknown, ok2.profile.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      verified: 2,
      skipped: 3,
      results: [
        { id: ok1.profile.id, result: 'VERIFIED' },
        { id: noKyc.profile.id, result: 'SKIPPED', code: 'KYC_NOT_APPROVED', reason: expect.any(String) },
        { id: already.profile.id, result: 'SKIPPED', code: 'INVALID_TRANSITION', reason: expect.any(String) },
        { id: unknown, result: 'SKIPPED', code: 'NOT_FOUND', reason: 'Supplier not found' },
        { id: ok2.profile.id, result: 'VERIFIED' },
      ],
    });
    for (const s of [ok1, ok2]) expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(200);
    expect((await call(t.app, 'GET', `/suppliers/${noKyc.profile.id}`)).status).toBe(404);
    expect(await actions(ok2.profile.id)).toHaveLength(1);
    expect(await actions(noKyc.profile.id)).toHaveLength(0);
  });

  it('records the optional reason for each supplier it verifies', async () => {
    const a = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const b = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const skipped = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'PENDING' });
    const send = (body: unknown) => call(t.app, 'POST', '/admin/suppliers/bulk-verify', { token: admin.token, body });
    const ids = [a.profile.id, skipped.profile.id, b.profile.id];
    expect((await send({ ids, reason: '' })).status).toBe(400);
    expect((await send({ ids, reason: 'x'.repeat(501) })).body.error.details[0].field).toBe('body.reason');
    const res = await send({ ids, reason: 'Launch partners, checked by phone' });
    expect(res.body.data).toMatchObject({ verified: 2, skipped: 1 });
    for (const s of [a, b]) {
      expect(await actions(s.profile.id)).toEqual([
        expect.objectContaining({ action: 'supplier.verified', reason: 'Launch partners, checked by phone' }),
      ]);
    }
    expect(await actions(skipped.profile.id)).toEqual([]);
  });

  it('takes between 1 and 100 distinct ids', async () => {
    const send = (ids: unknown) =>
      call(t.app, 'POST', '/admin/suppliers/bulk-verify', { token: admin.token, body: { ids } });
    expect((await send([])).status).toBe(400);
    expect((await send(Array.from({ length: 101 }, () => uuidv7()))).status).toBe(400);
    const id = uuidv7();
    expect((await send([id, id])).status).toBe(400);
    expect((await send(['not-an-id'])).body.error.details[0].field).toBe('body.ids.0');
    expect(
      (
        await call(t.app, 'POST', '/admin/suppliers/bulk-verify', {
          token: admin.token,
          body: { ids: [id], force: true },
        })
      ).status,
    ).toBe(400);
    const hundred = await send(Array.from({ length: 100 }, () => uuidv7()));
    expect(hundred.status).toBe(200);
    expect(hundred.body.data).toMatchObject({ verified: 0, skipped: 100 });
  });
});

describe('commission', () => {
  it('changes the rate, keeps the history with who, when and why, and records the decision', async () => {
    const s = await createSupplier(t.app);
    const url = `/admin/suppliers/${s.profile.id}/commission`;
    const first = await call(t.app, 'PATCH', url, {
      token: admin.token,
      body: { commissionRateBps: 750, reason: 'Launch partner' },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: s.profile.id, commissionRateBps: 750 });
    expect(first.body.data.commissionHistory).toEqual([
      {
        id: expect.any(String),
        actorId: admin.user.id,
        oldRateBps: s.profile.commissionRateBps,
        newRateBps: 750,
        reason: 'Launch partner',
        createdAt: expect.any(String),
      },
    ]);

    t.clock.advance(1000);
    const second = await call(t.app, 'PATCH', url, { token: admin.token, body: { commissionRateBps: 0 } });
    expect(second.body.data.commissionRateBps).toBe(0);
    expect(
      second.body.data.commissionHistory.map((c: { oldRateBps: number; newRateBps: number }) => [
        c.oldRateBps,
        c.newRateBps,
      ]),
    ).toEqual([
      [750, 0],
      [s.profile.commissionRateBps, 750],
    ]);
    // Asking for the current rate changes nothing and adds no history.
    const same = await call(t.app, 'PATCH', url, { token: admin.token, body: { commissionRateBps: 0 } });
    expect(same.status).toBe(200);
    expect(same.body.data.commissionHistory).toHaveLength(2);

    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.commissionRateBps).toBe(0);
    expect((await actions(s.profile.id)).map((a) => a.action)).toEqual([
      'supplier.commission_changed',
      'supplier.commission_changed',
    ]);
  });

  it('reads one supplier in any state with its owner and commission history; deleted ones too', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'PENDING' });
    const url = `/admin/suppliers/${s.profile.id}`;
    const fresh = await call(t.app, 'GET', url, { token: admin.token });
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toMatchObject({
      id: s.profile.id,
      verificationStatus: 'PENDING',
      kycStatus: 'PENDING',
      owner: { id: s.user.id, phoneNumber: s.user.phoneNumber, status: 'ACTIVE' },
      commissionHistory: [],
      deletedAt: null,
    });
    await call(t.app, 'PATCH', `${url}/commission`, {
      token: admin.token,
      body: { commissionRateBps: 900, reason: 'Pilot' },
    });
    const changed = await call(t.app, 'GET', url, { token: admin.token });
    expect(changed.body.data.commissionHistory).toMatchObject([
      { newRateBps: 900, reason: 'Pilot', actorId: admin.user.id },
    ]);

    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(200);
    const deleted = await call(t.app, 'GET', url, { token: admin.token });
    expect(deleted.body.data.deletedAt).toEqual(expect.any(String));
    expect((await call(t.app, 'GET', `/admin/suppliers/${uuidv7()}`, { token: admin.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/admin/suppliers/not-an-id', { token: admin.token })).status).toBe(400);
  });

  it('takes whole basis points from 0 to 10000', async () => {
    const s = await createSupplier(t.app);
    const url = `/admin/suppliers/${s.profile.id}/commission`;
    for (const commissionRateBps of [-1, 10_001, 12.5, '500', null]) {
      const res = await call(t.app, 'PATCH', url, { token: admin.token, body: { commissionRateBps } });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe('body.commissionRateBps');
    }
    expect(
      (await call(t.app, 'PATCH', url, { token: admin.token, body: { commissionRateBps: 500, note: 'x' } })).status,
    ).toBe(400);
    expect(
      (await call(t.app, 'PATCH', url, { token: admin.token, body: { commissionRateBps: 10_000 } })).body.data
        .commissionRateBps,
    ).toBe(10_000);
    expect(
      (
        await call(t.app, 'PATCH', `/admin/suppliers/${uuidv7()}/commission`, {
          token: admin.token,
          body: { commissionRateBps: 1 },
        })
      ).status,
    ).toBe(404);
  });
});
