import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/db/schema/users.js';
import { isValidPhoneNumber } from 'libphonenumber-js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { privateDatabase, type PrivateDatabase } from './helpers/database.js';
import { createSignedIn, createStore, createSupplier } from './helpers/factories.js';
import { addressOf } from './helpers/http.js';
import { deref, fromText, valid, WRONG_TEXT, wrongValues, type Schema } from './helpers/schema-arbitrary.js';
import { openSse } from './helpers/sse.js';

// A schema-driven fuzzer: for every operation of the OpenAPI document, requests generated from its
// parameter and body schemas (valid ones, and ones broken in one place), sent with a token of a
// role it admits and without one. Every answer must be documented: its status, its content type,
// its body against the schema of that status. A request the document refuses must be refused.
// The generation is seeded: the same seed sends the same requests (ids the server made aside).
const SEED = 23;
const VALID_PER_OPERATION = 6;
const INVALID_PER_OPERATION = 6;

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Schema>;
}
interface Endpoint {
  method: string;
  path: string;
  op: Operation;
}
interface Request {
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  note: string;
}

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
addFormats(ajv);
ajv.addFormat('phone', { type: 'string', validate: (v: string) => v.startsWith('+') && isValidPhoneNumber(v) });
ajv.addFormat('binary', true);

let t: TestApp;
let doc: Schema;
const tokens = new Map<string, string>();
const ownUserIds = new Set<string>();
const pools = new Map<string, Set<string>>();
/** What went wrong, once per operation and kind of problem, with the first request that showed it. */
const failures = new Map<string, string>();
/** Operations that answered a success at least once: the fuzzer reaches their work, not only their refusals. */
const succeeded = new Set<string>();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// `/admin/users/{id}/status` is about users, `/supplier/stores/{storeId}` about stores.
const resourceOf = (path: string) =>
  path
    .replace('/api/v1/', '')
    .split('/')
    .find((s) => s !== 'admin' && s !== 'supplier' && !s.startsWith('{')) ?? '';

/** Ids the server answered with, by the name they had: `storeId` fields, `id`s of the stores' paths. */
function harvest(path: string, value: unknown, key = ''): void {
  if (Array.isArray(value)) return value.forEach((v) => harvest(path, v, key));
  if (value && typeof value === 'object') return Object.entries(value).forEach(([k, v]) => harvest(path, v, k));
  if (typeof value !== 'string' || !UUID.test(value) || ownUserIds.has(value)) return;
  const name = key === 'id' ? `id:${resourceOf(path)}` : key;
  const pool = pools.get(name) ?? pools.set(name, new Set()).get(name)!;
  if (pool.size < 20) pool.add(value);
}
const idsFor = (path: string) => (name: string) => {
  const names = name === 'id' ? [`id:${resourceOf(path)}`] : [name, `id:${name.replace(/Id$/, '')}s`];
  return names.flatMap((n) => [...(pools.get(n) ?? [])]);
};

/** The roles the description's access line names (src/http/openapi.ts writes it). */
function rolesOf(op: Operation): Role[] | undefined {
  const access = /Access: (.*)\./.exec(op.description ?? '')?.[1];
  if (!access) return undefined;
  return access === 'any signed-in user' ? ['CLIENT'] : (access.split(', ') as Role[]);
}

// The fuzzer sends valid administrators' requests too (settings, plans, moderation): on PostgreSQL it
// gets a database of its own, or it would switch payment methods and features off under other files.
let db: PrivateDatabase;
beforeAll(async () => {
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Schema;
  ajv.addSchema(doc, 'doc');
  for (const role of ['CLIENT', 'ASSOCIATION', 'ADVERTISER', 'ADMIN', 'SUPER_ADMIN'] as Role[]) {
    const u = await createSignedIn(t.app, { role });
    tokens.set(role, u.token);
    ownUserIds.add(u.user.id);
  }
  for (const role of ['SUPPLIER_FOOD', 'SUPPLIER_DEALS'] as Role[]) {
    const s = await createSupplier(t.app, { role });
    await createStore(t.app, s);
    tokens.set(role, s.token);
    ownUserIds.add(s.user.id);
  }
}, 120_000);
afterAll(async () => {
  await t.close();
  await db.drop();
});

/** Signing out, changing a password or deleting an account ends a session: those get a user of their own. */
async function tokenFor({ method, path, op }: Endpoint): Promise<string | undefined> {
  const roles = rolesOf(op);
  if (!roles) return undefined;
  const role = roles.find((r) => tokens.has(r)) ?? roles[0]!;
  if (!path.startsWith('/api/v1/auth/') && method !== 'delete') return tokens.get(role);
  return role.startsWith('SUPPLIER')
    ? (await createSupplier(t.app, { role })).token
    : (await createSignedIn(t.app, { role })).token;
}

