import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
/** A named response or request shape of the API, e.g. `Schema<'Product'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The query parameters of a route, e.g. `Query<'/api/v1/admin/users'>`. */
export type Query<P extends keyof paths, M extends keyof paths[P] = 'get' & keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

/** The JSON body of a route, e.g. `Body<'/api/v1/admin/subscriptions/plans', 'post'>`. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export interface PageMeta {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  [more: string]: unknown;
}

/** A refused request: the envelope's `error` with the HTTP status and the request id to quote. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field: string; message: string }[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  /** The API's origin, e.g. `https://api.example.sn` (paths carry `/api/v1`). */
  baseUrl: string;
  /** The current access token, if any (keep it in memory). */
  accessToken?: () => string | undefined;
  /**
   * Called once when a request answers 401 (concurrent 401s share one call): returns a new access
   * token, after which the request is sent again, or undefined when the session is over.
   */
  refresh?: () => Promise<string | undefined>;
  /** The session could not be refreshed: show the sign-in. */
  onSessionEnded?: () => void;
  fetch?: (request: Request) => Promise<Response>;
}

export type ApiClient = Client<paths>;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REFRESH_FREE = /\/auth\/(login|console\/(login|refresh|logout)|refresh-token|verify-otp|verify-email-otp)$/;

/** A fresh key for one logical write; pass the same key again when retrying that write. */
export const newIdempotencyKey = (): string => crypto.randomUUID();

export function createApiClient(options: ApiClientOptions): ApiClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  let refreshing: Promise<string | undefined> | undefined;

  const authorised = (request: Request, token: string | undefined) => {
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  };

  async function sessionFetch(request: Request): Promise<Response> {
    // Every write carries a key, so a retry after a lost answer is recognised by the server.
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', newIdempotencyKey());
    }
    const again = request.clone();
    const response = await send(authorised(request, options.accessToken?.()));
    if (response.status !== 401 || !options.refresh || REFRESH_FREE.test(new URL(request.url).pathname))
      return response;
    const token = await (refreshing ??= options.refresh().finally(() => (refreshing = undefined)));
    if (!token) {
      options.onSessionEnded?.();
      return response;
    }
    return send(authorised(again, token));
  }

  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: sessionFetch });
}

interface Outcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}
type Success<R> = R extends { data?: infer B } ? NonNullable<B> : never;
// Distributes over the 200's media types: a route answering JSON or CSV unwraps to `data | string`.
type Unenveloped<B> = B extends { success: true; data: infer D } ? D : B;
type DataOf<R> = Unenveloped<Success<R>>;

function failure(outcome: Outcome): ApiError {
  const body = outcome.error as
    | { error?: { code?: string; message?: string; details?: ApiError['details'] }; requestId?: string }
    | undefined;
  const status = outcome.response.status;
  const err = body?.error;
  return new ApiError(
    status,
    err?.code ?? `HTTP_${status}`,
    err?.message ?? outcome.response.statusText,
    err?.details ?? [],
    body?.requestId,
  );
}

/** The envelope's `data` of a successful call; an `ApiError` otherwise. Bodies that are not envelopes (CSV, files) as they came. */
export async function unwrap<R extends Outcome>(call: Promise<R>): Promise<DataOf<R>> {
  const outcome = await call;
  if (outcome.error !== undefined || !outcome.response.ok) throw failure(outcome);
  const body = outcome.data as { success?: boolean; data?: unknown } | undefined;
  return (body && typeof body === 'object' && body.success === true ? body.data : body) as DataOf<R>;
}

/** A list's page: its rows and the envelope's `meta` (page, limit, total, totalPages). */
export async function unwrapPage<R extends Outcome>(call: Promise<R>): Promise<{ data: DataOf<R>; meta: PageMeta }> {
  const outcome = await call;
  if (outcome.error !== undefined || !outcome.response.ok) throw failure(outcome);
  const body = outcome.data as { data: DataOf<R>; meta: PageMeta };
  return { data: body.data, meta: body.meta };
}
