import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { ErrorResponseSchema } from '../shared/schemas.js';
import { ACCESS } from './access.js';
import { weakEtagOf } from './caching.js';
import { type OpenApiDoc, nameSchemas } from './openapi-components.js';
import { documentedErrors, errorResponseComponents, errorResponses } from './openapi-errors.js';

const TAGS = [
  { name: 'health', description: 'Liveness and readiness probes for load balancers and orchestrators.' },
  {
    name: 'auth',
    description: 'Registration, sign-in (password, one-time codes, identity provider), tokens and sessions.',
  },
  { name: 'files', description: 'Stored files: public images, and private documents through signed, expiring links.' },
  {
    name: 'suppliers',
    description: "The public supplier directory, and a supplier's own profile, logo, plan and statistics.",
  },
  {
    name: 'suppliers: KYC',
    description: 'Identity and business documents a supplier submits before it can be verified.',
  },
  { name: 'stores', description: 'The public store directory: search, nearby, one store.' },
  {
    name: 'supplier: stores',
    description: "A supplier's own stores: create, change, close temporarily, deactivate, statistics.",
  },
  {
    name: 'products',
    description: "The catalogue: public product pages, favourites, and a supplier's own products, stock and pictures.",
  },
  { name: 'staff', description: 'Store teams: invitations, members and their roles.' },
  {
    name: 'orders',
    description:
      "Ordering a store's products, the order's states from payment to pickup, and statistics for clients and sellers.",
  },
  {
    name: 'payments',
    description: 'Payments of orders through the mobile-money provider: status, callbacks and webhook.',
  },
  {
    name: 'subscriptions',
    description:
      'Supplier plans and their product limits: subscribing (paid through the mobile-money provider), renewing, cancelling, promo codes.',
  },
  {
    name: 'admin: subscriptions',
    description: 'Subscription plans and promo codes, singly or in bulk (ADMIN, SUPER_ADMIN).',
  },
  { name: 'admin: users', description: 'User administration (ADMIN, SUPER_ADMIN).' },
  { name: 'admin: suppliers', description: 'Supplier verification, rejection and commission (ADMIN, SUPER_ADMIN).' },
  { name: 'admin: KYC', description: "Review of suppliers' KYC submissions (ADMIN, SUPER_ADMIN)." },
  {
    name: 'notifications',
    description: 'In-app notifications, their live stream, channel preferences and push device tokens.',
  },
  {
    name: 'admin: payments',
    description:
      'Escrows of paid orders (release, refund, disputes), payouts to suppliers and payment statistics (ADMIN, SUPER_ADMIN).',
  },
  { name: 'admin: reports', description: 'Financial reports from the ledger, as JSON or CSV (ADMIN, SUPER_ADMIN).' },
  {
    name: 'admin: analytics',
    description: 'Platform analytics: the top product searches and the products sold most (ADMIN, SUPER_ADMIN).',
  },
  {
    name: 'admin: products',
    description: 'Product moderation (approve, reject, in bulk), status and deletion (ADMIN, SUPER_ADMIN).',
  },
  {
    name: 'reviews',
    description:
      "Reviews of products and suppliers by clients who bought from them: lists with rating summaries, helpful marks, reports, the supplier's answer.",
  },
  { name: 'admin: reviews', description: 'Reported reviews: clear their reports or delete them (ADMIN, SUPER_ADMIN).' },
  {
    name: 'associations',
    description:
      "Charities: the public directory of verified associations and their reports, and an association's own profile, documents and reports.",
  },
  {
    name: 'donations',
    description:
      'Food donations from suppliers to associations: stock taken, acceptance, pickup, collection, cancellation.',
  },
  {
    name: 'admin: associations',
    description: 'Verification and rejection of associations, and their statistics (ADMIN, SUPER_ADMIN).',
  },
  {
    name: 'advertising',
    description:
      'Ads served to the apps with signed click tokens; advertiser profiles, campaigns, their moderation and statistics.',
  },
  {
    name: 'admin: advertising',
    description: 'Advertisers and campaigns, the review queue, approval and rejection (ADMIN, SUPER_ADMIN).',
  },
  {
    name: 'deals',
    description:
      "Deals (surprise bags, discounts) of stores: public search and page, booking with a QR code paid at the counter, and the supplier's deals and counter validation.",
  },
  { name: 'admin: deals', description: 'Deal moderation: pending deals, approval and rejection (ADMIN, SUPER_ADMIN).' },
  {
    name: 'admin: announcements',
    description:
      'Messages to every user or to one role, sent in batches as notifications, with their progress (ADMIN, SUPER_ADMIN).',
  },
  {
    name: 'admin: settings',
    description:
      'Platform settings (business rules, payment methods, feature flags), their history and the caches (ADMIN, SUPER_ADMIN).',
  },
];

