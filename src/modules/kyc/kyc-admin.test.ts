import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { keyOf, postMultipart, validParts } from './kyc.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// A fresh administrator per test: tests move the clock, and tokens live 15 minutes.
const admin = () => createSignedIn(t.app, { role: 'ADMIN' });

async function supplierWithAttempt(opts: Parameters<typeof createSupplier>[1] = {}) {
  const s = await createSupplier(t.app, opts);
  const res = await postMultipart(
    t.app,
    '/suppliers/profile/kyc',
    s.token,
    await validParts([{ name: 'documentType', value: 'NATIONAL_ID' }]),
  );
  expect(res.status).toBe(201);
  return { ...s, attemptId: res.body.data.id as string };
}

const own = async (token: string) => (await call(t.app, 'GET', '/suppliers/profile/kyc', { token })).body.data;
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';

describe('access to the administration routes', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/admin/suppliers/kyc/pending'],
    ['POST', `/admin/suppliers/${MISSING}/kyc/verify`],
    ['POST', `/admin/suppliers/${MISSING}/kyc/reject`, { reason: 'x' }],
    ['GET', '/admin/kyc/stats'],
    ['GET', '/admin/kyc/pending'],
    ['GET', '/admin/kyc/attempts'],
    ['GET', `/admin/kyc/attempts/${MISSING}`],
    ['POST', `/admin/kyc/attempts/${MISSING}/review`, { decision: 'APPROVE' }],
    ['POST', `/admin/kyc/suppliers/${MISSING}/force-verify`, { reason: 'x' }],
    ['POST', `/admin/kyc/suppliers/${MISSING}/request-resubmission`, { reason: 'x' }],
  ];

  it('refuses no token with 401 and other roles with 403, before reading the body', async () => {
    const supplier = await createSupplier(t.app);
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    for (const [method, url, body] of routes) {
      const anonymous = await call(t.app, method, url, { body });
      expect(anonymous.status, `${method} ${url}`).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      for (const token of [supplier.token, client.token]) {
        const res = await call(t.app, method, url, { token, body: method === 'POST' ? { junk: true } : undefined });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
  });

  it('lets a super administrator in too', async () => {
    const root = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
    expect((await call(t.app, 'GET', '/admin/kyc/stats', { token: root.token })).status).toBe(200);
  });
});

describe('listing attempts', () => {
  it('lists pending attempts oldest first, on both routes, with the supplier', async () => {
    const first = await supplierWithAttempt();
    const second = await supplierWithAttempt();
    const a = await admin();
    for (const url of ['/admin/kyc/pending', '/admin/suppliers/kyc/pending']) {
      const res = await call(t.app, 'GET', url, { token: a.token, query: { limit: 100 } });
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({
        page: 1,
        limit: 100,
        total: expect.any(Number),
        totalPages: expect.any(Number),
      });
      expect(res.body.data.every((x: { status: string }) => x.status === 'PENDING')).toBe(true);
      const ids = res.body.data.map((x: { id: string }) => x.id);
      expect(ids.indexOf(first.attemptId)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(first.attemptId)).toBeLessThan(ids.indexOf(second.attemptId));
      const item = res.body.data.find((x: { id: string }) => x.id === first.attemptId);
      expect(item).toMatchObject({
        supplierId: first.profile.id,
        submittedBy: first.user.id,
        documentType: 'NATIONAL_ID',
        reviewerId: null,
        supplier: {
          id: first.profile.id,
          businessName: first.profile.businessName,
          kycStatus: 'PENDING',
          verificationStatus: 'VERIFIED',
        },
      });
      expect(item).not.toHaveProperty('documents');
    }
  });

  it('filters all attempts by status and supplier, and pages', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, {
      token: a.token,
      body: { reason: 'Expired ID' },
    });
    await postMultipart(t.app, '/suppliers/profile/kyc', s.token, await validParts());

    const all = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: a.token,
      query: { supplierId: s.profile.id },
    });
    expect(all.status).toBe(200);
    expect(all.body.data.map((x: { status: string }) => x.status)).toEqual(['PENDING', 'REJECTED']);
    expect(all.body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });

    const rejected = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: a.token,
      query: { supplierId: s.profile.id, status: 'REJECTED' },
    });
    expect(rejected.body.data).toHaveLength(1);
    expect(rejected.body.data[0]).toMatchObject({ id: s.attemptId, reviewerId: a.user.id, reviewReason: 'Expired ID' });

    const page2 = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: a.token,
      query: { supplierId: s.profile.id, limit: 1, page: 2 },
    });
    expect(page2.body.data.map((x: { id: string }) => x.id)).toEqual([s.attemptId]);
    expect(page2.body.meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });

    const other = await call(t.app, 'GET', '/admin/kyc/attempts', { token: a.token, query: { supplierId: MISSING } });
    expect(other.body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('rejects malformed filters field by field', async () => {
    const a = await admin();
    const res = await call(t.app, 'GET', '/admin/kyc/attempts', {
      token: a.token,
      query: { status: 'LOST', supplierId: 'abc', limit: 0, sort: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'query.limit',
      'query.sort',
      'query.status',
      'query.supplierId',
    ]);
    expect((await call(t.app, 'GET', '/admin/kyc/pending', { token: a.token, query: { page: 0 } })).status).toBe(400);
  });
});

