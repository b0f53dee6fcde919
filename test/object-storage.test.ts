import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { DELETE_FILES_JOB } from '../src/providers/storage/files.js';
import { createAssociation } from '../src/modules/associations/associations.test-support.js';
import { businessPart, idPart, jpeg, pdf, postMultipart } from '../src/modules/kyc/kyc.test-support.js';
import { deliverWebhook } from '../src/modules/payments/payments.test-support.js';
import {
  admin,
  form,
  image,
  publishProduct,
  supplierWithStore,
} from '../src/modules/products/products.test-support.js';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';
import { S3Server } from './helpers/s3.js';

// Files in a bucket of a real S3-protocol server, end to end through the HTTP API.

const s3 = new S3Server();
let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  await s3.start();
  t = await buildTestApp(s3.env());
  adminToken = (await admin(t)).token;
});
afterAll(async () => {
  await t?.close();
  await s3.close();
});

/** A published product with one picture uploaded. */
async function productWithPicture() {
  const s = await supplierWithStore(t);
  const p = await publishProduct(t, s, adminToken);
  const res = await call(t.app, 'POST', `/products/${p.id}/images`, {
    token: s.token,
    body: form([['images', await image(1600, 1200, 'jpeg'), 'photo.jpg']]),
  });
  expect(res.status).toBe(200);
  return { s, p, picture: res.body.data.images[0] as { id: string; thumbnailUrl: string; largeUrl: string } };
}

const keyOfPublic = (url: string) => url.replace('/api/v1/files/public/', '');
const filesJobs = async () => (await t.app.jobs.depth()).filter((d) => d.name === DELETE_FILES_JOB);

