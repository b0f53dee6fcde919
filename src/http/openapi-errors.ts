import type { RouteOptions } from 'fastify';

/** Error statuses a route can document, each shared as `#/components/responses/<name>`; all answer with the error envelope. */
export const ERROR_RESPONSES = {
  400: [
    'BadRequest',
    'VALIDATION_ERROR: `details` lists each bad field as `body.x`, `query.y` or `params.z`. Other codes: INVALID_OTP, OTP_EXPIRED, INVALID_PASSWORD.',
  ],
  401: [
    'Unauthorized',
    'UNAUTHENTICATED: no token, or an invalid, expired or revoked one (INVALID_CREDENTIALS on sign-in).',
  ],
  403: [
    'Forbidden',
    'FORBIDDEN: the role may not use this endpoint. Other codes: NOT_OWNER, ACCOUNT_NOT_VERIFIED, ACCOUNT_SUSPENDED, PLAN_LIMIT_REACHED, FEATURE_DISABLED (an administrator switched the feature off).',
  ],
  404: [
    'NotFound',
    'NOT_FOUND: no such resource, or one the caller may not see (SUPPLIER_PROFILE_REQUIRED before a supplier profile exists).',
  ],
  409: [
    'Conflict',
    'The current state does not allow it: CONFLICT, ALREADY_EXISTS, INVALID_TRANSITION, HAS_WORK_IN_PROGRESS, KYC_NOT_APPROVED, IDEMPOTENCY_KEY_IN_USE (a request with this Idempotency-Key is still running)...',
  ],
  410: ['Gone', 'INVITATION_EXPIRED: the invitation has expired.'],
  413: ['PayloadTooLarge', 'PAYLOAD_TOO_LARGE: the body is over 1 MB, or a file over 5 MB.'],
  415: [
    'UnsupportedMediaType',
    'UNSUPPORTED_MEDIA_TYPE (send JSON, or multipart/form-data to uploads) or UNSUPPORTED_IMAGE_FORMAT (JPEG, PNG, WebP; PDF where allowed).',
  ],
  422: [
    'UnprocessableContent',
    'TOO_MANY_FILES: more files than the upload takes. IMAGE_TOO_LARGE: a picture has more pixels than its kind allows. IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request.',
  ],
  429: ['TooManyRequests', 'RATE_LIMITED or OTP_RESEND_LIMIT; `Retry-After` gives the seconds to wait.'],
  500: ['InternalError', 'INTERNAL_ERROR: something went wrong on the server; the `requestId` finds it in the logs.'],
  503: [
    'ServiceUnavailable',
    'SERVICE_UNAVAILABLE: a service this endpoint needs (the database among them) is not configured or cannot be reached, or (uploads) too many pictures are waiting to be processed; `Retry-After` gives the seconds to wait when it says.',
  ],
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

declare module 'fastify' {
  interface FastifySchema {
    /** Error statuses the route gives beyond those its options imply (see documentedErrors). */
    errors?: readonly ErrorStatus[];
    /** Fields of a multipart/form-data upload, for the document only: the handler reads the parts itself. */
    form?: unknown;
  }
}

const isMultipart = (schema: RouteOptions['schema']) => schema?.consumes?.includes('multipart/form-data') ?? false;

/**
 * The error statuses a route can answer, from its options: 400 when it takes input (path, query,
 * body; a body sent to a bodiless route is refused too), 401 and 403 unless public, 404 with path
 * parameters, 413 and 415 when it reads a body, 422 on uploads, 429 unless exempt from rate
 * limits, 409 and 422 with `Idempotency-Key`, 500 and 503 (the database unreachable, or too many
 * pictures waiting on uploads) always; plus the route's own `schema.errors`.
 */
export function documentedErrors(route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>): ErrorStatus[] {
  const { schema, config } = route;
  const found = new Set<ErrorStatus>(schema?.errors ?? []);
  const multipart = isMultipart(schema);
  const readsBody = Boolean(schema?.body) || multipart;
  const methods = [route.method].flat();
  if (schema?.params || schema?.querystring || readsBody || methods.some((m) => m !== 'GET' && m !== 'HEAD'))
    found.add(400);
  if (config?.access && config.access !== 'Public') {
    found.add(401);
    found.add(403);
  }
  if (/[:*]/.test(route.url)) found.add(404);
  if (readsBody) {
    found.add(413);
    found.add(415);
  }
  if (multipart) found.add(422);
  if (config?.idempotency) {
    found.add(409);
    found.add(422);
  }
  if (config?.rateLimit !== false) found.add(429);
  found.add(500);
  found.add(503);
  return [...found].sort((a, b) => a - b);
}

const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'seconds to wait before trying again' } };

/** Route response schemas for the statuses (the envelope by reference; 429 and 503 also say when to retry). */
export function errorResponses(statuses: readonly ErrorStatus[]): Record<string, unknown> {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: ERROR_RESPONSES[s][1],
        $ref: 'ErrorResponse#',
        ...((s === 429 || s === 503) && { headers: RETRY_AFTER }),
      },
    ]),
  );
}

/** The same responses as the document renders them, under their component names. */
export function errorResponseComponents(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, [name, description]]) => [
      name,
      {
        description,
        ...((status === '429' || status === '503') && {
          headers: {
            'Retry-After': { schema: { type: 'integer' }, description: RETRY_AFTER['Retry-After'].description },
          },
        }),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
      },
    ]),
  );
}
