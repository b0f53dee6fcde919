import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameSchemas } from '../src/http/openapi-components.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, unknown> };
  parameters?: { in: string; name: string; required?: boolean }[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface Doc {
  info: { version: string; license?: { name: string } };
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, unknown> };
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const access = new Map(
  readFileSync(new URL('../docs/spec/endpoints.tsv', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .map(([method, path, rule]) => [`${method} ${path!.replace(/:[A-Za-z]+/g, '{}')}`, rule!]),
);
// Routes of the platform itself, outside the endpoint table.
const PLATFORM_PUBLIC = [
  '/api/v1/health',
  '/api/v1/health/ready',
  '/api/v1/files/public/{path}',
  '/api/v1/files/private/{path}',
];

let t: TestApp;
let doc: Doc;
let ops: { method: string; path: string; op: Operation }[];

beforeAll(async () => {
  t = await buildTestApp();
  doc = (await call(t.app, 'GET', '/openapi.json')).body as Doc;
  ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
});
afterAll(() => t.close());

describe('the OpenAPI document', () => {
  it('passes the Redocly recommended rules with no error', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const seen = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}`);
    expect(seen.filter((p) => p.startsWith('error'))).toEqual([]);
    // The probes take no input, are exempt from rate limits and cannot fail on the caller's side,
    // so they have no 4xx response to document. The contract's `/reviews/product/:productId` and
    // `/reviews/:id/<action>` read alike for a review id "product" (a router tells them apart: the
    // literal segment wins, and "product" is no UUID); so do `/donations/verify/:code` and
    // `/donations/:donationId/<action>` ("verify" is no UUID).
    expect(seen.sort()).toEqual([
      'warn no-ambiguous-paths #/paths/~1api~1v1~1donations~1verify~1{code}',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1donations~1{donationId}~1cancel',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1donations~1{donationId}~1confirm-pickup',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1donations~1{donationId}~1schedule-pickup',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1donations~1{donationId}~1status',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1reviews~1{id}~1helpful',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1reviews~1{id}~1images',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1reviews~1{id}~1reply',
      'warn no-ambiguous-paths #/paths/~1api~1v1~1reviews~1{id}~1report',
      'warn operation-4xx-response #/paths/~1api~1v1~1health/get/responses',
      'warn operation-4xx-response #/paths/~1api~1v1~1health~1ready/get/responses',
    ]);
  });

  it('gives every operation a unique, readable operationId derived from method and path', () => {
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z]+(?:[A-Z0-9][a-z0-9]*)+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/suppliers/nearby']!.get!.operationId).toBe('getSuppliersNearby');
    expect(doc.paths['/api/v1/admin/suppliers/{id}/verify']!.patch!.operationId).toBe('patchAdminSuppliersByIdVerify');
    expect(doc.paths['/api/v1/staff/stores/{storeId}/members/{userId}']!.delete!.operationId).toBe(
      'deleteStaffStoresByStoreIdMembersByUserId',
    );
  });

  it('marks public operations with an empty security list and protected ones with the bearer token and 401/403', () => {
    let checked = 0;
    for (const { method, path, op } of ops) {
      const label = `${method.toUpperCase()} ${path}`;
      const isPublic = op.security?.length === 0;
      if (!isPublic) {
        expect(op.security, label).toEqual([{ bearerAuth: [] }]);
        expect(op.responses['401']?.$ref, label).toBe('#/components/responses/Unauthorized');
        expect(op.responses['403']?.$ref, label).toBe('#/components/responses/Forbidden');
      }
      // Against the contract where it lists the endpoint; the platform's own routes are public.
      const rule = access.get(`${method.toUpperCase()} ${path.replace('/api/v1', '').replace(/\{[^}]+\}/g, '{}')}`);
      if (rule !== undefined) checked++;
      if (rule !== undefined || PLATFORM_PUBLIC.includes(path))
        expect(isPublic, label).toBe((rule ?? 'Public') === 'Public');
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('documents the error responses each route can give, with the error envelope', () => {
    const has = (op: Operation, status: string) => op.responses[status]?.$ref !== undefined;
    for (const { method, path, op } of ops) {
      const label = `${method.toUpperCase()} ${path}`;
      if (!path.startsWith('/api/v1/health')) expect(has(op, '429'), `${label} 429`).toBe(true);
      if (path.includes('{')) expect(has(op, '404') && has(op, '400'), `${label} 400/404`).toBe(true);
      if (op.requestBody)
        expect(
          ['400', '413', '415'].every((s) => has(op, s)),
          `${label} 400/413/415`,
        ).toBe(true);
      if (op.requestBody?.content['multipart/form-data'])
        expect(has(op, '422') && has(op, '503'), `${label} 422/503`).toBe(true);
    }
    const kyc = doc.paths['/api/v1/suppliers/profile/kyc']!.post!;
    expect(Object.keys(kyc.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(doc.paths['/api/v1/staff/invitations/{token}/accept']!.post!.responses['410']?.$ref).toBe(
      '#/components/responses/Gone',
    );
    for (const name of ['TooManyRequests', 'ServiceUnavailable']) {
      expect(doc.components.responses[name], name).toMatchObject({
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
      });
    }
    expect(doc.components.responses.BadRequest).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    });
  });

  it('names the shared shapes as components and refers to them', () => {
    for (const name of [
      'ErrorResponse',
      'ErrorDetail',
      'PageMeta',
      'User',
      'UserPage',
      'UserResponse',
      'PublicSupplier',
      'OwnSupplier',
      'AdminSupplier',
      'Store',
      'StorePage',
      'KycAttempt',
      'KycAttemptPage',
      'OpeningHours',
    ]) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    const body = (path: string, method: string, status = '200') =>
      doc.paths[path]![method]!.responses[status]!.content!['application/json']!.schema.$ref;
    expect(body('/api/v1/admin/users', 'get')).toBe('#/components/schemas/UserPage');
    expect(body('/api/v1/auth/me', 'get')).toBe('#/components/schemas/UserResponse');
    expect(body('/api/v1/stores/{storeId}', 'get')).toBe('#/components/schemas/StoreResponse');
    expect(doc.components.schemas.UserPage).toMatchObject({
      properties: {
        data: { items: { $ref: '#/components/schemas/User' } },
        meta: { $ref: '#/components/schemas/PageMeta' },
      },
    });
  });

  it('resolves every $ref inside the document', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node))
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(100);
    const unresolved = [...new Set(refs)].filter((ref) => {
      if (!ref.startsWith('#/')) return true;
      let node: unknown = doc;
      for (const token of ref.slice(2).split('/'))
        node = (node as Record<string, unknown> | undefined)?.[
          decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~')
        ];
      return node === undefined;
    });
    expect(unresolved).toEqual([]);
  });

  it('describes every tag it uses, and says which version and licence it is', () => {
    const declared = new Map(doc.tags.map((tag) => [tag.name, tag.description]));
    for (const { op } of ops) for (const tag of op.tags ?? []) expect(declared.get(tag), `tag ${tag}`).toBeTruthy();
    expect(doc.info.version).toBe(pkg.version);
    // package.json's licence, as an SPDX identifier (LICENSE holds the text).
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('leaves defaulted query parameters optional and documents upload forms and file downloads', () => {
    const params = doc.paths['/api/v1/stores']!.get!.parameters!;
    expect(params.find((p) => p.name === 'page')?.required).toBe(false);
    expect(doc.paths['/api/v1/stores/nearby']!.get!.parameters!.find((p) => p.name === 'latitude')?.required).toBe(
      true,
    );
    expect(
      doc.paths['/api/v1/suppliers/profile/logo']!.post!.requestBody!.content['multipart/form-data'],
    ).toMatchObject({
      schema: { properties: { logo: { type: 'string', format: 'binary' } }, required: ['logo'] },
    });
    expect(Object.keys(doc.paths['/api/v1/files/public/{path}']!.get!.responses['200']!.content!)).toContain(
      'image/webp',
    );
  });
});

describe('what the document says against what the server does', () => {
  it('documents the notification stream as Server-Sent Events, not JSON', () => {
    const ok = doc.paths['/api/v1/notifications/stream']!.get!.responses['200']!;
    expect(Object.keys(ok.content!)).toEqual(['text/event-stream']);
    expect(JSON.stringify(ok)).toContain('`unread`');
  });

  it('documents the 404 of removing a device token the caller has not registered, and answers it', async () => {
    const op = doc.paths['/api/v1/notifications/device-token']!.delete!;
    expect(op.responses['404']?.$ref).toBe('#/components/responses/NotFound');
    const { token } = await createSignedIn(t.app);
    const res = await call(t.app, 'DELETE', '/notifications/device-token', {
      token,
      body: { token: 'never-registered-token' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('naming schemas by title', () => {
  it('refuses two different shapes under one title', () => {
    const response = (schema: unknown) => ({ content: { 'application/json': { schema } } });
    const withTwo = {
      paths: {
        '/a': {
          get: {
            responses: { 200: response({ title: 'Thing', type: 'object', properties: { a: { type: 'string' } } }) },
          },
        },
        '/b': {
          get: {
            responses: { 200: response({ title: 'Thing', type: 'object', properties: { b: { type: 'string' } } }) },
          },
        },
      },
    };
    expect(() => nameSchemas(withTwo)).toThrow('two different schemas are titled "Thing"');
  });
});
