import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEverySchema } from '../src/app.js';
import { together, type Executor } from '../src/db/client.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('platform endpoints', () => {
  it('reports liveness and readiness', async () => {
    expect((await call(t.app, 'GET', '/health')).body).toEqual({ success: true, data: { status: 'ok' } });
    const ready = await call(t.app, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toMatchObject({
      status: 'ready',
      database: t.app.database.kind,
      dependencies: { database: { status: 'up' } },
    });
  });

  it('serves an OpenAPI 3.1 document with request and response schemas', async () => {
    const res = await call(t.app, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const login = res.body.paths['/api/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty('phoneNumber');
    expect(login.responses['200']).toBeDefined();
    expect(res.body.paths['/api/v1/auth/me'].get.security).toEqual([{ bearerAuth: [] }]);
  });

  it('compiles every request validator and response serializer (they compile on first use)', () => {
    // Each route has a validator per input part and a serializer per status it documents.
    expect(compileEverySchema(t.app)).toBeGreaterThan(200);
    expect(compileEverySchema(t.app)).toBe(0);
  });

  it('serves the interactive reference page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });

  it('exposes Prometheus metrics including request latencies by route', async () => {
    await call(t.app, 'GET', '/health');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('route="/api/v1/health"');
    expect(res.body).toContain('process_resident_memory_bytes');
  });
});

describe('HTTP contract', () => {
  it('answers unknown routes with ROUTE_NOT_FOUND in the envelope', async () => {
    const res = await call(t.app, 'GET', '/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'ROUTE_NOT_FOUND', message: expect.any(String) },
      requestId: expect.any(String),
    });
  });

  it('answers broken JSON with a validation error, not a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"phoneNumber": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses an unsupported content type with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body over 1 MB with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ phoneNumber: '+221771234567', password: 'x'.repeat(1_100_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses wrong JSON types without coercing them', async () => {
    const res = await call(t.app, 'POST', '/auth/login', { body: { phoneNumber: 221771234567, password: ['a'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.password',
      'body.phoneNumber',
    ]);
  });

  it('echoes a request id and puts it in error bodies', async () => {
    const res = await call(t.app, 'GET', '/auth/me', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(res.headers['x-request-id']).toBe('trace-abc-123');
    expect(res.body.requestId).toBe('trace-abc-123');
    const generated = await call(t.app, 'GET', '/auth/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.body.requestId).not.toBe('bad id with spaces');
  });

  it('sets security headers and answers CORS preflights', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // Reachable over plain HTTP: nothing that only holds over TLS (see docs/decisions.md).
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/auth/login',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('checks the token before the body: no token 401 and wrong role 403 even with a bad body', async () => {
    expect((await call(t.app, 'POST', '/admin/users', { body: { nonsense: true } })).status).toBe(401);
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', '/admin/users', { token: client.token, body: { nonsense: true } })).status).toBe(
      403,
    );
  });
});

describe('rate limits', () => {
  it('limits every route per IP, and sign-in routes more strictly', async () => {
    const limited = await buildTestApp({ RATE_LIMIT_MAX: '5', AUTH_RATE_LIMIT_MAX: '2' });
    try {
      // A fresh address per run, so a shared Redis holds no earlier counts for it.
      const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      const login = () =>
        call(limited.app, 'POST', '/auth/login', {
          body: { phoneNumber: uniquePhone(), password: 'whatever1' },
          remoteAddress: ip,
        });
      expect((await login()).status).toBe(401);
      expect((await login()).status).toBe(401);
      const third = await login();
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe('RATE_LIMITED');
      expect(third.headers['retry-after']).toBeDefined();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await call(limited.app, 'GET', '/auth/me', { remoteAddress: ip })).status);
      expect(statuses).toContain(429);
    } finally {
      await limited.close();
    }
  });

  it('limits password changes per account, whatever address they come from', async () => {
    const limited = await buildTestApp({ AUTH_RATE_LIMIT_MAX: '2' });
    try {
      const [victim, bystander] = [await createSignedIn(limited.app), await createSignedIn(limited.app)];
      const guess = (who: typeof victim, n: number) =>
        call(limited.app, 'POST', '/auth/change-password', {
          token: who.token,
          body: { currentPassword: `guess-${n}`, newPassword: 'Guessed-Right-77' },
          remoteAddress: `10.77.0.${n}`,
        });
      expect((await guess(victim, 1)).status).toBe(400);
      expect((await guess(victim, 2)).status).toBe(400);
      const third = await guess(victim, 3);
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe('RATE_LIMITED');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Another account is counted on its own, even from an address the first one used.
      expect((await guess(bystander, 1)).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('reads together (src/db/client.ts)', () => {
  it('runs them one after the other in a transaction (one connection), at once on the pool', async () => {
    const log: string[] = [];
    const read = (ex: Executor, name: string) => async () => {
      log.push(`start ${name}`);
      await ex.execute(sql`select pg_sleep(0.01)`);
      log.push(`end ${name}`);
      return name;
    };
    const inTx = await t.app.ctx.db.transaction((tx) => together(tx, [read(tx, 'a'), read(tx, 'b')]));
    expect(inTx).toEqual(['a', 'b']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
    log.length = 0;
    expect(await together(t.app.ctx.db, [read(t.app.ctx.db, 'a'), read(t.app.ctx.db, 'b')])).toEqual(['a', 'b']);
    expect(log.slice(0, 2)).toEqual(['start a', 'start b']);
  });
});
