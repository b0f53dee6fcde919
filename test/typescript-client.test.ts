import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, newIdempotencyKey, unwrap, unwrapPage } from '../clients/typescript/src/index.js';
import { CLIENT_SCHEMA_FILE, clientSchemaSource } from '../scripts/client-schema.js';
import { admin, shopWithProducts } from '../src/modules/orders/orders.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createUser } from './helpers/factories.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';

// The typed client as a mobile app uses it: real fetch against the API listening on a port.
let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(() => t?.close());

describe('the typed TypeScript client', () => {
  it('matches the routes: clients/typescript/src/schema.ts is what `npm run client:generate` writes', async () => {
    const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
    expect(
      committed === (await clientSchemaSource()),
      'the routes changed: run `npm run client:generate` and commit the result',
    ).toBe(true);
  }, 60_000);

  it('signs in, unwraps the envelope and pages, and throws the error envelope as ApiError', async () => {
    const user = await createUser(t.app, { role: 'ADMIN' });
    const held: { token?: string } = {};
    const api = createApiClient({ baseUrl, accessToken: () => held.token });
    const session = await unwrap(
      api.POST('/api/v1/auth/login', { body: { phoneNumber: user.phoneNumber!, password: user.password } }),
    );
    held.token = session.accessToken;
    expect(session.user.role).toBe('ADMIN');
    const page = await unwrapPage(api.GET('/api/v1/admin/users', { params: { query: { page: 1, limit: 2 } } }));
    expect(page.data.length).toBeLessThanOrEqual(2);
    expect(page.meta).toMatchObject({ page: 1, limit: 2, total: expect.any(Number) });

    const refused = await unwrap(api.GET('/api/v1/admin/users', { params: { query: { limit: 0 } } })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ field: 'query.limit' })],
    });
    expect((refused as ApiError).requestId).toEqual(expect.any(String));
  });

  it('refreshes an expired access token once for concurrent calls, then sends the calls again', async () => {
    const user = await createUser(t.app, { role: 'ADMIN' });
    const raw = createApiClient({ baseUrl });
    const first = await unwrap(
      raw.POST('/api/v1/auth/login', { body: { phoneNumber: user.phoneNumber!, password: user.password } }),
    );
    let { accessToken, refreshToken } = first;
    let refreshes = 0;
    const api = createApiClient({
      baseUrl,
      accessToken: () => accessToken,
      refresh: async () => {
        refreshes += 1;
        const pair = await unwrap(raw.POST('/api/v1/auth/refresh-token', { body: { refreshToken } }));
        ({ accessToken, refreshToken } = pair);
        return accessToken;
      },
    });
    t.clock.advance((t.app.ctx.config.ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
    const [a, b] = await Promise.all([unwrap(api.GET('/api/v1/auth/me')), unwrap(api.GET('/api/v1/auth/me'))]);
    expect([a.id, b.id]).toEqual([user.id, user.id]);
    expect(refreshes).toBe(1);
  });

  it('reports the end of the session when the refresh fails', async () => {
    let ended = 0;
    const api = createApiClient({
      baseUrl,
      accessToken: () => 'expired',
      refresh: async () => undefined,
      onSessionEnded: () => (ended += 1),
    });
    await expect(unwrap(api.GET('/api/v1/auth/me'))).rejects.toMatchObject({ status: 401 });
    expect(ended).toBe(1);
  });

  it('gives every write an Idempotency-Key, and a key given again replays the first answer', async () => {
    const shop = await shopWithProducts(t, (await admin(t)).token);
    const client = await createUser(t.app);
    const sent: (string | null)[] = [];
    const api = createApiClient({
      baseUrl,
      fetch: (request) => (sent.push(request.headers.get('idempotency-key')), fetch(request)),
    });
    const { accessToken } = await unwrap(
      api.POST('/api/v1/auth/login', { body: { phoneNumber: client.phoneNumber!, password: client.password } }),
    );
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    const authed = createApiClient({ baseUrl, accessToken: () => accessToken });
    const key = newIdempotencyKey();
    const body = { items: [{ productId: shop.products[0]!.id, quantity: 1 }], paymentMethod: 'wave' as const };
    const once = await authed.POST('/api/v1/orders', { body, headers: { 'Idempotency-Key': key } });
    const twice = await authed.POST('/api/v1/orders', { body, headers: { 'Idempotency-Key': key } });
    expect(twice.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await unwrap(Promise.resolve(twice))).id).toBe((await unwrap(Promise.resolve(once))).id);
    await assertMoneyInvariants(t.app);
  });
});
