import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import type { AppContext } from '../context.js';
import { afterCommit } from '../db/after-commit.js';
import type { Executor } from '../db/client.js';
import { AppError, conflict, validationError } from '../shared/errors.js';
import { ok } from '../shared/schemas.js';
import {
  claim,
  claimIn,
  complete,
  isKept,
  purgeExpired,
  record,
  release,
  type Request as KeyRequest,
} from './idempotency-store.js';

export const PURGE_JOB = 'idempotency.purge';
const KEY = /^[\x21-\x7e]{1,255}$/;
// The response headers a replay needs to say the same thing.
const KEPT_HEADERS = ['content-type', 'location'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Money-moving POST: honours `Idempotency-Key` (see docs/decisions.md). Needs `access` other than Public.
     * `'in-transaction'`: the handler claims the key in its own business transaction
     * (`transactionalKey(req)`), so a new key costs no commit of its own.
     */
    idempotency?: boolean | 'in-transaction';
  }
  interface FastifyRequest {
    /**
     * The key of this request, until its answer is stored or the key freed. `held`: its row is
     * committed (claimed before the handler, or by the handler's committed transaction).
     */
    idempotency?: {
      userId: string;
      key: string;
      startedAt: Date;
      settled: boolean;
      held: boolean;
      request?: KeyRequest;
      resumed?: { made: string | null };
    };
  }
}

/** The key's claim for a handler's own transaction (routes with `idempotency: 'in-transaction'`). */
export interface TransactionalKey {
  key: string;
  /**
   * Claims the key in the business transaction: it is held if (and only if) that commits. A
   * concurrent request with the same key waits at the claim until then. Call it before the
   * transaction's first effect, or after an effect that is itself unique per key (see `taken`).
   * `made`: the id of what the request makes, for a retry that finds its first run's answer lost (`madeBefore`).
   */
  claim(tx: Executor, made?: string): Promise<void>;
  /**
   * Claims the key with the route's success answer (`data`, sent in the envelope with `statusCode`),
   * in place of `claim` (not after it) when the answer is known before the commit: the key is
   * settled by the business commit, with no write after it.
   */
  answer(tx: Executor, statusCode: number, data: unknown): Promise<void>;
  /**
   * The error to throw when an effect unique per key (the orders' (client, key) index) found it made
   * by another request with this key: as a claim that found the key taken.
   */
  taken(): Error;
  /**
   * What the first run of this very request made (the `made` of its claim), when that run committed but
   * its process died before the answer was stored: this run took the key over and must answer that
   * (the answer is marked `Idempotent-Replayed: true` and stored as the key's) rather than make it again.
   */
  madeBefore(): string | undefined;
}

/** Thrown by a transactional claim that found the key taken: the transaction rolls back and the plugin answers. */
class KeyTaken extends Error {}

const keptHeaders = (reply: FastifyReply) =>
  Object.fromEntries(KEPT_HEADERS.flatMap((h) => (reply.hasHeader(h) ? [[h, String(reply.getHeader(h))]] : [])));

/** The request's key, claimed by the handler's transaction; undefined without an Idempotency-Key header. */
export function transactionalKey(req: FastifyRequest, reply: FastifyReply): TransactionalKey | undefined {
  const held = req.idempotency;
  if (!held) return undefined;
  return {
    key: held.key,
    async claim(tx, made) {
      // Already held: the plugin claimed it outside (a key taken over after it expired or was abandoned).
      if (held.held || !held.request) return;
      if (!(await claimIn(tx, held.request, undefined, made))) throw new KeyTaken();
      afterCommit(tx, () => (held.held = true));
    },
    async answer(tx, statusCode, data) {
      // The route's own serializer, as Fastify's send will use it: the stored body is the one sent.
      const body = String(reply.code(statusCode).serialize(ok(data)));
      const response = { statusCode, body, headers: { 'content-type': JSON_TYPE, ...keptHeaders(reply) } };
      // Held already (claimed outside: a key taken over), its row gets the answer.
      if (held.held) await complete(tx, held, held.startedAt, response);
      else if (!held.request || !(await claimIn(tx, held.request, response))) throw new KeyTaken();
      afterCommit(tx, () => (held.settled = held.held = true));
    },
    taken() {
      // Held already (taken over after it expired), the effect is an earlier request's with this key.
      return held.held
        ? new AppError(
            422,
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used for an earlier request: use a new key',
          )
        : new KeyTaken();
    },
    madeBefore() {
      const made = held.resumed?.made;
      if (!made) return undefined;
      reply.header('idempotent-replayed', 'true');
      return made;
    },
  };
}
const JSON_TYPE = 'application/json; charset=utf-8';

