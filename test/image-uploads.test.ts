import { zeroPng } from './helpers/png.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  admin,
  form,
  image,
  publishProduct,
  supplierWithStore,
} from '../src/modules/products/products.test-support.js';
import { businessPart, idPart, pdf, postMultipart } from '../src/modules/kyc/kyc.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSupplier, createUser, DEFAULT_PASSWORD } from './helpers/factories.js';
import { call } from './helpers/http.js';

const bombPng = (width: number, height: number) => zeroPng(width, height);

describe('pixel limits per kind of picture', () => {
  let t: TestApp;
  let adminToken: string;
  beforeAll(async () => {
    t = await buildTestApp();
    adminToken = (await admin(t)).token;
  });
  afterAll(() => t.close());

  it('refuses a small PNG that decodes to 6300x6300 from its header, naming the field and the limit', async () => {
    const bomb = bombPng(6300, 6300);
    expect(bomb.length).toBeLessThan(100_000);
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const res = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['images', bomb, 'bomb.png']]),
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'IMAGE_TOO_LARGE',
      details: [
        {
          field: 'body.images',
          message: 'is 6300x6300 pixels (39.7 megapixels); a product picture may have at most 24 megapixels',
        },
      ],
    });
    expect(t.app.ctx.images).toMatchObject({ active: 0, waiting: 0 });
    const page = await call(t.app, 'GET', `/products/${p.id}`);
    expect(page.body.data.images).toEqual([]);
  });

  it('applies each kind its own limit: 17 megapixels is a product picture but not a logo', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const big = bombPng(4200, 4000);
    const asProduct = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['images', big, 'big.png']]),
    });
    expect(asProduct.status).toBe(200);
    expect(asProduct.body.data.images).toHaveLength(1);
    const asLogo = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([['logo', big, 'logo.png']]),
    });
    expect(asLogo.status).toBe(422);
    expect(asLogo.body.error.details).toEqual([
      { field: 'body.logo', message: expect.stringContaining('a logo may have at most 16 megapixels') },
    ]);
  });

  it('refuses a bomb sent as a KYC document, before anything is stored', async () => {
    const supplier = await createSupplier(t.app, { kycStatus: 'NOT_SUBMITTED' });
    const res = await postMultipart(t.app, '/suppliers/profile/kyc', supplier.token, [
      idPart(bombPng(6300, 6300), 'id.png', 'image/png'),
      businessPart(pdf()),
    ]);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { field: 'body.idDocument', message: expect.stringContaining('a KYC document may have at most 24 megapixels') },
    ]);
    const own = await call(t.app, 'GET', '/suppliers/profile/kyc', { token: supplier.token });
    expect(own.body.data.attempts).toEqual([]);
  });
});

describe('the queue of picture work', () => {
  let t: TestApp;
  let adminToken: string;
  beforeAll(async () => {
    t = await buildTestApp({ IMAGE_CONCURRENCY: '1', IMAGE_QUEUE_MAX: '1' });
    adminToken = (await admin(t)).token;
  });
  afterAll(() => t.close());

  it('makes an upload wait for a free place, refuses one beyond the queue with 503 and Retry-After, and never holds up sign-ins', async () => {
    const images = t.app.ctx.images;
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const user = await createUser(t.app);
    const picture = await image(64, 48, 'png');
    const send = () =>
      call(t.app, 'POST', `/products/${p.id}/images`, { token: s.token, body: form([['images', picture, 'a.png']]) });

    // The only place is taken, as by a long decode.
    const release = await images.acquire();
    const waiting = send();
    await vi.waitFor(() => expect(images.waiting).toBe(1));
    const refused = await send();
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('5');
    // Password hashing does not queue behind pictures.
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(images.waiting).toBe(1);

    release();
    const done = await waiting;
    expect(done.status).toBe(200);
    expect(done.body.data.images).toHaveLength(1);
    expect(images).toMatchObject({ active: 0, waiting: 0 });
    expect((await send()).status).toBe(200);
  });
});
