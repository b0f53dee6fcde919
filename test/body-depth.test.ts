import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../src/http/validation.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSupplier, DEFAULT_PASSWORD, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
const logLines: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({ LOG_LEVEL: 'error' }, { write: (line) => void logLines.push(line) });
});
afterAll(() => t.close());

// Raw JSON text: `levels` counts the containers, the body itself included.
const deepArrays = (levels: number) =>
  `{"phoneNumber":"${uniquePhone()}","password":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
const deepObjects = (levels: number) =>
  `{"phoneNumber":"${uniquePhone()}","password":${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}}`;

const send = (method: string, url: string, payload: string, token?: string) =>
  call(t.app, method, url, { token, body: payload, headers: { 'content-type': 'application/json' } });

const TOO_DEEP = { field: 'body', message: `must not be nested more than ${MAX_NESTING} levels deep` };

describe('deeply nested bodies', () => {
  it('are refused with 400 naming the body, signed in or not, arrays or objects', async () => {
    const sup = await createSupplier(t.app);
    const before = logLines.length;
    for (const payload of [
      deepArrays(3000),
      deepObjects(3000),
      deepArrays(100_000),
      deepArrays(MAX_NESTING + 1),
      deepObjects(MAX_NESTING + 1),
    ]) {
      const label = `${payload.slice(40, 60)}... (${payload.length} characters)`;
      for (const [method, url, token] of [
        ['POST', '/auth/login', undefined],
        ['PUT', '/suppliers/profile', sup.token],
        ['POST', '/supplier/stores', sup.token],
        ['POST', '/auth/logout', sup.token],
      ] as const) {
        const res = await send(method, url, payload, token);
        expect(res.status, `${method} ${url} ${label}`).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details, `${method} ${url} ${label}`).toEqual([TOO_DEEP]);
      }
    }
    // Refused as bad input, not failed: nothing was logged as an error.
    expect(logLines.slice(before)).toEqual([]);
  });

  it('up to the limit are judged on their content as usual', async () => {
    for (const payload of [deepArrays(MAX_NESTING), deepObjects(MAX_NESTING)]) {
      const res = await send('POST', '/auth/login', payload);
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['body.password']);
    }
  });

  it('do not stop an ordinary nested body', async () => {
    const sup = await createSupplier(t.app);
    const openingHours = { '1': ['08:00-13:00', '15:00-19:00'], '6': ['09:00-12:00'] };
    const res = await call(t.app, 'PUT', '/suppliers/profile', {
      token: sup.token,
      body: { openingHours, description: '  Fresh bread  ' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ openingHours, description: 'Fresh bread' });

    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: sup.user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.status).toBe(200);
  });
});
