import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/db/schema/users.js';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
const tokens = new Map<string, string>();

beforeAll(async () => {
  t = await buildTestApp();
  tokens.set('SUPER_ADMIN', (await createSignedIn(t.app, { role: 'SUPER_ADMIN' })).token);
  tokens.set('SUPPLIER_FOOD', (await createSupplier(t.app)).token);
  for (const role of ['CLIENT', 'ASSOCIATION', 'ADVERTISER'] as Role[])
    tokens.set(role, (await createSignedIn(t.app, { role })).token);
});
afterAll(() => t.close());

interface Operation {
  method: string;
  path: string;
  description?: string;
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** A signed-in user the route lets in, read from the access line the guard adds to its description. */
function tokenFor(op: Operation): string | undefined {
  const access = /Access: (.*)\./.exec(op.description ?? '')?.[1];
  if (!access) return undefined;
  const roles = access === 'any signed-in user' ? ['CLIENT'] : access.split(', ');
  const role = roles.find((r) => tokens.has(r)) ?? 'SUPER_ADMIN';
  return tokens.get(role);
}

const WEIRD_VALUES: unknown[] = [
  null,
  -1,
  1e308,
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  '😀'.repeat(50),
  [],
  [1, 'a'],
  { a: { b: 1 } },
  true,
  '2026-13-45T99:99:99Z',
  '../../etc/passwd',
  "' or 1=1 --",
];
// Strings that pass a loose schema but that a database or a date parser may refuse late.
const WEIRD_TEXT = [
  '\u0000',
  'a\u0000b',
  '2016-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  'x'.repeat(5000),
  "'%_\\",
  '-1',
  '1e308',
  'NaN',
  '\ud800',
];
const WEIRD_IDS = ['abc', '0', '%00', 'x'.repeat(300), '01900000-0000-7000-8000-000000000000'];

describe('every documented route under malformed input', () => {
  it('answers with a 4xx error envelope, never a 5xx', async () => {
    const doc = (await call(t.app, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const failures: string[] = [];
    let requests = 0;
    for (const [rawPath, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'head' || rawPath.includes('/files/')) continue;
        const token = tokenFor(op);
        const props = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
        const bodies: unknown[] = ['get', 'delete'].includes(method)
          ? [undefined]
          : [{}, [], 'text', { unknown: 1 }, ...WEIRD_VALUES.map((v) => Object.fromEntries(props.map((p) => [p, v])))];
        const ids = rawPath.includes('{') ? WEIRD_IDS : [''];
        for (const id of ids) {
          const path = rawPath.replace('/api/v1', '').replace(/\{[^}]+\}/g, () => encodeURIComponent(id || uuidv7()));
          for (const body of bodies) {
            const res = await call(t.app, method.toUpperCase(), path, {
              token,
              body,
              query: { page: '0', limit: 'many', q: "'%_\\" } as never,
            });
            requests++;
            if (res.status >= 500 || (res.status >= 400 && res.body?.success !== false)) {
              failures.push(
                `${method.toUpperCase()} ${rawPath} id=${id.slice(0, 20)} ${JSON.stringify(body)?.slice(0, 60)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
              );
            }
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(500);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  it('answers one odd value at a time (query parameter or body field) with a 4xx, never a 5xx', async () => {
    const doc = (await call(t.app, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const failures: string[] = [];
    let requests = 0;
    for (const [rawPath, ops] of Object.entries(doc.paths)) {
      if (rawPath.includes('{')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'head') continue;
        const token = tokenFor(op);
        const path = rawPath.replace('/api/v1', '');
        const queryNames = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        const props = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
        const attempts = [
          ...queryNames.flatMap((name) => WEIRD_TEXT.map((v) => ({ query: { [name]: v }, body: undefined }))),
          ...props.flatMap((name) => WEIRD_TEXT.map((v) => ({ query: undefined, body: { [name]: v } }))),
        ];
        for (const { query, body } of attempts) {
          const res = await call(t.app, method.toUpperCase(), path, { token, body, query });
          requests++;
          if (res.status >= 500 || (res.status >= 400 && res.body?.success !== false)) {
            failures.push(
              `${method.toUpperCase()} ${rawPath} ${JSON.stringify(query ?? body)?.slice(0, 60)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
            );
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(300);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);
});