describe('files in a bucket', () => {
  it('stores both sizes of a product picture and serves them through the API, streamed from the bucket', async () => {
    const { p, picture } = await productWithPicture();
    expect(await s3.keys(`public/products/${p.id}/`)).toEqual(
      [keyOfPublic(picture.largeUrl), keyOfPublic(picture.thumbnailUrl)].map((k) => `public/${k}`).sort(),
    );
    const stored = await s3.head(`public/${keyOfPublic(picture.largeUrl)}`);
    expect(stored).toMatchObject({ ContentType: 'image/jpeg', CacheControl: 'public, max-age=31536000, immutable' });

    const res = await t.app.inject({ method: 'GET', url: picture.largeUrl });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'image/jpeg', etag: `"${keyOfPublic(picture.largeUrl)}"` });
    expect(Number(res.headers['content-length'])).toBe(stored.ContentLength);
    expect(res.rawPayload.length).toBe(stored.ContentLength);
    const again = await t.app.inject({
      method: 'GET',
      url: picture.largeUrl,
      headers: { 'if-none-match': res.headers.etag! },
    });
    expect(again.statusCode).toBe(304);
    const missing = await t.app.inject({ method: 'GET', url: `/api/v1/files/public/products/${p.id}/none.jpg` });
    expect(missing.statusCode).toBe(404);
  });

  it('removes a deleted picture from the bucket by the deletion job', async () => {
    const { s, p, picture } = await productWithPicture();
    const del = await call(t.app, 'DELETE', `/products/${p.id}/images`, {
      token: s.token,
      query: { imageId: picture.id },
    });
    expect(del.status).toBe(200);
    await t.app.jobs.drain();
    expect(await s3.keys(`public/products/${p.id}/`)).toEqual([]);
  });

  it('serves a KYC document by its signed link, redirected to a presigned URL of the bucket', async () => {
    const s = await createSupplier(t.app, { kycStatus: 'NOT_SUBMITTED' });
    const registration = pdf('Registre Dakar');
    const res = await postMultipart(t.app, '/suppliers/profile/kyc', s.token, [
      idPart(await jpeg()),
      businessPart(registration),
    ]);
    expect(res.status).toBe(201);
    const doc = res.body.data.documents.find((d: { kind: string }) => d.kind === 'BUSINESS_DOCUMENT');
    expect(await s3.keys(`private/kyc/${s.profile.id}/`)).toHaveLength(2);

    const link = await t.app.inject({ method: 'GET', url: doc.url });
    expect(link.statusCode).toBe(302);
    expect(link.headers['cache-control']).toBe('private, no-store');
    const presigned = new URL(String(link.headers.location));
    expect(presigned.origin).toBe(s3.url);
    expect(presigned.searchParams.get('X-Amz-Expires')).toBe('60');
    const bytes = Buffer.from(await (await fetch(presigned)).arrayBuffer());
    expect(bytes.equals(registration)).toBe(true);

    // The API still checks its own link first: a changed signature is refused before any redirect.
    const forged = await t.app.inject({
      method: 'GET',
      url: doc.url.replace(/signature=[^&]+/, 'signature=AAAAAAAAAAAA'),
    });
    expect(forged.statusCode).toBe(404);
  });

  it("stores a donation's receipt in the bucket, read through its link", async () => {
    const donor = await createSignedIn(t.app);
    const association = await createAssociation(t.app);
    const created = await call(t.app, 'POST', '/donations/financial', {
      token: donor.token,
      body: { associationId: association.association.id, amount: 5000, paymentMethod: 'wave' },
      headers: { 'idempotency-key': uuidv7() },
    });
    expect(created.status).toBe(201);
    const payment = (await t.app.services.payments.find(t.app.ctx.db, created.body.data.payment.transactionId))!;
    await deliverWebhook(
      t,
      t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(payment.providerSessionId!)),
    );
    const id = created.body.data.donation.id as string;
    const receipt = await call(t.app, 'POST', `/donations/${id}/receipt`, { token: donor.token });
    expect(receipt.status).toBe(200);
    expect(await s3.keys(`private/donations/${id}/`)).toHaveLength(1);
    const link = await t.app.inject({ method: 'GET', url: receipt.body.data.url });
    expect(link.statusCode).toBe(302);
    const file = await fetch(String(link.headers.location));
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    await assertMoneyInvariants(t.app);
  });

  it('deletes the old logo object once a new logo is saved', async () => {
    const s = await createSupplier(t.app);
    const upload = async (format: 'png' | 'jpeg') =>
      call(t.app, 'POST', '/suppliers/profile/logo', {
        token: s.token,
        body: form([['logo', await image(300, 200, format), `logo.${format}`]]),
      });
    const first = await upload('png');
    expect(first.status).toBe(200);
    const second = await upload('jpeg');
    expect(second.status).toBe(200);
    await t.app.jobs.drain();
    expect(await s3.keys(`public/suppliers/${s.profile.id}/`)).toEqual([
      `public/${keyOfPublic(second.body.data.logoUrl)}`,
    ]);
  });
});

