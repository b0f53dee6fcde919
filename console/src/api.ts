import { ApiError, createApiClient, unwrap, type Schema } from '../../clients/typescript/src/index';

export type User = Schema<'User'>;

/**
 * The console's session. The access token lives in this module only (never in storage); the
 * refresh token is an httpOnly cookie the page cannot read, sent by the browser to
 * /api/v1/auth/console/* alone. Tabs share the cookie, and a refresh token is good once, so
 * refreshes are serialised across tabs with a Web Lock: the second tab sends the cookie the
 * first one rotated.
 */
let accessToken: string | undefined;
let currentUser: User | undefined;
let ended: () => void = () => undefined;

export const session = {
  get user() {
    return currentUser;
  },
  onEnded(listener: () => void) {
    ended = listener;
  },
};

const plain = createApiClient({ baseUrl: window.location.origin });

function opened(result: { user: User; accessToken: string }) {
  accessToken = result.accessToken;
  currentUser = result.user;
  return result.user;
}

function forget() {
  accessToken = undefined;
  currentUser = undefined;
}

async function refreshOnce(): Promise<string | undefined> {
  try {
    opened(await unwrap(plain.POST('/api/v1/auth/console/refresh')));
    return accessToken;
  } catch (err) {
    forget();
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return undefined;
    throw err;
  }
}

export function refresh(): Promise<string | undefined> {
  const locks = navigator.locks;
  return locks ? locks.request('foodsave-console-refresh', refreshOnce).then((token) => token) : refreshOnce();
}

export async function signIn(phoneNumber: string, password: string): Promise<User> {
  return opened(await unwrap(plain.POST('/api/v1/auth/console/login', { body: { phoneNumber, password } })));
}

export async function signOut(): Promise<void> {
  forget();
  await unwrap(plain.POST('/api/v1/auth/console/logout'));
}

/** Every call of the console goes through this client. */
export const api = createApiClient({
  baseUrl: window.location.origin,
  accessToken: () => accessToken,
  refresh,
  onSessionEnded: () => ended(),
});

export { ApiError, unwrap };

/** The JSON answer of a route that can also answer CSV. */
export function json<T>(value: T): Exclude<T, string> {
  if (typeof value === 'string') throw new Error('Expected JSON, got text');
  return value as Exclude<T, string>;
}
export { unwrapPage, type Body, type Query, type Schema } from '../../clients/typescript/src/index';
/** One key per logical money-moving write, sent again with each try of it. */
export { newIdempotencyKey } from '../../clients/typescript/src/index';
