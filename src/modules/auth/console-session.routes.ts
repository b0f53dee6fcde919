import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { App } from '../../http/types.js';
import { forbidden, unauthenticated } from '../../shared/errors.js';
import { Ok, ok } from '../../shared/schemas.js';
import { UserSchema } from '../users/index.js';
import * as S from './auth.schemas.js';
import type { AuthResult } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

const tags = ['auth'];
const COOKIE = 'console_refresh';
/** The cookie goes only to these routes: no other request carries the refresh token. */
export const CONSOLE_SESSION_PATH = '/api/v1/auth/console';

const ConsoleSessionSchema = Type.Object({ user: UserSchema, accessToken: Type.String() }, { title: 'ConsoleSession' });
const cookieNote =
  `The refresh token travels only in the httpOnly, SameSite=Strict cookie \`${COOKIE}\` scoped to ` +
  `\`${CONSOLE_SESSION_PATH}\`; the page keeps the access token in memory.`;

function readCookie(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** SameSite=Strict already keeps other sites' requests cookie-less; a foreign Origin is refused outright. */
function assertSameOrigin(req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== req.host)
    throw forbidden('CROSS_ORIGIN', 'The console session is only reachable from the console itself');
}

export function consoleSessionRoutes(auth: AuthService, config: Config) {
  const secure = config.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
  const setCookie = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.header(
      'set-cookie',
      `${COOKIE}=${encodeURIComponent(token)}; Path=${CONSOLE_SESSION_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
    );
  const opened = (reply: FastifyReply, { refreshToken, ...session }: AuthResult) => {
    setCookie(reply, refreshToken, config.REFRESH_TOKEN_TTL_SECONDS);
    return ok(session);
  };
  const strict = { access: 'Public', rateLimit: { max: config.AUTH_RATE_LIMIT_MAX, timeWindow: '1 minute' } } as const;
  const client = (req: FastifyRequest) => ({ ip: req.ip, userAgent: req.headers['user-agent'] });

  return async (app: App) => {
    app.addHook('onRequest', async (req) => assertSameOrigin(req));

    app.post(
      '/auth/console/login',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Console sign-in (administrators): the refresh token is set as a cookie',
          description: cookieNote,
          body: S.LoginBodySchema,
          errors: [401, 403],
          response: { 200: Ok(ConsoleSessionSchema) },
        },
      },
      async (req, reply) =>
        opened(reply, await auth.consoleLogin(req.body.phoneNumber, req.body.password, client(req))),
    );

    // Not the sign-in's strict per-address limit: it needs a valid cookie, and every tab of an office behind one
    // address refreshes on load.
    app.post(
      '/auth/console/refresh',
      {
        config: { access: 'Public' },
        schema: {
          tags,
          summary: 'Console session: a new access token from the refresh cookie (rotated)',
          description: cookieNote,
          errors: [401, 403],
          response: { 200: Ok(ConsoleSessionSchema) },
        },
      },
      async (req, reply) => {
        const token = readCookie(req);
        if (!token) throw unauthenticated('No console session; sign in');
        return opened(reply, await auth.consoleRefresh(token));
      },
    );

    app.post(
      '/auth/console/logout',
      {
        config: { access: 'Public' },
        schema: {
          tags,
          summary: 'Console sign-out: ends the session of the refresh cookie and clears it',
          description: cookieNote,
          response: { 200: S.OkMessage },
        },
      },
      async (req, reply) => {
        const token = readCookie(req);
        if (token) await auth.consoleLogout(token);
        setCookie(reply, '', 0);
        return ok({ message: 'Signed out' });
      },
    );
  };
}
