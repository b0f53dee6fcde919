import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';
import { pdf, postMultipart } from '../kyc/kyc.test-support.js';
import { createAssociation } from './associations.test-support.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
});
afterAll(() => t.close());

const uniqueCity = () => `Testville ${uuidv7()}`;
const ids = (res: { body: any }) => res.body.data.map((s: { id: string }) => s.id);
const later = (opts: Parameters<typeof createAssociation>[1]) => {
  t.clock.advance(1000);
  return createAssociation(t.app, opts);
};
const addDocument = (token: string) =>
  postMultipart(t.app, '/associations/me/documents', token, [
    { name: 'kind', value: 'REGISTRATION_CERTIFICATE' },
    { name: 'document', filename: 'r.pdf', data: pdf() },
  ]);
const inbox = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    body: string;
    data: Record<string, unknown>;
  }[];
const verify = (id: string, body?: unknown) =>
  call(t.app, 'POST', `/admin/associations/${id}/verify`, { token: admin.token, body });
const reject = (id: string, reason: string) =>
  call(t.app, 'POST', `/admin/associations/${id}/reject`, { token: admin.token, body: { reason } });

describe('access', () => {
  it('is for administrators only', async () => {
    const a = await createAssociation(t.app, { verification: 'PENDING' });
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const id = a.association.id;
    const routes: [string, string, unknown?][] = [
      ['GET', '/admin/associations'],
      ['GET', '/admin/associations/pending'],
      ['GET', '/admin/associations/stats'],
      ['POST', `/admin/associations/${id}/verify`],
      ['POST', `/admin/associations/${id}/reject`, { reason: 'Incomplete' }],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(t.app, method, url, { body })).status).toBe(401);
      for (const who of [client, a]) {
        const res = await call(t.app, method, url, { token: who.token, body });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
    expect((await call(t.app, 'GET', '/associations/me', { token: a.token })).body.data.status).toBe('PENDING');
  });
});

describe('verification', () => {
  it('verifies a pending association with documents: audited, notified, public at once', async () => {
    const a = await createAssociation(t.app, { verification: 'PENDING', name: 'Entraide Médina' });
    const id = a.association.id;
    const refused = await verify(id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DOCUMENTS_REQUIRED');
    await addDocument(a.token);
    // Cached public answers are dropped by the decision.
    expect((await call(t.app, 'GET', '/associations', { query: { q: 'entraide medina' } })).body.data).toEqual([]);

    const res = await verify(id, { reason: 'Récépissé conforme' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      status: 'VERIFIED',
      isPublic: true,
      owner: { id: a.user.id, status: 'ACTIVE' },
    });
    expect(res.body.data.documents).toHaveLength(1);
    expect(res.body.data.verifiedAt).not.toBeNull();
    expect((await call(t.app, 'GET', `/associations/${id}`)).status).toBe(200);
    expect(ids(await call(t.app, 'GET', '/associations', { query: { q: 'entraide medina' } }))).toEqual([id]);

    const [action] = await listAdminActions(t.app.ctx.db, 'association', id);
    expect(action).toMatchObject({
      action: 'association.verified',
      actorId: admin.user.id,
      reason: 'Récépissé conforme',
      data: { from: 'PENDING', to: 'VERIFIED' },
    });
    expect((await inbox(a.token)).find((n) => n.type === 'association_verified')).toMatchObject({
      data: { associationId: id },
    });

    const twice = await verify(id);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('INVALID_TRANSITION');
  });

  it('rejects with a reason, withdraws a verification, and a rejected one comes back only through a change', async () => {
    const a = await createAssociation(t.app, { verification: 'PENDING' });
    const id = a.association.id;
    await addDocument(a.token);
    const noReason = await call(t.app, 'POST', `/admin/associations/${id}/reject`, { token: admin.token, body: {} });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details[0].field).toBe('body.reason');

    const res = await reject(id, 'Numéro RNA illisible');
    expect(res.body.data).toMatchObject({
      status: 'REJECTED',
      rejectionReason: 'Numéro RNA illisible',
      isPublic: false,
    });
    const note = (await inbox(a.token)).find((n) => n.type === 'association_rejected')!;
    expect(note.body).toContain('Numéro RNA illisible');
    expect((await verify(id)).body.error.code).toBe('INVALID_TRANSITION');
    expect((await reject(id, 'Encore')).body.error.code).toBe('INVALID_TRANSITION');

    await call(t.app, 'PUT', '/associations/me', { token: a.token, body: { registrationNumber: 'RNA-W123456789' } });
    expect((await verify(id)).body.data.status).toBe('VERIFIED');
    const withdrawn = await reject(id, 'Activité arrêtée');
    expect(withdrawn.body.data.status).toBe('REJECTED');
    expect((await call(t.app, 'GET', `/associations/${id}`)).status).toBe(404);
    const history = await listAdminActions(t.app.ctx.db, 'association', id);
    expect(history.map((h) => h.action)).toEqual([
      'association.rejected',
      'association.verified',
      'association.rejected',
    ]);
  });

  it('answers 404 for an unknown association and 400 for a malformed id', async () => {
    expect((await verify(uuidv7())).status).toBe(404);
    expect((await reject(uuidv7(), 'Inconnue')).status).toBe(404);
    expect((await verify('x')).status).toBe(400);
  });
});

