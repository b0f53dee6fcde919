import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createUser } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { jpeg, keyOf, pdf, postMultipart } from '../kyc/kyc.test-support.js';
import { createAssociation, registerBody } from './associations.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const newAssociationUser = () => createSignedIn(t.app, { role: 'ASSOCIATION' });
const fetchFile = (url: string) => t.app.inject({ method: 'GET', url });

describe('registration and own profile', () => {
  it('registers once, PENDING, with phones in E.164 and the closed list of needs', async () => {
    const u = await newAssociationUser();
    const res = await call(t.app, 'POST', '/associations/register', {
      token: u.token,
      body: registerBody({ payoutPhone: '+221 77 765 43 21', contactEmail: 'Contact@Restos.SN' }),
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Les Restos du Cœur de Dakar',
      status: 'PENDING',
      isPublic: false,
      categories: ['PREPARED_MEALS', 'BAKERY'],
      payoutPhone: '+221777654321',
      contactEmail: 'contact@restos.sn',
      pickupCapacityKg: 150,
      documents: [],
      rejectionReason: null,
      verifiedAt: null,
    });
    const again = await call(t.app, 'POST', '/associations/register', { token: u.token, body: registerBody() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_EXISTS');
    const me = await call(t.app, 'GET', '/associations/me', { token: u.token });
    expect(me.body.data.id).toBe(res.body.data.id);
    // Not public while pending.
    expect((await call(t.app, 'GET', `/associations/${res.body.data.id}`)).status).toBe(404);
  });

  it('refuses bad input by field, and nothing is written', async () => {
    const u = await newAssociationUser();
    const cases: [Record<string, unknown>, string][] = [
      [{ categories: ['CAVIAR'] }, 'body.categories.0'],
      [{ categories: [] }, 'body.categories'],
      [{ categories: ['BAKERY', 'BAKERY'] }, 'body.categories'],
      [{ contactPhone: '12345' }, 'body.contactPhone'],
      [{ payoutPhone: '+999' }, 'body.payoutPhone'],
      [{ latitude: 91 }, 'body.latitude'],
      [{ pickupCapacityKg: 0 }, 'body.pickupCapacityKg'],
      [{ registrationNumber: '<script>' }, 'body.registrationNumber'],
      [{ extra: 1 }, 'body.extra'],
    ];
    for (const [over, field] of cases) {
      const res = await call(t.app, 'POST', '/associations/register', { token: u.token, body: registerBody(over) });
      expect(res.status, field).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(over),
      ).toContain(field);
    }
    const { name: _name, ...noName } = registerBody();
    expect(
      (await call(t.app, 'POST', '/associations/register', { token: u.token, body: noName })).body.error.details[0]
        .field,
    ).toBe('body.name');
    const me = await call(t.app, 'GET', '/associations/me', { token: u.token });
    expect(me.status).toBe(404);
    expect(me.body.error.code).toBe('ASSOCIATION_PROFILE_REQUIRED');
  });

  it('is for ASSOCIATION accounts only', async () => {
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const supplier = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    for (const [method, url, body] of [
      ['POST', '/associations/register', registerBody()],
      ['GET', '/associations/me'],
      ['PUT', '/associations/me', { name: 'X' }],
      ['POST', '/associations/me/reports', {}],
      ['GET', '/associations/me/reports'],
    ] as [string, string, unknown?][]) {
      expect((await call(t.app, method, url, { body })).status).toBe(401);
      for (const who of [client, supplier]) {
        const res = await call(t.app, method, url, { token: who.token, body });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
  });

  it('changes the profile; a rejected association goes back to PENDING, a verified one stays verified', async () => {
    const rejected = await createAssociation(t.app, { verification: 'REJECTED' });
    t.clock.advance(1000);
    const res = await call(t.app, 'PUT', '/associations/me', {
      token: rejected.token,
      body: { mission: 'Nouvelle mission', contactEmail: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      mission: 'Nouvelle mission',
      status: 'PENDING',
      rejectionReason: null,
      contactEmail: null,
    });
    expect(new Date(res.body.data.submittedAt).getTime()).toBeGreaterThan(rejected.association.submittedAt.getTime());

    const verified = await createAssociation(t.app);
    const changed = await call(t.app, 'PUT', '/associations/me', {
      token: verified.token,
      body: { pickupCapacityKg: 500, categories: ['DAIRY'] },
    });
    expect(changed.body.data).toMatchObject({
      status: 'VERIFIED',
      isPublic: true,
      pickupCapacityKg: 500,
      categories: ['DAIRY'],
    });
    expect((await call(t.app, 'GET', `/associations/${verified.association.id}`)).body.data.categories).toEqual([
      'DAIRY',
    ]);

    expect((await call(t.app, 'PUT', '/associations/me', { token: verified.token, body: {} })).status).toBe(400);
    const none = await call(t.app, 'PUT', '/associations/me', {
      token: (await newAssociationUser()).token,
      body: { name: 'Nouveau nom' },
    });
    expect(none.status).toBe(404);
  });
});

describe('documents', () => {
  it('are private: signed links of 5 minutes, readable only with the signature, gone when deleted', async () => {
    const a = await createAssociation(t.app, { verification: 'PENDING' });
    const res = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'REGISTRATION_CERTIFICATE' },
      { name: 'document', filename: 'recepisse.pdf', contentType: 'application/pdf', data: pdf('Recepisse') },
    ]);
    expect(res.status).toBe(201);
    const [doc] = res.body.data.documents;
    expect(doc).toMatchObject({ kind: 'REGISTRATION_CERTIFICATE', contentType: 'application/pdf' });
    expect(new Date(doc.expiresAt).getTime() - t.clock.now().getTime()).toBeLessThanOrEqual(300_000);
    const file = await fetchFile(doc.url);
    expect(file.statusCode).toBe(200);
    expect(file.body.startsWith('%PDF-')).toBe(true);
    expect((await fetchFile(`/api/v1/files/private/${keyOf(doc.url)}`)).statusCode).not.toBe(200);
    t.clock.advance(301_000);
    expect((await fetchFile(doc.url)).statusCode).not.toBe(200);

    const image = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'STATUTES' },
      { name: 'document', filename: 'statuts.jpg', contentType: 'image/jpeg', data: await jpeg() },
    ]);
    expect(image.body.data.documents.map((d: { kind: string }) => d.kind)).toEqual([
      'REGISTRATION_CERTIFICATE',
      'STATUTES',
    ]);

    const del = await call(t.app, 'DELETE', `/associations/me/documents/${doc.id}`, { token: a.token });
    expect(del.status).toBe(200);
    expect(del.body.data.documents.map((d: { kind: string }) => d.kind)).toEqual(['STATUTES']);
    expect((await call(t.app, 'DELETE', `/associations/me/documents/${doc.id}`, { token: a.token })).status).toBe(404);
    // Another association's document is not found either.
    const other = await createAssociation(t.app);
    expect(
      (
        await call(t.app, 'DELETE', `/associations/me/documents/${image.body.data.documents[0].id}`, {
          token: other.token,
        })
      ).status,
    ).toBe(404);
    expect((await call(t.app, 'DELETE', '/associations/me/documents/not-an-id', { token: other.token })).status).toBe(
      400,
    );
  });

  it('refuses a bad form, a file that is not an image or PDF, and a resubmits a rejected association', async () => {
    const a = await createAssociation(t.app, { verification: 'REJECTED' });
    const noKind = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'document', filename: 'x.pdf', data: pdf() },
    ]);
    expect(noKind.status).toBe(400);
    expect(noKind.body.error.details[0].field).toBe('body.kind');
    const badKind = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'SELFIE' },
      { name: 'document', filename: 'x.pdf', data: pdf() },
    ]);
    expect(badKind.body.error.details[0].field).toBe('body.kind');
    const noFile = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'OTHER' },
    ]);
    expect(noFile.body.error.details[0].field).toBe('body.document');
    const text = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'OTHER' },
      { name: 'document', filename: 'x.txt', data: Buffer.from('hello') },
    ]);
    expect(text.status).toBe(415);
    const two = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'OTHER' },
      { name: 'document', filename: 'a.pdf', data: pdf() },
      { name: 'document', filename: 'b.pdf', data: pdf() },
    ]);
    expect(two.status).toBe(422);
    expect((await call(t.app, 'GET', '/associations/me', { token: a.token })).body.data).toMatchObject({
      status: 'REJECTED',
      documents: [],
    });
    const ok = await postMultipart(t.app, '/associations/me/documents', a.token, [
      { name: 'kind', value: 'OTHER' },
      { name: 'document', filename: 'a.pdf', data: pdf() },
    ]);
    expect(ok.body.data.status).toBe('PENDING');
    const json = await call(t.app, 'POST', '/associations/me/documents', { token: a.token, body: { kind: 'OTHER' } });
    expect(json.status).toBe(415);
  });
});

