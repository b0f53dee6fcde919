import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/db/schema/users.js';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';

interface Endpoint {
  method: string;
  path: string;
  access: string;
  section: string;
}

const table: Endpoint[] = readFileSync(new URL('../docs/spec/endpoints.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [method, path, access, section] = line.split('\t');
    return { method: method!, path: path!, access: access!, section: section! };
  });

// For each access rule, a role that must be refused (none for "any signed-in user").
const WRONG_ROLE: Record<string, Role | null> = {
  Auth: null,
  SUP: 'CLIENT',
  ADM: 'CLIENT',
  CLIENT: 'SUPPLIER_FOOD',
  ASSOCIATION: 'CLIENT',
  'ADVERTISER or ADM': 'CLIENT',
  SUPER_ADMIN: 'ADMIN',
};

const concrete = (path: string) =>
  path.replace(/:([A-Za-z]+)/g, (_, name: string) => (name === 'token' ? 'x'.repeat(43) : uuidv7()));
const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z0-9_]+/g, '{}');

let t: TestApp;
let documented: Set<string>;
const tokens = new Map<Role, string>();
const built: Endpoint[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  const doc = (await call(t.app, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  documented = new Set(
    Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(p.replace('/api/v1', ''))}`),
    ),
  );
  for (const role of new Set(Object.values(WRONG_ROLE))) {
    if (role) tokens.set(role, (await createSignedIn(t.app, { role })).token);
  }
  const missing: string[] = [];
  for (const e of table) {
    if (await isRouted(e)) built.push(e);
    else missing.push(`${e.method} ${e.path}`);
  }
  console.info(`${built.length}/${table.length} endpoints`);
  if (missing.length) console.info(`not built yet:\n  ${missing.join('\n  ')}`);
});
afterAll(() => t.close());

// Asked of the router, not by calling: `/products/:id` answers `/products/search` too (a 400 for
// the id), which must not make the search count as built.
async function isRouted(e: Endpoint): Promise<boolean> {
  return t.app.hasRoute({ method: e.method as 'GET', url: `/api/v1${e.path}` });
}

describe('endpoint table', () => {
  it('has every built endpoint documented and guarded as the table says', async () => {
    expect(built.length).toBeGreaterThan(0);

    for (const e of built) {
      const label = `${e.method} ${e.path}`;
      expect(documented.has(`${e.method} ${shape(e.path)}`), `${label} is in the OpenAPI document`).toBe(true);
      if (e.access === 'Public') continue;
      const anonymous = await call(t.app, e.method, concrete(e.path));
      expect(anonymous.status, `${label} without a token`).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      // What a guarded route answers depends on the caller: never stored (src/http/caching.ts).
      expect(anonymous.headers['cache-control'], label).toBe('private, no-store');
      const wrong = WRONG_ROLE[e.access];
      expect(wrong, `access rule ${e.access} is known`).not.toBeUndefined();
      if (!wrong) continue;
      const refused = await call(t.app, e.method, concrete(e.path), { token: tokens.get(wrong) });
      expect(refused.status, `${label} as ${wrong}`).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('is described truly by the README: the number built, and per section', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const stated = /^(\d+) of the (\d+) endpoints of the specification are built/m.exec(readme);
    expect(stated, 'the README says "N of the 226 endpoints of the specification are built"').not.toBeNull();
    expect(Number(stated![2])).toBe(table.length);
    expect(Number(stated![1]), "the README's count of built endpoints").toBe(built.length);

    // Its scope table: one row per section of the specification, "| section | N of M | ...".
    const rows = new Map(
      [...readme.matchAll(/^\| (\w+) \| (\d+) of (\d+) \|/gm)].map((m) => [m[1]!, [Number(m[2]), Number(m[3])]]),
    );
    const count = (list: Endpoint[], section: string) => list.filter((e) => e.section === section).length;
    for (const section of new Set(table.map((e) => e.section))) {
      expect(rows.get(section), `the README's scope row of ${section}`).toEqual([
        count(built, section),
        count(table, section),
      ]);
    }
  });
});
