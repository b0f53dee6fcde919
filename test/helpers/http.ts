import type { App } from '../../src/http/types.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

/**
 * The address an app's requests come from unless a test names one: one per app, because the files
 * of a run on Redis share the per-address rate limits (127.0.0.1 for all of them made one file's
 * burst of requests count against another's).
 */
const addresses = new WeakMap<App, string>();
export function addressOf(app: App): string {
  let address = addresses.get(app);
  if (!address)
    addresses.set(
      app,
      (address = `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`),
    );
  return address;
}

/** Calls the API through Fastify's injector (the full HTTP pipeline, no socket). */
export async function call<T = any>(
  app: App,
  method: string,
  url: string,
  opts: CallOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const query = opts.query ? Object.fromEntries(Object.entries(opts.query).map(([k, v]) => [k, String(v)])) : undefined;
  const res = await app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers,
    query,
    payload: opts.body as object | undefined,
    remoteAddress: opts.remoteAddress ?? addressOf(app),
  });
  const type = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, body: (type.includes('json') ? res.json() : res.body) as T, headers: res.headers };
}