/** JSON with object keys sorted, so that the same body written in another order hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
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
  const keyRequest = (req: FastifyRequest, key: string): KeyRequest => ({
    userId: req.user.id,
    key,
    route: `${req.method} ${req.routeOptions.url}`,
    requestHash: fingerprint(req),
    now: ctx.clock.now(),
  });
  /** Claims the key in a commit of its own: the request runs (true), or it has been answered (false). */
  const claimOutside = async (req: FastifyRequest, reply: FastifyReply, r: KeyRequest): Promise<boolean> => {
    const c = await claim(ctx.db, r);
    if (c.kind === 'reused')
      throw new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for another request');
    if (c.kind === 'in_use')
      throw conflict('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running; retry later');
    if (c.kind === 'replay') {
      replay(reply, c.response);
      return false;
    }
    req.idempotency = {
      userId: r.userId,
      key: r.key,
      startedAt: c.startedAt,
      settled: false,
      held: true,
      resumed: c.resumed,
    };
    return true;
  };

  const before: preHandlerAsyncHookHandler = async (req, reply) => {
    const key = keyOf(req);
    if (key === undefined) return;
    const r = keyRequest(req, key);
    if (req.routeOptions.config.idempotency === 'in-transaction') {
      // Nothing written yet: the handler's transaction inserts the key's row with its own.
      req.idempotency = { userId: r.userId, key, startedAt: r.now, settled: false, held: false, request: r };
      return;
    }
    if (!(await claimOutside(req, reply, r))) return reply;
  };

  /**
   * The handler of an 'in-transaction' route: when its claim found the key taken (its transaction
   * rolled back), the plugin decides as for any route (replay, 409, 422), and a key it may take
   * over (expired, or abandoned by a dead process) is claimed outside and the handler runs again.
   * So does a refusal met before the claim by a retry whose first run holds the key: the retry of a
   * booking whose deal was paused since gets that booking, not "paused".
   */
  const withTransactionalKey = (handler: RouteHandlerMethod): RouteHandlerMethod =>
    async function (this: FastifyInstance, req, reply) {
      try {
        return await handler.call(this, req, reply);
      } catch (err) {
        const pending = req.idempotency;
        if (!pending?.request || pending.held) throw err;
        const refusedRetry = async () =>
          err instanceof AppError && storable(err.statusCode) && (await isKept(ctx.db, pending.request!));
        if (!(err instanceof KeyTaken) && !(await refusedRetry())) throw err;
        req.idempotency = undefined;
        if (!(await claimOutside(req, reply, { ...pending.request, now: ctx.clock.now() }))) return reply;
        return handler.call(this, req, reply);
      }
    };

  // onSend runs after the handler (and its transaction) finished, for answers and errors alike.
  const after: onSendHookHandler = async (req, reply, payload) => {
    const held = req.idempotency;
    if (!held || held.settled) return payload;
    held.settled = true;
    // No payload (204) is an empty body to replay; a stream cannot be replayed, so its key is freed.
    const body =
      payload == null
        ? ''
        : typeof payload === 'string'
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : null;
    try {
      const headers = () => keptHeaders(reply);
      if (!held.held) {
        // Claimed in a transaction that did not commit (a refusal rolled it back), or never reached:
        // nothing to free; a refusal is stored for replay as on any route.
        if (body !== null && storable(reply.statusCode) && held.request)
          await record(ctx.db, held.request, { statusCode: reply.statusCode, body, headers: headers() });
      } else if (body === null || !storable(reply.statusCode)) await release(ctx.db, held, held.startedAt);
      else await complete(ctx.db, held, held.startedAt, { statusCode: reply.statusCode, body, headers: headers() });
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
    if (!held.held) return;
    await release(ctx.db, held, held.startedAt).catch((err: unknown) =>
      req.log.error({ err }, 'idempotency key not freed'),
    );
  };

  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotency) return;
    if (!route.config.access || route.config.access === 'Public')
      throw new Error(`${route.url}: Idempotency-Key needs a signed-in route`);
    const list = <T>(h: T | T[] | undefined): T[] => (h ? ([h].flat() as T[]) : []);
    // The access guard (onRequest) and body validation come first: refusals there hold no key.
    route.preHandler = [...list(route.preHandler), before];
    if (route.config.idempotency === 'in-transaction') route.handler = withTransactionalKey(route.handler);
    // First of the route's own onSend hooks: the answer is kept as written, before compression encodes it.
    route.onSend = [after, ...list(route.onSend)];
    route.onResponse = [...list(route.onResponse), finally_];
  });

  ctx.jobs.work(PURGE_JOB, async () => {
    const n = await purgeExpired(ctx.db, ctx.clock.now());
    if (n) ctx.log.info({ purged: n }, 'expired idempotency keys purged');
  });
  ctx.jobs.schedule(PURGE_JOB, '41 * * * *');
}
