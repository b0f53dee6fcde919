import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Role, users } from '../db/schema/users.js';
import { forbidden, unauthenticated } from '../shared/errors.js';

/** Who may call a route: the `access` column of the endpoint table. */
export const ACCESS = {
  Public: null,
  Auth: [] as Role[],
  CLIENT: ['CLIENT'],
  SUP: ['SUPPLIER_FOOD', 'SUPPLIER_DEALS'],
  ASSOCIATION: ['ASSOCIATION'],
  ADVERTISER_OR_ADM: ['ADVERTISER', 'ADMIN', 'SUPER_ADMIN'],
  ADM: ['ADMIN', 'SUPER_ADMIN'],
  SUPER_ADMIN: ['SUPER_ADMIN'],
} as const satisfies Record<string, readonly Role[] | null>;
export type Access = keyof typeof ACCESS;

export interface AuthUser {
  id: string;
  role: Role;
  sessionId: string;
  /** The user's row as read by the guard, so handlers need not read it again. */
  account: typeof users.$inferSelect;
}

export type Authenticate = (token: string) => Promise<AuthUser>;
/**
 * Who passes a rule besides its roles, asked only of a signed-in user whose role does not: the
 * holder of an advertiser profile is an advertiser whatever the account's role.
 */
export type AccessGrants = Partial<Record<Access, (user: AuthUser) => Promise<boolean>>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** Set by the access guard; only read it on routes that declare `config.access` other than Public. */
    user: AuthUser;
  }
}

export function currentUser(req: FastifyRequest): AuthUser {
  if (!req.user) throw unauthenticated();
  return req.user;
}

function guard(
  roles: readonly Role[],
  authenticate: Authenticate,
  grant?: (user: AuthUser) => Promise<boolean>,
): onRequestHookHandler {
  return async (req) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match?.[1]) throw unauthenticated();
    const user = await authenticate(match[1]);
    if (roles.length > 0 && !roles.includes(user.role) && !(await grant?.(user)))
      throw forbidden('FORBIDDEN', 'Your role cannot use this endpoint');
    req.user = user;
  };
}

/**
 * Routes declare `config: { access }`; this adds the guard as the first onRequest hook, so a
 * missing token or wrong role is refused before the body is read. The OpenAPI document reads the
 * same option (src/http/openapi.ts).
 */
export function installAccessControl(
  app: FastifyInstance,
  authenticate: Authenticate,
  grants: AccessGrants = {},
): void {
  app.decorateRequest('user', null as unknown as AuthUser);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access || access === 'Public') return;
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    // After hooks added before (the rate limiter), so a flood of bad tokens is still limited.
    route.onRequest = [...existing, guard(ACCESS[access], authenticate, grants[access])];
  });
}