const DESCRIPTION = `Anti-food-waste marketplace: suppliers publish near-expiry food, clients order and pay by mobile money into escrow, charities receive donations, administrators moderate.

Every success is \`{success: true, data, meta?}\`; lists take \`page\` and \`limit\` and return \`meta: {page, limit, total, totalPages}\`. Numbers in query strings and paths are written in decimal digits (\`16\`, \`-17.45\`): hexadecimal, exponents, signs and spaces are refused, as they are in a JSON body. Every error is \`{success: false, error: {code, message, details?}, requestId}\` with a stable \`code\`.

Sign in with \`POST /api/v1/auth/login\` and send the access token as \`Authorization: Bearer <token>\`; refresh it with \`POST /api/v1/auth/refresh-token\`. Operation ids are stable, so clients can be generated from this document.`;

/** The installation's package.json: the same code runs from src/ and, compiled, from dist/src/. */
const readPackage = () =>
  JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string; license?: string };

// A private package without a licence is all rights reserved (npm spells it UNLICENSED).
const licenseOf = (license: string | undefined) =>
  !license || license === 'UNLICENSED'
    ? { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' }
    : { name: license, identifier: license };

/** `GET /suppliers/nearby` -> `getSuppliersNearby`, `PATCH /admin/suppliers/:id/verify` -> `patchAdminSuppliersByIdVerify`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) =>
      segment.startsWith(':')
        ? ['by', segment.slice(1)]
        : segment === '*'
          ? ['by', 'path']
          : segment.split(/[^A-Za-z0-9]+/),
    )
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

// A wildcard route (`/files/public/*`) is documented with a named parameter: `{path}`.
function renameWildcard(url: string, params: unknown): { url: string; params: unknown } {
  if (!url.endsWith('*')) return { url, params };
  const p = params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  const { '*': wildcard, ...rest } = p?.properties ?? {};
  const path = {
    type: 'string',
    description: 'path of the file, as given in the links the API returns',
    ...(wildcard as object),
  };
  return {
    url: `${url.slice(0, -1)}{path}`,
    params: {
      ...p,
      properties: { ...rest, path },
      required: [...(p?.required ?? []).filter((r) => r !== '*'), 'path'],
    },
  };
}

/**
 * What the document says about a route beyond its own schema, decided here once for all routes:
 * operationId, security, who may call it, the error responses, the form of an upload.
 */
function describeRoute(
  prefix: string,
  { schema, url, route }: { schema: FastifySchema | undefined; url: string; route: RouteOptions },
) {
  if (schema?.hide) return { schema, url };
  const s = { ...schema };
  const method = [route.method].flat()[0]!;
  const access = route.config?.access ?? 'Public';
  const roles = ACCESS[access];
  s.operationId ??= operationIdOf(method, url.startsWith(prefix) ? url.slice(prefix.length) : url);
  s.security = roles ? [{ bearerAuth: [] }] : [];
  if (roles)
    s.description = [s.description, `Access: ${roles.length ? roles.join(', ') : 'any signed-in user'}.`]
      .filter(Boolean)
      .join('\n\n');
  s.response = { ...errorResponses(documentedErrors(route)), ...(describeSuccess(s.response) as object | undefined) };
  if (s.form) s.body = s.form;
  if (route.config?.idempotency) s.headers = withIdempotencyKey(s.headers);
  const renamed = renameWildcard(url, s.params);
  if (renamed.url !== url) s.params = renamed.params;
  return { schema: s, url: renamed.url };
}

const IDEMPOTENCY_KEY = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'Optional. The same key and request within 24 h replays the first answer (header `Idempotent-Replayed: true`) instead of acting twice; ' +
    'the key with another request: 422 IDEMPOTENCY_KEY_REUSED; while the first still runs: 409 IDEMPOTENCY_KEY_IN_USE.',
};
// The header is read by src/http/idempotency.ts, not validated by the route's schema: documented here.
function withIdempotencyKey(headers: unknown): unknown {
  const h = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  return { ...h, properties: { ...h.properties, 'idempotency-key': IDEMPOTENCY_KEY } };
}

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

