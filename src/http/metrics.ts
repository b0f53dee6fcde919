import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { unauthenticated } from '../shared/errors.js';

/** Prometheus metrics: process defaults plus request counts and latencies by route template. */
export function installMetrics(app: FastifyInstance, prefix: string, token: string | undefined): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Request duration by method, route and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'http_server_errors_total',
    help: 'Responses with status 500 or above',
    labelNames: ['route'],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    // Unmatched URLs share one label so that scanners cannot grow the label set.
    const route = req.routeOptions.url ?? 'unmatched';
    duration.observe({ method: req.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) errors.inc({ route });
  });
  app.get(`${prefix}/metrics`, { schema: { hide: true } }, async (req, reply) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) throw unauthenticated();
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  return registry;
}