describe('reports', () => {
  it('are created with figures, listed newest period first, public only while the association is verified', async () => {
    const a = await createAssociation(t.app);
    const create = (body: Record<string, unknown>) =>
      call(t.app, 'POST', '/associations/me/reports', { token: a.token, body });
    const first = await create({
      title: 'Bilan du premier trimestre',
      periodStart: '2026-01-01',
      periodEnd: '2026-03-31',
      body: 'Trois distributions par semaine.',
      mealsServed: 4200,
      peopleHelped: 310,
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      associationId: a.association.id,
      mealsServed: 4200,
      peopleHelped: 310,
      pdf: null,
      periodEnd: '2026-03-31',
    });
    const second = await create({
      title: 'Bilan du deuxième trimestre',
      periodStart: '2026-04-01',
      periodEnd: '2026-06-30',
      body: 'Ouverture du soir.',
    });
    expect(second.body.data).toMatchObject({ mealsServed: null, peopleHelped: null });

    const bad = await create({ title: 'Dates', periodStart: '2026-05-01', periodEnd: '2026-04-01', body: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('body.periodEnd');
    expect(
      (await create({ title: 'Dates', periodStart: '2026-13-01', periodEnd: '2026-14-01', body: 'x' })).body.error
        .details[0].field,
    ).toBe('body.periodStart');
    expect(
      (
        await create({
          title: 'Négatif',
          periodStart: '2026-01-01',
          periodEnd: '2026-01-02',
          body: 'x',
          mealsServed: -1,
        })
      ).body.error.details[0].field,
    ).toBe('body.mealsServed');

    const titles = (res: { body: any }) => res.body.data.map((r: { title: string }) => r.title);
    const own = await call(t.app, 'GET', '/associations/me/reports', { token: a.token });
    expect(titles(own)).toEqual(['Bilan du deuxième trimestre', 'Bilan du premier trimestre']);
    expect(own.body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    const pub = await call(t.app, 'GET', `/associations/${a.association.id}/reports`, { query: { limit: 1, page: 2 } });
    expect(titles(pub)).toEqual(['Bilan du premier trimestre']);
    expect(pub.body.meta.total).toBe(2);

    const pending = await createAssociation(t.app, { verification: 'PENDING' });
    expect(
      (
        await call(t.app, 'POST', '/associations/me/reports', {
          token: pending.token,
          body: { title: 'Brouillon', periodStart: '2026-01-01', periodEnd: '2026-01-31', body: 'x' },
        })
      ).status,
    ).toBe(201);
    expect((await call(t.app, 'GET', '/associations/me/reports', { token: pending.token })).body.data).toHaveLength(1);
    expect((await call(t.app, 'GET', `/associations/${pending.association.id}/reports`)).status).toBe(404);
    expect((await call(t.app, 'GET', `/associations/${uuidv7()}/reports`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/associations/nope/reports')).status).toBe(400);
  });

  it('take one PDF (images refused), replaced by a later one, read through a signed link', async () => {
    const a = await createAssociation(t.app);
    const report = (
      await call(t.app, 'POST', '/associations/me/reports', {
        token: a.token,
        body: { title: 'Rapport annuel', periodStart: '2025-01-01', periodEnd: '2025-12-31', body: 'Une année.' },
      })
    ).body.data;
    const url = `/associations/me/reports/${report.id}/pdf`;
    const image = await postMultipart(t.app, url, a.token, [{ name: 'pdf', filename: 'x.jpg', data: await jpeg() }]);
    expect(image.status).toBe(415);
    const wrongField = await postMultipart(t.app, url, a.token, [{ name: 'file', filename: 'x.pdf', data: pdf() }]);
    expect(wrongField.status).toBe(400);
    const first = await postMultipart(t.app, url, a.token, [
      { name: 'pdf', filename: 'rapport.pdf', data: pdf('Rapport 2025') },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.data.pdf.sizeBytes).toBe(pdf('Rapport 2025').length);
    const second = await postMultipart(t.app, url, a.token, [
      { name: 'pdf', filename: 'rapport.pdf', data: pdf('Rapport 2025 v2') },
    ]);
    expect(keyOf(second.body.data.pdf.url)).not.toBe(keyOf(first.body.data.pdf.url));
    const pub = await call(t.app, 'GET', `/associations/${a.association.id}/reports`);
    const file = await fetchFile(pub.body.data[0].pdf.url);
    expect(file.statusCode).toBe(200);
    expect(file.body).toContain('Rapport 2025 v2');
    // The replaced file is gone from storage, by a job once the change was saved.
    await t.app.jobs.drain();
    expect(await t.app.ctx.storage.get('private', keyOf(first.body.data.pdf.url))).toBeNull();

    const other = await createAssociation(t.app);
    expect(
      (await postMultipart(t.app, url, other.token, [{ name: 'pdf', filename: 'x.pdf', data: pdf() }])).status,
    ).toBe(404);
    expect(
      (
        await postMultipart(t.app, `/associations/me/reports/${uuidv7()}/pdf`, a.token, [
          { name: 'pdf', filename: 'x.pdf', data: pdf() },
        ])
      ).status,
    ).toBe(404);
  });
});

describe('public profile', () => {
  it('shows a verified association of an active account, without payout number or documents', async () => {
    const a = await createAssociation(t.app);
    const res = await call(t.app, 'GET', `/associations/${a.association.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: a.association.id,
      name: a.association.name,
      categories: ['BAKERY', 'DRY_GOODS'],
    });
    expect(res.body.data).not.toHaveProperty('payoutPhone');
    expect(res.body.data).not.toHaveProperty('documents');
    expect(res.body.data).not.toHaveProperty('status');

    const suspended = await createAssociation(t.app, { verification: 'VERIFIED' });
    await t.app.services.users.update(t.app.ctx.db, suspended.user.id, { status: 'SUSPENDED' });
    expect((await call(t.app, 'GET', `/associations/${suspended.association.id}`)).status).toBe(404);
    for (const status of ['PENDING', 'REJECTED'] as const) {
      const x = await createAssociation(t.app, { verification: status });
      expect((await call(t.app, 'GET', `/associations/${x.association.id}`)).status).toBe(404);
    }
    expect((await call(t.app, 'GET', `/associations/${uuidv7()}`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/associations/123')).status).toBe(400);
    // A user of another role has no association.
    expect((await call(t.app, 'GET', `/associations/${(await createUser(t.app)).id}`)).status).toBe(404);
  });
});
