import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../src/http/caching.js';
import { uuidv7 } from '../src/shared/ids.js';
import { admin, image, publishProduct, supplierWithStore } from '../src/modules/products/products.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';
import { openSse } from './helpers/sse.js';

let t: TestApp;
let base: string;
let seller: Awaited<ReturnType<typeof supplierWithStore>>;
let adminToken: string;
let productId: string;

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1`;
  seller = await supplierWithStore(t);
  adminToken = (await admin(t)).token;
  // Enough products in one store for its list to pass the compression threshold.
  const made = [];
  for (let i = 0; i < 6; i++) made.push(await publishProduct(t, seller, adminToken, { name: `Baguette ${i}` }));
  productId = made[0]!.id;
});
afterAll(() => t.close());

/** A raw request through the injector: the body as bytes, whatever its encoding. */
const raw = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
const varyOf = (res: { headers: Record<string, unknown> }) =>
  String(res.headers.vary ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);
const storeList = () => `/products/search?storeId=${seller.store.id}&limit=20`;

describe('Cache-Control', () => {
  it('keeps answers that depend on the caller private and unstored, errors unstored', async () => {
    const client = await createSignedIn(t.app);
    const me = await call(t.app, 'GET', '/auth/me', { token: client.token });
    expect(me.status).toBe(200);
    expect(me.headers['cache-control']).toBe('private, no-store');
    expect(me.headers.etag).toBeUndefined();
    const refused = await call(t.app, 'GET', '/auth/me');
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('private, no-store');
    const missing = await call(t.app, 'GET', `/products/${uuidv7()}`);
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers.etag).toBeUndefined();
    // A public write (signing in hands out tokens) is never stored either.
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: client.user.phoneNumber, password: 'Correct-Horse-42' },
    });
    expect(login.status).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
  });

  it('lets public reads be kept, for as long as their kind of data allows', async () => {
    const cases: [string, string][] = [
      [storeList(), 'public, max-age=5'],
      [`/products/${productId}`, 'public, max-age=5'],
      ['/stores?city=Dakar', 'public, max-age=30'],
      ['/subscriptions/plans', 'public, max-age=30'],
      ['/openapi.json', 'public, max-age=300'],
    ];
    for (const [url, policy] of cases) {
      const res = await raw(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe(policy);
      expect(res.headers.etag, url).toMatch(/^W\/"[\w-]+"$/);
      expect(varyOf(res), url).toContain('accept-encoding');
    }
    // Readiness and ads (each serve counts an impression) are never stored.
    expect((await raw('/health/ready')).headers['cache-control']).toBe('no-store');
    expect((await raw('/advertising/ads?placement=HOME_BANNER')).headers['cache-control']).toBe('no-store');
  });

  it('makes the product page private when a token may change it (the favourite flag)', async () => {
    const client = await createSignedIn(t.app);
    const anonymous = await raw(`/products/${productId}`);
    expect(varyOf(anonymous)).toContain('authorization');
    const signedIn = await raw(`/products/${productId}`, { authorization: `Bearer ${client.token}` });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.headers['cache-control']).toBe('private, no-store');
    expect(signedIn.headers.etag).toBeUndefined();
    expect(varyOf(signedIn)).toContain('authorization');
  });

  it('serves public files as immutable, tagged by their key; files behind a signed link stay private', async () => {
    const key = `tests/${uuidv7()}.png`;
    const png = await image(300, 300, 'png');
    await t.app.ctx.storage.put('public', key, png, 'image/png');
    const res = await raw(`/files/public/${key}`, { 'accept-encoding': 'gzip, br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.etag).toBe(`"${key}"`);
    // Pictures are compressed already: sent as they are.
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.equals(png)).toBe(true);
    const again = await raw(`/files/public/${key}`, { 'if-none-match': `"${key}"` });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);

    await t.app.ctx.storage.put('private', key, png, 'image/png');
    const mine = await t.app.inject({ method: 'GET', url: t.app.ctx.links.privateUrl(key, t.clock.now()).url });
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    expect(mine.headers.etag).toBeUndefined();
  });
});

describe('ETag and 304', () => {
  it('answers 304 without a body to the tag of the current page, and a new tag once the price changed', async () => {
    const p = await publishProduct(t, seller, adminToken, { name: 'Croissants' });
    for (const url of [`/products/${p.id}`, storeList()]) {
      const first = await raw(url);
      const etag = String(first.headers.etag);
      const same = await raw(url, { 'if-none-match': etag, 'accept-encoding': 'gzip, br' });
      expect(same.statusCode, url).toBe(304);
      expect(same.rawPayload.length, url).toBe(0);
      expect(same.headers['content-encoding'], url).toBeUndefined();
      expect(same.headers.etag, url).toBe(etag);
      expect(same.headers['cache-control'], url).toBe(first.headers['cache-control']);
      // Several tags, ours among them, and the strong form of our weak tag match too.
      expect((await raw(url, { 'if-none-match': `"other", ${etag.slice(2)}` })).statusCode, url).toBe(304);
      expect((await raw(url, { 'if-none-match': '"other"' })).statusCode, url).toBe(200);
    }
    const before = await Promise.all(
      [`/products/${p.id}`, storeList()].map(async (url) => ({ url, etag: String((await raw(url)).headers.etag) })),
    );
    const changed = await call(t.app, 'PUT', `/products/${p.id}`, {
      token: seller.token,
      body: { discountedPrice: 550 },
    });
    expect(changed.status).toBe(200);
    for (const { url, etag } of before) {
      const after = await raw(url, { 'if-none-match': etag });
      expect(after.statusCode, url).toBe(200);
      expect(after.headers.etag, url).not.toBe(etag);
      expect(after.body, url).toContain('550');
    }
  });

  it('tags the OpenAPI document and answers 304 to its tag', async () => {
    const first = await raw('/openapi.json');
    const again = await raw('/openapi.json', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });
});

describe('compression', () => {
  it('sends gzip and br bodies that decode to the same JSON, above the threshold only', async () => {
    for (const url of ['/openapi.json', storeList()]) {
      const plain = await raw(url);
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      expect(plain.rawPayload.length, url).toBeGreaterThan(COMPRESSION_THRESHOLD);
      const gzip = await raw(url, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding'], url).toBe('gzip');
      expect(JSON.parse(gunzipSync(gzip.rawPayload).toString()), url).toEqual(plain.json());
      const br = await raw(url, { 'accept-encoding': 'gzip;q=0.5, br' });
      expect(br.headers['content-encoding'], url).toBe('br');
      expect(br.rawPayload.length, url).toBeLessThan(plain.rawPayload.length / 3);
      expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), url).toEqual(plain.json());
      expect(varyOf(br), url).toContain('accept-encoding');
      // One tag for every encoding of the same answer.
      expect(br.headers.etag, url).toBe(plain.headers.etag);
    }
    const small = await raw('/health', { 'accept-encoding': 'gzip, br' });
    expect(small.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('compresses the script of the reference page, a file streamed from disk', async () => {
    const url = '/docs/static/swagger-ui-bundle.js';
    const plain = await raw(url);
    expect(plain.statusCode).toBe(200);
    const br = await raw(url, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('compresses over a real socket, as a client decodes it', async () => {
    const plain = await raw('/openapi.json');
    const res = await fetch(`${base}/openapi.json`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(await res.json()).toEqual(plain.json());
    const list = await fetch(`${base}${storeList()}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(list.headers.get('content-encoding')).toBe('gzip');
    expect(await list.json()).toEqual((await raw(storeList())).json());
  });

  it('replays an Idempotency-Key answer as it was written, whether or not the first one went out compressed', async () => {
    const client = await createSignedIn(t.app);
    const key = uuidv7();
    const send = (encoding: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: { authorization: `Bearer ${client.token}`, 'idempotency-key': key, 'accept-encoding': encoding },
        payload: { items: [{ productId, quantity: 1 }], paymentMethod: 'wave' },
      });
    const first = await send('br');
    expect(first.statusCode).toBe(201);
    expect(first.headers['content-encoding']).toBe('br');
    const order = JSON.parse(brotliDecompressSync(first.rawPayload).toString());
    const replayed = await send('identity');
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.headers['content-encoding']).toBeUndefined();
    expect(replayed.json()).toEqual(order);
    await assertMoneyInvariants(t.app);
  });

  it('never compresses nor holds back the notification stream', async () => {
    const client = await createSignedIn(t.app);
    // openSse reads through fetch, which asks for gzip, deflate and br.
    const stream = await openSse(`${base}/notifications/stream`, client.token);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-encoding')).toBeNull();
      expect(stream.headers.get('cache-control')).toBe('private, no-store, no-transform');
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 0 } });
    } finally {
      stream.close();
    }
  });
});