const params = (op: Operation, where: string) => (op.parameters ?? []).filter((p) => p.in === where);
const jsonBody = (op: Operation) => op.requestBody?.content['application/json']?.schema;

function validRequest({ path, op }: Endpoint): fc.Arbitrary<Request> {
  const ids = idsFor(path);
  const text = (p: Parameter) => valid(doc, p.schema, ids, p.name).map(String);
  const byName = (list: Parameter[]) => Object.fromEntries(list.map((p) => [p.name, text(p)]));
  const query = params(op, 'query');
  const body = jsonBody(op);
  return fc.record({
    path: fc.record(byName(params(op, 'path'))),
    query: fc.record(byName(query), { requiredKeys: query.filter((p) => p.required).map((p) => p.name) }),
    body: body ? valid(doc, body, ids) : fc.constant(undefined),
    note: fc.constant('valid'),
  }) as fc.Arbitrary<Request>;
}

/** A valid request broken in one place: a parameter's text, a missing or extra property, a value of the wrong kind. */
function invalidRequest(e: Endpoint): fc.Arbitrary<Request> {
  const body = jsonBody(e.op) ? deref(doc, jsonBody(e.op)) : undefined;
  const textual = [...params(e.op, 'path'), ...params(e.op, 'query')];
  return fc.tuple(validRequest(e), fc.nat(), fc.nat(), fc.nat()).map(([req, a, b, c]): Request => {
    // A body on a GET has no meaning in HTTP and is not read: it is not sent.
    const stray = e.method === 'get' ? [] : ['stray'];
    const kinds = [...(textual.length ? ['text'] : []), ...(body ? ['missing', 'extra', 'wrong', 'whole'] : stray)];
    if (!kinds.length) return req;
    const kind = kinds[a % kinds.length]!;
    if (kind === 'text') {
      const p = textual[b % textual.length]!;
      const value = WRONG_TEXT[c % WRONG_TEXT.length]!;
      return {
        ...req,
        [p.in]: { ...req[p.in as 'path' | 'query'], [p.name]: value },
        note: `${p.in}.${p.name}=${JSON.stringify(value).slice(0, 20)}`,
      };
    }
    if (kind === 'stray') return { ...req, body: { unexpected: 1 }, note: 'a body where none is taken' };
    if (kind === 'whole') {
      const whole = [[], 'text', 5, null, true][b % 5];
      return { ...req, body: whole, note: `body=${JSON.stringify(whole)}` };
    }
    if (!body) return req;
    const object =
      req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
    const props = Object.keys(body.properties ?? {});
    if (kind === 'missing' && body.required?.length) {
      const name = body.required[b % body.required.length] as string;
      const { [name]: _, ...rest } = object;
      return { ...req, body: rest, note: `body without ${name}` };
    }
    if (kind === 'wrong' && props.length) {
      const name = props[b % props.length]!;
      const values = wrongValues(doc, body.properties[name]);
      const value = values[c % values.length];
      return {
        ...req,
        body: { ...object, [name]: value },
        note: `body.${name}=${JSON.stringify(value)?.slice(0, 20)}`,
      };
    }
    return { ...req, body: { ...object, unexpected: 'x' }, note: 'body.unexpected' };
  });
}

const validators = new Map<string, ValidateFunction>();
const pointer = (...tokens: string[]) => tokens.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
function validatorAt(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (!v) validators.set(ref, (v = ajv.compile({ $ref: `doc#/${ref}` })));
  return v;
}

