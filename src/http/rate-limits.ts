import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { tooManyRequests } from '../shared/errors.js';
import type { App } from './types.js';

/**
 * A limit counted per signed-in account, on top of the per-IP limit every route has: for
 * routes that check a password of a signed-in user, where changing address must not give an
 * attacker holding a stolen token new tries. A preHandler, so the access guard has run.
 */
export function perAccountLimit(app: App, name: string, max: number): preHandlerAsyncHookHandler {
  const take = app.createRateLimit({
    max,
    timeWindow: 60_000,
    keyGenerator: (req: FastifyRequest) => `${name}:${req.user.id}`,
  });
  return async (req) => {
    const r = await take(req);
    if (!r.isAllowed && r.isExceeded) {
      throw tooManyRequests('RATE_LIMITED', `Too many requests; try again in ${r.ttlInSeconds} s`, r.ttlInSeconds);
    }
  };
}

/** `burst` requests at once, then `perMinute` a minute: what an app checking as its user types needs. */
export interface TokenBucket {
  burst: number;
  perMinute: number;
}

interface BucketState {
  tokens: number;
  at: number;
}

const MAX_LOCAL_BUCKETS = 10_000;

/** Takes a token at `now`; answers 0, or the milliseconds until one is back. */
export function takeToken(state: BucketState, b: TokenBucket, now: number): number {
  const perMs = b.perMinute / 60_000;
  if (now > state.at) state.tokens = Math.min(b.burst, state.tokens + (now - state.at) * perMs);
  state.at = Math.max(state.at, now);
  if (state.tokens < 1) return Math.ceil((1 - state.tokens) / perMs);
  state.tokens -= 1;
  return 0;
}

// The same arithmetic as takeToken, atomic in Redis; the time is the application's clock.
const TAKE_SCRIPT = `
local s = redis.call('HMGET', KEYS[1], 't', 'a')
local burst, perMs, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, at = tonumber(s[1]) or burst, tonumber(s[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) * perMs) end
if now > at then at = now end
local wait = 0
if tokens < 1 then wait = math.ceil((1 - tokens) / perMs) else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
return wait`;

async function takeShared(redis: Redis, key: string, b: TokenBucket, now: number): Promise<number> {
  return Number(await redis.eval(TAKE_SCRIPT, 1, key, b.burst, b.perMinute / 60_000, now));
}

/**
 * A token bucket per signed-in account (in Redis when configured, so every instance shares it):
 * a burst passes, then the steady rate bounds the account; 429 RATE_LIMITED with Retry-After
 * beyond. A Redis failure lets the request through, as the per-IP limit does.
 */
export function perAccountBucket(app: App, name: string, b: TokenBucket): preHandlerAsyncHookHandler {
  const local = new Map<string, BucketState>();
  return async (req) => {
    const { redis, clock, log } = app.ctx;
    const now = clock.now().getTime();
    let wait: number;
    if (redis) {
      wait = await takeShared(redis, `foodsave:bucket:${name}:${req.user.id}`, b, now).catch((err: unknown) => {
        log.warn({ err }, 'rate limit not checked');
        return 0;
      });
    } else {
      // Bounded: a full map forgets the buckets that have refilled (they would start full anyway).
      if (local.size >= MAX_LOCAL_BUCKETS)
        for (const [k, s] of local) if (s.tokens + ((now - s.at) * b.perMinute) / 60_000 >= b.burst) local.delete(k);
      const state = local.get(req.user.id) ?? { tokens: b.burst, at: now };
      local.set(req.user.id, state);
      wait = takeToken(state, b, now);
    }
    if (wait > 0)
      throw tooManyRequests('RATE_LIMITED', `Too many requests; try again in ${Math.ceil(wait / 1000)} s`, wait / 1000);
  };
}
