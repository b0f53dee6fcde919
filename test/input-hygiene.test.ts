import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createStore, createSupplier, DEFAULT_PASSWORD, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
const logLines: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({ LOG_LEVEL: 'error' }, { write: (line) => void logLines.push(line) });
});
afterAll(() => t.close());

const fields = (res: { body: any }) => (res.body.error?.details ?? []).map((d: { field: string }) => d.field);

describe('values a database cannot hold', () => {
  it('refuses a NUL character in one body field, naming it, and stores nothing', async () => {
    const phoneNumber = uniquePhone();
    const res = await call(t.app, 'POST', '/auth/register', {
      body: { phoneNumber, password: DEFAULT_PASSWORD, role: 'CLIENT', firstName: 'A\u0000b', lastName: 'Diallo' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(fields(res)).toEqual(['body.firstName']);
    const login = await call(t.app, 'POST', '/auth/login', { body: { phoneNumber, password: DEFAULT_PASSWORD } });
    expect(login.status).toBe(401);
  });

  it('refuses a NUL character in a query string or a path parameter', async () => {
    const admin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
    for (const [url, field] of [
      ['/stores?q=a%00b', 'query.q'],
      ['/suppliers/search?city=Da%00kar', 'query.city'],
      ['/admin/users?search=a%00b', 'query.search'],
      ['/stores/a%00b', 'params.storeId'],
    ] as const) {
      const res = await call(t.app, 'GET', url, { token: admin.token });
      expect(res.status, url).toBe(400);
      expect(fields(res), url).toContain(field);
    }
  });

  it('refuses timestamps that pass the RFC 3339 grammar but name no instant', async () => {
    const sup = await createSupplier(t.app);
    const store = await createStore(t.app, sup);
    for (const endsAt of ['2030-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '2030-02-30T10:00:00Z']) {
      const res = await call(t.app, 'POST', `/supplier/stores/${store.id}/temporary-closure`, {
        token: sup.token,
        body: { endsAt },
      });
      expect(res.status, endsAt).toBe(400);
      expect(fields(res), endsAt).toEqual(['body.endsAt']);
    }
    const admin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
    const stats = await call(t.app, 'GET', '/admin/kyc/stats', {
      token: admin.token,
      query: { from: '2016-12-31T23:59:60Z' },
    });
    expect(stats.status).toBe(400);
    expect(fields(stats)).toEqual(['query.from']);
  });
});

describe('numbers in query strings', () => {
  it('are written in decimal digits, as in a JSON body: hex, exponents, spaces, signs and Infinity are refused', async () => {
    for (const bad of [
      '0x10',
      '1e2',
      ' 5',
      '5 ',
      '+5',
      '0b1',
      '0o7',
      'Infinity',
      '-Infinity',
      '1_000',
      '.5',
      '5.',
      '',
    ]) {
      const list = await call(t.app, 'GET', '/stores', { query: { limit: bad } });
      expect(list.status, `limit=${bad}`).toBe(400);
      expect(list.body.error.code).toBe('VALIDATION_ERROR');
      expect(fields(list), `limit=${bad}`).toEqual(['query.limit']);
      const near = await call(t.app, 'GET', '/stores/nearby', { query: { latitude: bad, longitude: '-17.44' } });
      expect(near.status, `latitude=${bad}`).toBe(400);
      expect(fields(near), `latitude=${bad}`).toEqual(['query.latitude']);
    }
    const list = await call(t.app, 'GET', '/stores', { query: { limit: '16', page: '01' } });
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ limit: 16, page: 1 });
    const near = await call(t.app, 'GET', '/stores/nearby', {
      query: { latitude: '14.6928', longitude: '-17.4467', radiusKm: '2.5' },
    });
    expect(near.status).toBe(200);
  });
});

describe('routes that take no body', () => {
  it('refuse one, as they refuse unknown properties', async () => {
    const user = await createSignedIn(t.app);
    const res = await call(t.app, 'POST', '/auth/logout', { token: user.token, body: { everywhere: true } });
    expect(res.status).toBe(400);
    expect(fields(res)).toEqual(['body']);
    expect((await call(t.app, 'GET', '/auth/me', { token: user.token })).status).toBe(200);
    expect((await call(t.app, 'POST', '/auth/logout', { token: user.token })).status).toBe(200);
  });
});

describe('error logs', () => {
  it('keep the statement and the SQLSTATE of a failed query, not its parameters', async () => {
    const secret = '$argon2id$v=19$m=19456,t=2,p=1$c2VjcmV0$aGFzaA';
    const err = await t.app.database.db.execute(sql`select ${secret}::text as h, 1 / (select 0) as boom`).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    logLines.length = 0;
    t.app.log.error({ err }, 'request failed');
    const line = logLines.join('');
    expect(line).toContain('request failed');
    expect(line).toContain('22012');
    expect(line).toContain('select $1::text');
    expect(line).not.toContain(secret);
  });
});
