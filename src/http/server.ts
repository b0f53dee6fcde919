import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { ping } from '../db/client.js';
import { AppError } from '../shared/errors.js';
import { uuidv7 } from '../shared/ids.js';
import { installHttpCaching } from './caching.js';
import { errorForLog, installErrorHandling, sendError } from './errors.js';
import { LazyCompilers } from './lazy-compile.js';
import { installMetrics } from './metrics.js';
import { installOpenApi } from './openapi.js';
import { SECURITY_HEADERS } from './security-headers.js';
import type { App } from './types.js';
import { installValidation } from './validation.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const lazyCompilers = new WeakMap<object, LazyCompilers>();

/** Compiles every validator and serializer not used yet (they compile on first use); answers how many. */
export const compileEverySchema = (app: App) => lazyCompilers.get(app)?.compileAll() ?? 0;

/**
 * The Fastify instance with what every request goes through before any route: validation and the
 * error envelope, the request id, the body parser. Errors raised by the router before any route
 * runs (over-long or badly encoded path parameters) get the same envelope as everything else.
 */
export function createServer(config: Config, logStream?: { write(line: string): void }): App {
  const compilers = new LazyCompilers();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: compilers.serializerFactory() } },
    logger: {
      level: config.LOG_LEVEL,
      ...(logStream && { stream: logStream }),
      redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.newPassword', '*.currentPassword'],
      serializers: { err: errorForLog },
    },
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    // Registering some 250 routes with their schemas takes longer than Fastify's 10 s on a busy machine; a slow
    // start is not a hung plugin.
    pluginTimeout: 60_000,
    requestIdHeader: false,
    frameworkErrors: (err, req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void sendError(reply, req, {
        status: 400,
        code: 'VALIDATION_ERROR',
        message: tooLong ? 'A path parameter is too long' : 'The URL is not valid',
        details: [{ field: 'params', message: tooLong ? 'must be at most 100 characters' : 'is not a valid URL' }],
      });
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app, compilers);
  lazyCompilers.set(app, compilers);
  // The database is there by the time a request fails.
  installErrorHandling(app, () => ping(app.database.db));
  // Bodiless POSTs sent with a JSON content type are treated as having no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, undefined) : parseJson(req, body as string, done),
  );
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  return app;
}

/** Security headers, CORS, the rate limit, uploads, HTTP caching, metrics and the OpenAPI document. */
export async function installPlugins(app: App, config: Config, redis: Redis | null, apiPrefix: string) {
  await app.register(helmet, SECURITY_HEADERS);
  await app.register(cors, {
    origin: config.CORS_ORIGINS === '*' ? true : config.CORS_ORIGINS.split(',').map((o) => o.trim()),
  });
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_MAX,
    timeWindow: '1 minute',
    redis: redis ?? undefined,
    nameSpace: 'foodsave:rl:',
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError(429, 'RATE_LIMITED', `Too many requests; try again in ${Math.ceil(ctx.ttl / 1000)} s`),
  });
  await app.register(multipart, { limits: { fileSize: 5 * 1024 * 1024, files: 10, fields: 20, fieldSize: 10_000 } });
  // Before any route is declared: compression attaches itself to routes as they are.
  await installHttpCaching(app);
  const metrics = installMetrics(app, apiPrefix, config.METRICS_TOKEN);
  await installOpenApi(app, apiPrefix);
  return metrics;
}
