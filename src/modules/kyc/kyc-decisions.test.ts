import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { listAdminActions } from '../audit/audit.service.js';
import { postMultipart, validParts } from './kyc.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// A fresh administrator per use: tests move the clock, and tokens live 15 minutes.
const admin = () => createSignedIn(t.app, { role: 'ADMIN' });
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';

async function submit(token: string) {
  const res = await postMultipart(t.app, '/suppliers/profile/kyc', token, await validParts());
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}
const own = async (token: string) => (await call(t.app, 'GET', '/suppliers/profile/kyc', { token })).body.data;
const attempt = async (token: string, id: string) =>
  (await call(t.app, 'GET', `/admin/kyc/attempts/${id}`, { token })).body.data;
/** A new session for a user whose token the moved clock has expired. */
const signInAgain = async (user: Parameters<TestApp['app']['services']['auth']['signIn']>[0]) =>
  (await t.app.services.auth.signIn(user, {})).accessToken;
const supplierActions = (supplierId: string) => listAdminActions(t.app.ctx.db, 'supplier', supplierId);

describe('POST /admin/kyc/suppliers/:supplierId/force-verify', () => {
  it('approves and verifies a supplier that never submitted, and records why', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING' });
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'Known partner, checked at the market' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      supplierId: s.profile.id,
      kycStatus: 'APPROVED',
      verificationStatus: 'VERIFIED',
      attemptId: null,
    });
    expect(await own(s.token)).toMatchObject({ kycStatus: 'APPROVED', canSubmit: false, attempts: [] });
    const [action] = await supplierActions(s.profile.id);
    expect(action).toMatchObject({
      actorId: a.user.id,
      action: 'kyc.force_verify',
      reason: 'Known partner, checked at the market',
      data: { from: 'NOT_SUBMITTED', to: 'APPROVED', attemptId: null },
    });

    const twice = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'again' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('INVALID_TRANSITION');
    expect(await supplierActions(s.profile.id)).toHaveLength(1);
  });

  it('closes a pending attempt as approved', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING' });
    const attemptId = await submit(s.token);
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'Reviewed by phone' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kycStatus: 'APPROVED', verificationStatus: 'VERIFIED', attemptId });
    const detail = await attempt(a.token, attemptId);
    expect(detail).toMatchObject({
      status: 'APPROVED',
      reviewerId: a.user.id,
      reviewReason: 'Reviewed by phone',
      supplier: { kycStatus: 'APPROVED', verificationStatus: 'VERIFIED' },
    });
    expect(detail.history).toEqual([
      expect.objectContaining({ action: 'kyc.force_verify', from: 'PENDING', to: 'APPROVED', actorId: a.user.id }),
    ]);
    const pending = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: a.token,
      query: { supplierId: s.profile.id, status: 'PENDING' },
    });
    expect(pending.body.data).toEqual([]);
  });

  it('leaves a rejected attempt as it was', async () => {
    const s = await createSupplier(t.app);
    const attemptId = await submit(s.token);
    const a = await admin();
    await call(t.app, 'POST', `/admin/kyc/attempts/${attemptId}/review`, {
      token: a.token,
      body: { decision: 'REJECT', reason: 'Unreadable' },
    });
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'Original seen at the office' },
    });
    expect(res.body.data).toMatchObject({ kycStatus: 'APPROVED', attemptId: null });
    expect((await attempt(a.token, attemptId)).status).toBe('REJECTED');
  });

  it('verifies a rejected supplier as an override, logging the verification state and the rejection it replaces', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING' });
    const a = await admin();
    const rejected = await call(t.app, 'PATCH', `/admin/suppliers/${s.profile.id}/reject`, {
      token: a.token,
      body: { reason: 'Address does not exist' },
    });
    expect(rejected.body.data).toMatchObject({
      verificationStatus: 'REJECTED',
      rejectionReason: 'Address does not exist',
    });
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'Shop moved; new address checked' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kycStatus: 'APPROVED', verificationStatus: 'VERIFIED' });
    const profile = (await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data;
    expect(profile).toMatchObject({
      verificationStatus: 'VERIFIED',
      rejectionReason: null,
      verifiedAt: expect.any(String),
    });
    const [action] = await supplierActions(s.profile.id);
    expect(action).toMatchObject({
      action: 'kyc.force_verify',
      reason: 'Shop moved; new address checked',
      data: {
        from: 'NOT_SUBMITTED',
        to: 'APPROVED',
        attemptId: null,
        verification: { from: 'REJECTED', to: 'VERIFIED' },
        previousRejectionReason: 'Address does not exist',
      },
    });
  });

  it('keeps the first verification time of a supplier that is already verified', async () => {
    const s = await createSupplier(t.app, { verification: 'VERIFIED', kycStatus: 'RESUBMISSION_REQUESTED' });
    const verifiedAt = s.profile.verifiedAt!.toISOString();
    t.clock.advance(3_600_000);
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: { reason: 'New ID card seen' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kycStatus: 'APPROVED', verificationStatus: 'VERIFIED' });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).body.data.verifiedAt).toBe(verifiedAt);
    const [action] = await supplierActions(s.profile.id);
    expect(action!.data).toEqual({
      from: 'RESUBMISSION_REQUESTED',
      to: 'APPROVED',
      attemptId: null,
      verification: { from: 'VERIFIED', to: 'VERIFIED' },
    });
  });

  it('needs a reason and an existing supplier', async () => {
    const s = await createSupplier(t.app);
    const a = await admin();
    const noReason = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: a.token,
      body: {},
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual([{ field: 'body.reason', message: 'is required' }]);
    expect(
      (
        await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
          token: a.token,
          body: { reason: 'ok', why: 1 },
        })
      ).status,
    ).toBe(400);
    const unknown = await call(t.app, 'POST', `/admin/kyc/suppliers/${MISSING}/force-verify`, {
      token: a.token,
      body: { reason: 'ok' },
    });
    expect(unknown.status).toBe(404);
    expect(
      (await call(t.app, 'POST', '/admin/kyc/suppliers/xyz/force-verify', { token: a.token, body: { reason: 'ok' } }))
        .status,
    ).toBe(400);
    expect((await own(s.token)).kycStatus).toBe('NOT_SUBMITTED');
  });
});