// Success responses say what they are: the envelope's description would otherwise be "Default Response".
function describeSuccess(response: unknown): unknown {
  if (!response || typeof response !== 'object') return response;
  return Object.fromEntries(
    Object.entries(response).map(([status, r]) =>
      SUCCESS[status] && r && typeof r === 'object' && !('description' in r)
        ? [status, { ...r, 'x-response-description': SUCCESS[status] }]
        : [status, r],
    ),
  );
}

interface Operation {
  operationId?: string;
  parameters?: { in: string; required?: boolean; schema?: { default?: unknown } }[];
  responses?: Record<string, unknown>;
}

/** Names the shared schemas, shares the standard error responses by reference, checks the operation ids. */
function finishDocument(doc: OpenApiDoc): OpenApiDoc {
  nameSchemas(doc);
  const shared = errorResponseComponents();
  const byJson = new Map(Object.entries(shared).map(([name, r]) => [JSON.stringify(r), name]));
  const used = new Set<string>();
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item) as Operation[]) {
      // Validation fills in a defaulted query parameter (page, limit): clients may leave it out.
      for (const p of op.parameters ?? []) if (p.in !== 'path' && p.schema?.default !== undefined) p.required = false;
      if (!op.operationId || ids.has(op.operationId))
        throw new Error(`OpenAPI: missing or repeated operationId ${op.operationId} (${path})`);
      ids.add(op.operationId);
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        const name = byJson.get(JSON.stringify(r));
        if (!name) continue;
        op.responses![status] = { $ref: `#/components/responses/${name}` };
        used.add(name);
      }
    }
  }
  doc.components = {
    ...doc.components,
    responses: Object.fromEntries([...used].sort().map((name) => [name, shared[name]])),
  };
  return doc;
}

export async function installOpenApi(app: FastifyInstance, prefix: string): Promise<void> {
  const pkg = readPackage();
  app.addSchema(ErrorResponseSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'FoodSave marketplace API',
        version: pkg.version,
        description: DESCRIPTION,
        license: licenseOf(pkg.license),
      },
      servers: [{ url: '/' }],
      tags: TAGS,
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    transform: (input) => describeRoute(prefix, input),
    transformObject: (document) => finishDocument((document as { openapiObject: OpenApiDoc }).openapiObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: `${prefix}/docs` });
  // Written once (its half a megabyte of JSON was serialized on every request), tagged by its hash.
  let document: { json: string; etag: string } | undefined;
  app.get(`${prefix}/openapi.json`, { schema: { hide: true }, config: { cache: 'document' } }, async (_req, reply) => {
    if (!document) {
      const json = JSON.stringify(app.swagger());
      document = { json, etag: weakEtagOf(json) };
    }
    return reply.type('application/json; charset=utf-8').header('etag', document.etag).send(document.json);
  });
}
