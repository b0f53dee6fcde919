import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { tooManyRequests } from '../shared/errors.js';
import type { App } from './types.js';

/**
 * A limit counted per signed-in account, on top of the per-IP limit every route has: for
 * routes that check a password of a signed-in user, where changing address must not give an
 * attacker holding a stolen token new tries. A preHandler, so the access guard has run.
 */
export function perAccountLimit(app: App, name: string, max: number): preHandlerAsyncHookHandler {
  const take = app.createRateLimit({ max, timeWindow: 60_000, keyGenerator: (req: FastifyRequest) => `${name}:${req.user.id}` });
  return async (req) => {
    const r = await take(req);
    if (!r.isAllowed && r.isExceeded) {
      throw tooManyRequests('RATE_LIMITED', `Too many requests; try again in ${r.ttlInSeconds} s`, r.ttlInSeconds);
    }
  };
}