describe('POST /admin/kyc/suppliers/:supplierId/request-resubmission', () => {
  it('sends an approved attempt back and lets the supplier submit again', async () => {
    const s = await createSupplier(t.app);
    const attemptId = await submit(s.token);
    const a = await admin();
    await call(t.app, 'POST', `/admin/kyc/attempts/${attemptId}/review`, {
      token: a.token,
      body: { decision: 'APPROVE' },
    });
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
      token: a.token,
      body: { reason: 'The ID card has expired' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ supplierId: s.profile.id, kycStatus: 'RESUBMISSION_REQUESTED', attemptId });
    const detail = await attempt(a.token, attemptId);
    expect(detail).toMatchObject({ status: 'RESUBMISSION_REQUESTED', reviewReason: 'The ID card has expired' });
    expect(detail.history.map((h: { action: string; to: string }) => [h.action, h.to])).toEqual([
      ['kyc.approve', 'APPROVED'],
      ['kyc.request_resubmission', 'RESUBMISSION_REQUESTED'],
    ]);
    expect(await own(s.token)).toMatchObject({ kycStatus: 'RESUBMISSION_REQUESTED', canSubmit: true });
    await submit(s.token);
    expect((await own(s.token)).kycStatus).toBe('PENDING');
  });

  it('sends a pending attempt back', async () => {
    const s = await createSupplier(t.app);
    const attemptId = await submit(s.token);
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
      token: a.token,
      body: { reason: 'Please add the back side' },
    });
    expect(res.body.data).toMatchObject({ kycStatus: 'RESUBMISSION_REQUESTED', attemptId });
    const [action] = await supplierActions(s.profile.id);
    expect(action).toMatchObject({
      action: 'kyc.request_resubmission',
      actorId: a.user.id,
      reason: 'Please add the back side',
      data: { from: 'PENDING', to: 'RESUBMISSION_REQUESTED', attemptId },
    });
    const again = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
      token: a.token,
      body: { reason: 'twice' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_TRANSITION');
  });

  it('refuses when there is nothing to send back, or no reason', async () => {
    const s = await createSupplier(t.app);
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
      token: a.token,
      body: { reason: 'Nothing yet' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_TRANSITION');
    expect(
      (
        await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
          token: a.token,
          body: { reason: '' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(t.app, 'POST', `/admin/kyc/suppliers/${MISSING}/request-resubmission`, {
          token: a.token,
          body: { reason: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(await supplierActions(s.profile.id)).toEqual([]);
  });
});

describe('GET /admin/kyc/stats', () => {
  it('counts attempts per state and averages the time to the first decision', async () => {
    const s = await createSupplier(t.app);
    const before = (await call(t.app, 'GET', '/admin/kyc/stats', { token: (await admin()).token })).body.data;

    const first = await submit(s.token);
    t.clock.advance(600_000);
    await call(t.app, 'POST', `/admin/kyc/attempts/${first}/review`, {
      token: (await admin()).token,
      body: { decision: 'REJECT', reason: 'Blurred' },
    });
    const second = await submit(await signInAgain(s.user));
    t.clock.advance(1_200_000);
    const a = await admin();
    await call(t.app, 'POST', `/admin/kyc/attempts/${second}/review`, {
      token: a.token,
      body: { decision: 'APPROVE' },
    });
    // A later decision on the same attempt does not change its review time.
    t.clock.advance(3_600_000);
    const b = await admin();
    await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/request-resubmission`, {
      token: b.token,
      body: { reason: 'Expired' },
    });
    await submit(await signInAgain(s.user));

    const scoped = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: b.token,
      query: { supplierId: s.profile.id },
    });
    expect(scoped.status).toBe(200);
    expect(scoped.body.data).toMatchObject({
      total: 3,
      pending: 1,
      decided: 2,
      byStatus: { PENDING: 1, APPROVED: 0, REJECTED: 1, RESUBMISSION_REQUESTED: 1 },
    });
    // 600 s and 1200 s, plus the few milliseconds each request takes.
    expect(scoped.body.data.averageReviewSeconds).toBeGreaterThanOrEqual(900);
    expect(scoped.body.data.averageReviewSeconds).toBeLessThan(960);

    const after = (await call(t.app, 'GET', '/admin/kyc/stats', { token: b.token })).body.data;
    expect(after.total - before.total).toBeGreaterThanOrEqual(3);
    expect(after.byStatus.REJECTED - before.byStatus.REJECTED).toBeGreaterThanOrEqual(1);
    expect(after.pending).toBe(after.byStatus.PENDING);
    expect(after.total).toBe(Object.values(after.byStatus as Record<string, number>).reduce((x, y) => x + y, 0));
  });

  it('reports no average when nothing is decided, and checks its filters', async () => {
    const s = await createSupplier(t.app);
    await submit(s.token);
    const a = await admin();
    const res = await call(t.app, 'GET', '/admin/kyc/stats', { token: a.token, query: { supplierId: s.profile.id } });
    expect(res.body.data).toMatchObject({ total: 1, pending: 1, decided: 0, averageReviewSeconds: null });
    const future = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const none = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: a.token,
      query: { supplierId: s.profile.id, from: future },
    });
    expect(none.body.data).toMatchObject({ total: 0, pending: 0 });
    const bad = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: a.token,
      query: { supplierId: 'x', from: 'yesterday' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'query.from',
      'query.supplierId',
    ]);
    const reversed = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: a.token,
      query: { from: future, to: t.clock.now().toISOString() },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.details[0].field).toBe('query.to');
  });
});
