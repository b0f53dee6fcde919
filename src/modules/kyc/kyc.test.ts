import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import {
  businessPart,
  idPart,
  jpeg,
  keyOf,
  pdf,
  png,
  postMultipart,
  storedKycFiles,
  validParts,
} from './kyc.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const download = (url: string) => t.app.inject({ method: 'GET', url });
const submit = (token: string | undefined, parts: Awaited<ReturnType<typeof validParts>>) =>
  postMultipart(t.app, '/suppliers/profile/kyc', token, parts);

async function expectNothingWritten(supplier: Awaited<ReturnType<typeof createSupplier>>) {
  const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: supplier.token });
  expect(own.body.data).toMatchObject({ kycStatus: 'NOT_SUBMITTED', canSubmit: true, attempts: [] });
  expect(await storedKycFiles(t.app, supplier.profile.id)).toEqual([]);
}

describe('POST /suppliers/profile/kyc', () => {
  it('stores both documents privately and opens a pending attempt', async () => {
    const s = await createSupplier(t.app);
    const idImage = await jpeg(80, 60, 'Owner secret');
    const registration = pdf();
    const res = await submit(s.token, [
      idPart(idImage, 'carte.jpg'),
      businessPart(registration),
      { name: 'documentType', value: 'PASSPORT' },
      { name: 'businessRegistrationNumber', value: ' SN-DKR-2024-B-12345 ' },
    ]);
    expect(res.status).toBe(201);
    const attempt = res.body.data;
    expect(attempt).toMatchObject({
      id: expect.any(String),
      status: 'PENDING',
      documentType: 'PASSPORT',
      businessRegistrationNumber: 'SN-DKR-2024-B-12345',
      reviewedAt: null,
      reviewReason: null,
    });
    expect(attempt).not.toHaveProperty('reviewerId');
    expect(attempt.documents.map((d: { kind: string }) => d.kind)).toEqual(['ID_DOCUMENT', 'BUSINESS_DOCUMENT']);
    const [id, business] = attempt.documents;
    expect(business).toMatchObject({
      contentType: 'application/pdf',
      sizeBytes: registration.length,
      sha256: sha256(registration),
    });
    expect(id).toMatchObject({ contentType: 'image/jpeg' });

    // Generated names under the supplier's folder, never the uploaded file name.
    for (const d of attempt.documents) {
      expect(keyOf(d.url)).toMatch(new RegExp(`^kyc/${s.profile.id}/[0-9a-f-]{36}\\.(pdf|jpg)$`));
      expect(d.url).not.toContain('carte');
      expect(new Date(d.expiresAt).getTime() - t.clock.now().getTime()).toBeLessThanOrEqual(300_000);
    }
    expect(await storedKycFiles(t.app, s.profile.id)).toHaveLength(2);

    // The PDF comes back byte for byte; the image is the re-encoded one, without its EXIF data.
    const pdfBack = await download(business.url);
    expect(pdfBack.statusCode).toBe(200);
    expect(pdfBack.headers['content-type']).toBe('application/pdf');
    expect(pdfBack.headers['cache-control']).toBe('private, no-store');
    expect(pdfBack.rawPayload.equals(registration)).toBe(true);
    const imageBack = await download(id.url);
    expect(imageBack.statusCode).toBe(200);
    expect(sha256(imageBack.rawPayload)).toBe(id.sha256);
    const stored = (await t.app.ctx.storage.get('private', keyOf(id.url)))!.body;
    expect(imageBack.rawPayload.equals(Buffer.concat(await stored.toArray()))).toBe(true);
    const meta = await sharp(imageBack.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 80, height: 60 });
    expect(meta.exif).toBeUndefined();
    expect((await sharp(idImage).metadata()).exif).toBeDefined();

    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ supplierId: s.profile.id, kycStatus: 'PENDING', canSubmit: false });
    expect(own.body.data.attempts).toHaveLength(1);
    expect(own.body.data.attempts[0]).toMatchObject({ id: attempt.id, status: 'PENDING' });
  });

  it('accepts PNG and PDF in either field, and optional fields left empty', async () => {
    const s = await createSupplier(t.app, { role: 'SUPPLIER_DEALS' });
    const res = await submit(s.token, [
      idPart(pdf('Passeport'), 'passport.pdf', 'application/pdf'),
      businessPart(await png(), 'ninea.png', 'image/png'),
      { name: 'documentType', value: '' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ documentType: null, businessRegistrationNumber: null });
    const types = Object.fromEntries(
      res.body.data.documents.map((d: { kind: string; contentType: string }) => [d.kind, d.contentType]),
    );
    expect(types).toEqual({ ID_DOCUMENT: 'application/pdf', BUSINESS_DOCUMENT: 'image/png' });
  });

  it('refuses a second submission while one is pending, and after approval, without storing files', async () => {
    const s = await createSupplier(t.app);
    expect((await submit(s.token, await validParts())).status).toBe(201);
    const again = await submit(s.token, await validParts());
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: expect.stringContaining('awaiting review'),
    });
    expect(await storedKycFiles(t.app, s.profile.id)).toHaveLength(2);

    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    expect(
      (await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/verify`, { token: admin.token })).status,
    ).toBe(200);
    const afterApproval = await submit(s.token, await validParts());
    expect(afterApproval.status).toBe(409);
    expect(afterApproval.body.error.message).toContain('already approved');
    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    expect(own.body.data).toMatchObject({ kycStatus: 'APPROVED', canSubmit: false });
    expect(own.body.data.attempts).toHaveLength(1);
  });

  it("keeps one pending attempt when two submissions race, and removes the loser's files", async () => {
    const s = await createSupplier(t.app);
    const [a, b] = await Promise.all([submit(s.token, await validParts()), submit(s.token, await validParts())]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    expect(own.body.data.attempts).toHaveLength(1);
    const winner = a.status === 201 ? a : b;
    const keys = winner.body.data.documents.map((d: { url: string }) => keyOf(d.url).split('/').pop()).sort();
    expect(await storedKycFiles(t.app, s.profile.id)).toEqual(keys);
  });

  it('lets a rejected supplier submit again', async () => {
    const s = await createSupplier(t.app);
    await submit(s.token, await validParts());
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const rejected = await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, {
      token: admin.token,
      body: { reason: 'Blurred photo' },
    });
    expect(rejected.status).toBe(200);
    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    expect(own.body.data).toMatchObject({ kycStatus: 'REJECTED', canSubmit: true });
    expect(own.body.data.attempts[0]).toMatchObject({
      status: 'REJECTED',
      reviewReason: 'Blurred photo',
      reviewedAt: expect.any(String),
    });
    const second = await submit(s.token, await validParts());
    expect(second.status).toBe(201);
    const after = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    expect(after.body.data.kycStatus).toBe('PENDING');
    expect(after.body.data.attempts.map((x: { status: string }) => x.status)).toEqual(['PENDING', 'REJECTED']);
  });
});

describe('upload refusals', () => {
  it('names a missing file', async () => {
    const s = await createSupplier(t.app);
    const res = await submit(s.token, [idPart(await jpeg())]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'body.businessDocument', message: expect.stringContaining('required') }],
    });
    const none = await submit(s.token, [
      { name: 'documentType', value: 'PASSPORT' },
      { name: 'idDocument', value: 'a picture' },
    ]);
    expect(none.status).toBe(400);
    expect(none.body.error.details).toEqual([
      { field: 'body.idDocument', message: 'must be a file, not a text field' },
      { field: 'body.businessDocument', message: expect.stringContaining('required') },
    ]);
    await expectNothingWritten(s);
  });

  it('refuses more files than expected with 422', async () => {
    const s = await createSupplier(t.app);
    const three = await submit(
      s.token,
      await validParts([{ name: 'extra', filename: 'x.png', contentType: 'image/png', data: await png() }]),
    );
    expect(three.status).toBe(422);
    expect(three.body.error.code).toBe('TOO_MANY_FILES');
    const twice = await submit(s.token, [idPart(await jpeg()), idPart(await jpeg())]);
    expect(twice.status).toBe(422);
    expect(twice.body.error.details).toEqual([{ field: 'body.idDocument', message: 'was sent more than once' }]);
    await expectNothingWritten(s);
  });

  it('refuses bytes that are not an image or a PDF, whatever the name says', async () => {
    const s = await createSupplier(t.app);
    const text = Buffer.from('this is just some text pretending to be a photo\n');
    const res = await submit(s.token, [idPart(text, 'id.jpg', 'image/jpeg'), businessPart(pdf())]);
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    const gif = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');
    const gifRes = await submit(s.token, [idPart(await jpeg()), businessPart(gif, 'rc.gif', 'image/gif')]);
    expect(gifRes.status).toBe(415);
    await expectNothingWritten(s);
  });

  it('refuses a file larger than 5 MB with 413', async () => {
    const s = await createSupplier(t.app);
    const big = Buffer.concat([pdf(), Buffer.alloc(5 * 1024 * 1024 + 1, 0x20)]);
    const res = await submit(s.token, [idPart(await jpeg()), businessPart(big)]);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    await expectNothingWritten(s);
  });

  it('refuses JSON and form fields it does not know', async () => {
    const s = await createSupplier(t.app);
    const json = await call(t.app, 'POST', '/suppliers/profile/kyc', {
      token: s.token,
      body: { idDocument: 'x', businessDocument: 'y' },
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const bad = await submit(
      s.token,
      await validParts([
        { name: 'documentType', value: 'LIBRARY_CARD' },
        { name: 'businessRegistrationNumber', value: '<script>' },
        { name: 'isApproved', value: 'true' },
      ]),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.businessRegistrationNumber',
      'body.documentType',
      'body.isApproved',
    ]);
    await expectNothingWritten(s);
  });
});

describe('access', () => {
  it('needs a signed-in supplier with a profile', async () => {
    expect((await submit(undefined, await validParts())).status).toBe(401);
    expect((await call(t.app, 'GET', '/suppliers/profile/kyc')).status).toBe(401);
    for (const role of ['CLIENT', 'ADMIN', 'ASSOCIATION'] as const) {
      const u = await createSignedIn(t.app, { role });
      const res = await submit(u.token, await validParts());
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect((await call(t.app, 'GET', '/suppliers/profile/kyc', { token: u.token })).status).toBe(403);
    }
    const noProfile = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const res = await submit(noProfile.token, await validParts());
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUPPLIER_PROFILE_REQUIRED');
    expect((await call(t.app, 'GET', '/suppliers/profile/kyc', { token: noProfile.token })).status).toBe(404);
  });

  it('shows a supplier only its own attempts and documents', async () => {
    const a = await createSupplier(t.app);
    const b = await createSupplier(t.app);
    const mine = await submit(a.token, await validParts());
    const theirs = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: b.token });
    expect(theirs.body.data).toMatchObject({ supplierId: b.profile.id, kycStatus: 'NOT_SUBMITTED', attempts: [] });
    const detail = await call(t.app, 'GET', `/admin/kyc/attempts/${mine.body.data.id}`, { token: b.token });
    expect(detail.status).toBe(403);
  });
});

describe('document links', () => {
  it('work only unaltered, only until they expire, and never through the public route', async () => {
    const s = await createSupplier(t.app);
    const res = await submit(s.token, await validParts());
    const doc = res.body.data.documents.find((d: { kind: string }) => d.kind === 'BUSINESS_DOCUMENT');
    const key = keyOf(doc.url);
    expect((await download(doc.url)).statusCode).toBe(200);

    const url = new URL(doc.url, 'http://x');
    const sig = url.searchParams.get('signature')!;
    const tampered = doc.url.replace(sig, `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    expect((await download(tampered)).statusCode).toBe(404);
    const later = doc.url.replace(
      `expires=${url.searchParams.get('expires')}`,
      `expires=${Number(url.searchParams.get('expires')) + 3600}`,
    );
    expect((await download(later)).statusCode).toBe(404);
    const other = doc.url.replace(key, key.replace(/\.pdf$/, '.jpg'));
    expect((await download(other)).statusCode).toBe(404);
    const pub = await download(`/api/v1/files/public/${key}`);
    expect(pub.statusCode).toBe(404);
    expect(pub.json().error.code).toBe('NOT_FOUND');

    t.clock.advance(301_000);
    const expired = await download(doc.url);
    expect(expired.statusCode).toBe(404);
    expect(expired.rawPayload.includes(Buffer.from('%PDF'))).toBe(false);

    // A fresh read gives a fresh link that works.
    const again = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: (await createSupplier(t.app)).token });
    expect(again.status).toBe(200);
    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: s.token });
    const fresh = own.body.data.attempts[0].documents.find((d: { kind: string }) => d.kind === 'BUSINESS_DOCUMENT');
    expect(keyOf(fresh.url)).toBe(key);
    expect((await download(fresh.url)).statusCode).toBe(200);
  });
});