describe('GET /admin/kyc/attempts/:attemptId', () => {
  it('shows the documents through links that expire in about five minutes, and the decisions', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    const res = await call(t.app, 'GET', `/admin/kyc/attempts/${s.attemptId}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.attemptId, status: 'PENDING', supplierId: s.profile.id, history: [] });
    expect(res.body.data.documents).toHaveLength(2);
    for (const d of res.body.data.documents) {
      expect(keyOf(d.url).startsWith(`kyc/${s.profile.id}/`)).toBe(true);
      const ttl = new Date(d.expiresAt).getTime() - t.clock.now().getTime();
      expect(ttl).toBeGreaterThan(240_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
      const file = await t.app.inject({ method: 'GET', url: d.url });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe(d.contentType);
      expect(file.rawPayload.length).toBe(d.sizeBytes);
    }

    await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'APPROVE', reason: 'Documents match' },
    });
    const after = await call(t.app, 'GET', `/admin/kyc/attempts/${s.attemptId}`, { token: a.token });
    expect(after.body.data.history).toEqual([
      {
        action: 'kyc.approve',
        actorId: a.user.id,
        from: 'PENDING',
        to: 'APPROVED',
        reason: 'Documents match',
        at: after.body.data.reviewedAt,
      },
    ]);
  });

  it('answers 404 for an unknown attempt and 400 for a malformed id', async () => {
    const a = await admin();
    const unknown = await call(t.app, 'GET', `/admin/kyc/attempts/${MISSING}`, { token: a.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const malformed = await call(t.app, 'GET', '/admin/kyc/attempts/not-a-uuid', { token: a.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].field).toBe('params.attemptId');
  });
});

describe('POST /admin/kyc/attempts/:attemptId/review', () => {
  it('approves: records the reviewer, the time and the reason, and moves the supplier to APPROVED', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'APPROVE' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.attemptId,
      status: 'APPROVED',
      reviewerId: a.user.id,
      reviewReason: null,
      supplier: { kycStatus: 'APPROVED' },
    });
    expect(new Date(res.body.data.reviewedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(res.body.data.submittedAt).getTime(),
    );
    expect(await own(s.token)).toMatchObject({ kycStatus: 'APPROVED', canSubmit: false });

    const again = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'REJECT', reason: 'Changed my mind' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_TRANSITION');
    expect((await own(s.token)).attempts[0]).toMatchObject({ status: 'APPROVED', reviewReason: null });
  });

  it('rejects only with a reason, which the supplier can read', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    const noReason = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'REJECT' },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'body.reason', message: expect.any(String) }],
    });
    const blank = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'REJECT', reason: '   ' },
    });
    expect(blank.status).toBe(400);
    expect((await own(s.token)).kycStatus).toBe('PENDING');

    const res = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'REJECT', reason: 'Name differs from the registration' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'REJECTED', reviewReason: 'Name differs from the registration' });
    expect(await own(s.token)).toMatchObject({
      kycStatus: 'REJECTED',
      canSubmit: true,
      attempts: [{ status: 'REJECTED', reviewReason: 'Name differs from the registration' }],
    });
  });

  it('validates the body and the id', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    const bad = await call(t.app, 'POST', `/admin/kyc/attempts/${s.attemptId}/review`, {
      token: a.token,
      body: { decision: 'MAYBE', extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.decision',
      'body.extra',
    ]);
    expect(
      (
        await call(t.app, 'POST', `/admin/kyc/attempts/${MISSING}/review`, {
          token: a.token,
          body: { decision: 'APPROVE' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(t.app, 'POST', '/admin/kyc/attempts/123/review', { token: a.token, body: { decision: 'APPROVE' } }))
        .status,
    ).toBe(400);
    expect((await own(s.token)).kycStatus).toBe('PENDING');
  });
});

describe('POST /admin/suppliers/:id/kyc/verify and /reject', () => {
  it('decides on the pending attempt of the supplier', async () => {
    const s = await supplierWithAttempt();
    const a = await admin();
    const res = await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/verify`, {
      token: a.token,
      body: { reason: 'Checked in person' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.attemptId,
      status: 'APPROVED',
      reviewerId: a.user.id,
      reviewReason: 'Checked in person',
    });
    const none = await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, {
      token: a.token,
      body: { reason: 'Too late' },
    });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('INVALID_TRANSITION');
  });

  it('refuses a rejection without reason, unknown and malformed suppliers, and suppliers with nothing pending', async () => {
    const s = await supplierWithAttempt();
    const idle = await createSupplier(t.app);
    const a = await admin();
    const noReason = await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, {
      token: a.token,
      body: {},
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual([{ field: 'body.reason', message: 'is required' }]);
    expect((await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, { token: a.token })).status).toBe(
      400,
    );
    expect((await call(t.app, 'POST', `/admin/suppliers/${MISSING}/kyc/verify`, { token: a.token })).status).toBe(404);
    expect((await call(t.app, 'POST', '/admin/suppliers/nope/kyc/verify', { token: a.token })).status).toBe(400);
    const nothing = await call(t.app, 'POST', `/admin/suppliers/${idle.profile.id}/kyc/verify`, { token: a.token });
    expect(nothing.status).toBe(409);
    expect((await own(s.token)).kycStatus).toBe('PENDING');
    expect((await own(idle.token)).kycStatus).toBe('NOT_SUBMITTED');
  });
});