/** Whether the document admits the request: its parameters as their text reads, its body as sent. */
function admitted({ method, path, op }: Endpoint, req: Request): boolean {
  for (const p of [...params(op, 'path'), ...params(op, 'query')]) {
    const text = req[p.in as 'path' | 'query'][p.name];
    if (text === undefined) {
      if (p.required) return false;
      continue;
    }
    const i = op.parameters!.indexOf(p);
    if (!validatorAt(pointer('paths', path, method, 'parameters', String(i), 'schema'))(fromText(doc, p.schema, text)))
      return false;
  }
  if (!op.requestBody) return req.body === undefined;
  if (!jsonBody(op)) return false;
  if (req.body === undefined) return !op.requestBody.required;
  return validatorAt(pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'))(req.body);
}

async function send(e: Endpoint, req: Request, token: string | undefined): Promise<void> {
  const url = e.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(req.path[name] ?? ''));
  const res = await t.app.inject({
    method: e.method.toUpperCase() as 'GET',
    url,
    query: req.query,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(req.body !== undefined && { 'content-type': 'application/json' }),
    },
    payload: req.body === undefined ? undefined : JSON.stringify(req.body),
    remoteAddress: addressOf(t.app),
  });
  const fail = (problem: string) => {
    const key = `${e.method.toUpperCase()} ${e.path} -> ${res.statusCode}: ${problem.slice(0, 40)}`;
    if (!failures.has(key))
      failures.set(key, `[${token ? 'token' : 'no token'}, ${req.note}] ${url.slice(0, 100)} -> ${problem}`);
  };
  if (res.statusCode >= 500) return fail(res.body.slice(0, 200));
  const documented = e.op.responses[String(res.statusCode)];
  if (!documented)
    return fail(`status not documented (${Object.keys(e.op.responses).join(', ')}) ${res.body.slice(0, 200)}`);
  if (!token && rolesOf(e.op) && res.statusCode !== 401) fail('no token, yet not 401');
  if (res.statusCode < 400 && !admitted(e, req)) fail('the document refuses this request, the server took it');
  const response = deref(doc, documented);
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (!response.content) {
    if (res.rawPayload.length) fail(`a body where none is documented (${type})`);
    return;
  }
  if (!(type in response.content))
    return fail(`content type ${type || 'none'}, documented ${Object.keys(response.content).join(', ')}`);
  if (!type.endsWith('json')) return;
  const ref = documented.$ref
    ? documented.$ref.slice(2)
    : pointer('paths', e.path, e.method, 'responses', String(res.statusCode));
  const check = validatorAt(`${ref}/${pointer('content', type, 'schema')}`);
  const body = res.json() as unknown;
  if (!check(body)) return fail(`body ${JSON.stringify(check.errors?.slice(0, 2))} ${res.body.slice(0, 200)}`);
  if (res.statusCode < 300) harvest(e.path, body);
  if (res.statusCode < 300) succeeded.add(`${e.method} ${e.path}`);
}

const seedOf = (id: string) => SEED ^ createHash('sha256').update(id).digest().readInt32LE(0);
// Reads before writes (they find the ids the writes use), deletions and administrators' changes last.
const order = ({ method, path }: Endpoint) =>
  method === 'delete' ? 4 : path.startsWith('/api/v1/admin/') ? 3 : method === 'get' ? 1 : 2;

describe('the server against its OpenAPI document, under generated requests', () => {
  it('answers every operation as documented: status, content type and body; refuses what the document refuses', async () => {
    const endpoints: Endpoint[] = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })))
      .sort((a, b) => order(a) - order(b));
    let requests = 0;
    for (const e of endpoints) {
      const token = await tokenFor(e);
      const seed = seedOf(e.op.operationId);
      const generated = [
        ...fc.sample(validRequest(e), { seed, numRuns: VALID_PER_OPERATION }),
        ...fc.sample(invalidRequest(e), { seed: seed + 1, numRuns: INVALID_PER_OPERATION }),
      ];
      // The stream's answer never ends: with a token it is read over a socket, below.
      const withToken = e.path === STREAM ? [] : generated;
      for (const req of withToken) await send(e, req, token);
      if (token) for (const req of generated.slice(0, 2)) await send(e, req, undefined);
      requests += withToken.length + (token ? 2 : 0);
    }
    expect(endpoints.length).toBeGreaterThan(200);
    expect(requests).toBeGreaterThan(endpoints.length * VALID_PER_OPERATION);
    // 107 of 250 when written: the others need state generated input rarely builds (an order, a booking, a file).
    expect(succeeded.size).toBeGreaterThan(90);
    expect([...failures].map(([key, example]) => `${key} ... ${example}`)).toEqual([]);
  }, 600_000);

  it('serves the notification stream as documented: Server-Sent Events', async () => {
    const op = (doc.paths as Record<string, Record<string, Operation>>)[STREAM]!.get!;
    const documented = Object.keys(op.responses['200']!.content as object);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address() as { port: number };
    const stream = await openSse(`http://127.0.0.1:${address.port}${STREAM}`, tokens.get('CLIENT')!);
    try {
      expect(stream.status).toBe(200);
      expect(documented).toEqual(['text/event-stream']);
      expect(stream.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream');
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: expect.any(Number) } });
    } finally {
      stream.close();
    }
  });
});

const STREAM = '/api/v1/notifications/stream';
