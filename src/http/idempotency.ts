import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, conflict, validationError } from '../shared/errors.js';
import { claim, complete, purgeExpired, release } from './idempotency-store.js';

export const PURGE_JOB = 'idempotency.purge';
const KEY = /^[\x21-\x7e]{1,255}$/;
// The response headers a replay needs to say the same thing.
const KEPT_HEADERS = ['content-type', 'location'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Money-moving POST: honours `Idempotency-Key` (see docs/decisions.md). Needs `access` other than Public. */
    idempotency?: boolean;
  }
  interface FastifyRequest {
    /** The key this request holds while it runs, until its answer is stored or the key freed. */
    idempotency?: { userId: string; key: string; startedAt: Date; settled: boolean };
  }
}

/** JSON with object keys sorted, so that the same body written in another order hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const fingerprint = (req: FastifyRequest) =>
  createHash('sha256')
    .update(canonicalJson([req.params ?? {}, req.query ?? {}, req.body ?? null]))
    .digest('hex');

function keyOf(req: FastifyRequest): string | undefined {
  const given = req.headers['idempotency-key'];
  if (given === undefined) return undefined;
  if (typeof given !== 'string' || !KEY.test(given)) {
    throw validationError('headers.idempotency-key', 'must be 1 to 255 visible ASCII characters');
  }
  return given;
}

function replay(reply: FastifyReply, r: { statusCode: number; body: string; headers: Record<string, string> }) {
  return reply.code(r.statusCode).headers(r.headers).header('idempotent-replayed', 'true').send(r.body);
}

// Answers stored for a retry to see again: successes and the handler's refusals (Stripe does the
// same). Not stored, the key freed: 5xx (nothing committed, a retry may succeed) and 429.
const storable = (status: number) => status < 500 && status !== 429;

export function installIdempotency(app: FastifyInstance, ctx: AppContext): void {
  const before: preHandlerAsyncHookHandler = async (req, reply) => {
    const key = keyOf(req);
    if (key === undefined) return;
    const userId = req.user.id;
    const route = `${req.method} ${req.routeOptions.url}`;
    const now = ctx.clock.now();
    const c = await claim(ctx.db, { userId, key, route, requestHash: fingerprint(req), now });
    if (c.kind === 'reused') throw new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for another request');
    if (c.kind === 'in_use') throw conflict('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running; retry later');
    if (c.kind === 'replay') return replay(reply, c.response);
    req.idempotency = { userId, key, startedAt: c.startedAt, settled: false };
  };

  // onSend runs after the handler (and its transaction) finished, for answers and errors alike.
  const after: onSendHookHandler = async (req, reply, payload) => {
    const held = req.idempotency;
    if (!held || held.settled) return payload;
    held.settled = true;
    // No payload (204) is an empty body to replay; a stream cannot be replayed, so its key is freed.
    const body = payload == null ? '' : typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      if (body === null || !storable(reply.statusCode)) await release(ctx.db, held, held.startedAt);
      else {
        const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (reply.hasHeader(h) ? [[h, String(reply.getHeader(h))]] : [])));
        await complete(ctx.db, held, held.startedAt, { statusCode: reply.statusCode, body, headers });
      }
    } catch (err) {
      // The answer still goes out; the key stays `running` and is taken over after a minute.
      req.log.error({ err }, 'idempotency key not settled');
    }
    return payload;
  };
  // A request that ended without an answer passing onSend (connection lost) frees its key.
  const finally_: onResponseHookHandler = async (req) => {
    const held = req.idempotency;
    if (!held || held.settled) return;
    held.settled = true;
    await release(ctx.db, held, held.startedAt).catch((err: unknown) => req.log.error({ err }, 'idempotency key not freed'));
  };

  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotency) return;
    if (!route.config.access || route.config.access === 'Public') throw new Error(`${route.url}: Idempotency-Key needs a signed-in route`);
    const list = <T>(h: T | T[] | undefined): T[] => (h ? [h].flat() as T[] : []);
    // The access guard (onRequest) and body validation come first: refusals there hold no key.
    route.preHandler = [...list(route.preHandler), before];
    route.onSend = [...list(route.onSend), after];
    route.onResponse = [...list(route.onResponse), finally_];
  });

  ctx.jobs.work(PURGE_JOB, async () => {
    const n = await purgeExpired(ctx.db, ctx.clock.now());
    if (n) ctx.log.info({ purged: n }, 'expired idempotency keys purged');
  });
  ctx.jobs.schedule(PURGE_JOB, '41 * * * *');
}