describe('an outage of the store', () => {
  it('answers 503 FILE_STORAGE_UNAVAILABLE to uploads and writes no row; a deletion waits and is retried', async () => {
    const { s, p, picture } = await productWithPicture();
    const kycSupplier = await createSupplier(t.app, { kycStatus: 'NOT_SUBMITTED' });
    await s3.stop();
    try {
      const upload = await call(t.app, 'POST', `/products/${p.id}/images`, {
        token: s.token,
        body: form([['images', await image(800, 600, 'png'), 'more.png']]),
      });
      expect(upload.status).toBe(503);
      expect(upload.headers['retry-after']).toBe('10');
      expect(upload.body.error).toEqual({
        code: 'FILE_STORAGE_UNAVAILABLE',
        message: 'File storage cannot be reached; try again shortly',
      });
      const mine = await call(t.app, 'GET', '/products/my-products', { token: s.token });
      expect(mine.body.data.find((x: { id: string }) => x.id === p.id).images).toHaveLength(1);

      const kyc = await postMultipart(t.app, '/suppliers/profile/kyc', kycSupplier.token, [
        idPart(await jpeg()),
        businessPart(pdf()),
      ]);
      expect(kyc.status).toBe(503);
      expect(kyc.body.error.code).toBe('FILE_STORAGE_UNAVAILABLE');
      const ownKyc = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: kycSupplier.token });
      expect(ownKyc.body.data.attempts).toEqual([]);

      // The picture is forgotten at once; its files wait for the store.
      const del = await call(t.app, 'DELETE', `/products/${p.id}/images`, {
        token: s.token,
        query: { imageId: picture.id },
      });
      expect(del.status).toBe(200);
      await t.app.jobs.drain();
      expect(await filesJobs()).toEqual([{ name: DELETE_FILES_JOB, state: 'retry', count: 1 }]);
    } finally {
      await s3.start();
    }
    expect(await s3.keys(`public/products/${p.id}/`)).toHaveLength(2);
    expect(await s3.keys(`private/kyc/${kycSupplier.profile.id}/`)).toEqual([]);
    t.clock.advance(5 * 60_000);
    await t.app.jobs.drain();
    expect(await s3.keys(`public/products/${p.id}/`)).toEqual([]);
    expect(await filesJobs()).toEqual([]);
  });

  it('records the files an upload could not take back, for the deletion job', async () => {
    await s3.stop();
    try {
      await t.app.ctx.storage.discard('public', ['orphans/a.jpg']);
      expect(await filesJobs()).toEqual([{ name: DELETE_FILES_JOB, state: expect.any(String), count: 1 }]);
      await t.app.jobs.drain();
    } finally {
      await s3.start();
    }
    t.clock.advance(5 * 60_000);
    await t.app.jobs.drain();
    expect(await filesJobs()).toEqual([]);
  });
});

describe('configuration of the bucket', () => {
  it('serves public pictures from FILES_PUBLIC_BASE_URL and lets the console show the bucket and the CDN', async () => {
    const cdn = await buildTestApp({ ...s3.env(), FILES_PUBLIC_BASE_URL: 'https://cdn.example.test/public/' });
    try {
      expect(cdn.app.ctx.links.publicUrl('products/x/a.jpg')).toBe('https://cdn.example.test/public/products/x/a.jpg');
      const page = await cdn.app.inject({ method: 'GET', url: '/console/', headers: { accept: 'text/html' } });
      const imgSrc = /img-src ([^;]+)/.exec(String(page.headers['content-security-policy']))?.[1];
      expect(imgSrc?.split(' ')).toEqual(expect.arrayContaining(['https://cdn.example.test', s3.url]));
    } finally {
      await cdn.close();
    }
  });

  it('refuses to start on a bucket the store does not have', async () => {
    await expect(buildTestApp({ ...s3.env(), S3_BUCKET: 'no-such-bucket' })).rejects.toThrow(
      'S3_BUCKET: no bucket "no-such-bucket" in this store',
    );
  });

  it('names each bad setting', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        return err.message
          .split('\n')
          .slice(1)
          .map((l) => l.trim());
      }
    };
    expect(problems({ FILES_STORAGE: 's3' })).toEqual(['S3_BUCKET: required when FILES_STORAGE=s3']);
    expect(
      problems({
        FILES_STORAGE: 'disk',
        S3_BUCKET: 'Bad_Bucket',
        S3_ENDPOINT: 'minio:9000',
        FILES_PUBLIC_BASE_URL: '/files',
        S3_ACCESS_KEY_ID: 'key',
        S3_FORCE_PATH_STYLE: 'yes',
      }),
    ).toEqual(['FILES_STORAGE: must be one of local, s3', 'S3_FORCE_PATH_STYLE: must be boolean']);
    expect(
      problems({
        S3_BUCKET: 'Bad_Bucket',
        S3_ENDPOINT: 'minio:9000',
        FILES_PUBLIC_BASE_URL: '/files',
        S3_ACCESS_KEY_ID: 'k',
      }),
    ).toEqual([
      'S3_BUCKET: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit',
      'S3_ENDPOINT: must be an absolute http(s) URL',
      'FILES_PUBLIC_BASE_URL: must be an absolute http(s) URL',
      "S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither for the SDK's own credentials",
    ]);
  });
});