describe('lists and statistics', () => {
  it('lists with filters, the queue oldest first, and counts by state', async () => {
    const before = (await call(t.app, 'GET', '/admin/associations/stats', { token: admin.token })).body.data;
    const city = uniqueCity();
    const p1 = await later({ city, verification: 'PENDING', name: 'Alpha Solidarité' });
    const v = await later({ city, verification: 'VERIFIED' });
    const r = await later({ city, verification: 'REJECTED' });
    const p2 = await later({ city, verification: 'PENDING' });
    const list = (query: Record<string, string | number> = {}) =>
      call(t.app, 'GET', '/admin/associations', { token: admin.token, query: { city, ...query } });

    expect(ids(await list())).toEqual([p2, r, v, p1].map((x) => x.association.id));
    expect(ids(await list({ status: 'VERIFIED' }))).toEqual([v.association.id]);
    expect(ids(await list({ search: 'alpha solid' }))).toEqual([p1.association.id]);
    expect(ids(await list({ search: p1.association.registrationNumber }))).toEqual([p1.association.id]);
    const paged = await list({ limit: 2, page: 2 });
    expect(paged.body.meta).toEqual({ page: 2, limit: 2, total: 4, totalPages: 2 });
    expect((await list({ status: 'UNKNOWN' })).status).toBe(400);

    const pending = await call(t.app, 'GET', '/admin/associations/pending', { token: admin.token, query: { city } });
    expect(ids(pending)).toEqual([p1.association.id, p2.association.id]);
    expect(pending.body.data[0].owner).toMatchObject({ id: p1.user.id, firstName: 'Test' });

    await call(t.app, 'POST', '/associations/me/reports', {
      token: v.token,
      body: {
        title: 'Bilan',
        periodStart: '2026-01-01',
        periodEnd: '2026-01-31',
        body: 'x',
        mealsServed: 120,
        peopleHelped: 40,
      },
    });
    const stats = (await call(t.app, 'GET', '/admin/associations/stats', { token: admin.token })).body.data;
    // Other files share the PostgreSQL database and register associations at the same time: at least ours.
    expect(stats.byStatus.PENDING - before.byStatus.PENDING).toBeGreaterThanOrEqual(2);
    expect(stats.byStatus.VERIFIED - before.byStatus.VERIFIED).toBeGreaterThanOrEqual(1);
    expect(stats.byStatus.REJECTED - before.byStatus.REJECTED).toBeGreaterThanOrEqual(1);
    expect(stats.total).toBe(stats.byStatus.PENDING + stats.byStatus.VERIFIED + stats.byStatus.REJECTED);
    expect(stats.registeredLast30Days).toBeGreaterThanOrEqual(4);
    expect(stats.reports.total - before.reports.total).toBeGreaterThanOrEqual(1);
    expect(stats.reports.mealsServed - before.reports.mealsServed).toBeGreaterThanOrEqual(120);
    expect(stats.reports.peopleHelped - before.reports.peopleHelped).toBeGreaterThanOrEqual(40);
    expect(stats.oldestPendingSubmittedAt).not.toBeNull();
  });
});
