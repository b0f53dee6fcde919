import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Ok, ok } from '../../shared/schemas.js';
import type { createReadiness } from './readiness.js';

const tags = ['health'];
const Live = Ok(Type.Object({ status: Type.String() }));
const Dependency = Type.Object(
  { status: Type.Union([Type.Literal('up'), Type.Literal('down')]), latencyMs: Type.Integer({ minimum: 0 }) },
  { title: 'DependencyStatus' },
);
const Ready = Ok(
  Type.Object({
    status: Type.Literal('ready'),
    database: Type.String({ description: '`pglite` (embedded) or `postgres`' }),
    dependencies: Type.Object({ database: Dependency, redis: Type.Optional(Dependency) }),
  }),
);

export function healthRoutes(readiness: ReturnType<typeof createReadiness>) {
  return async (app: App) => {
    app.get(
      '/health',
      {
        config: { access: 'Public', rateLimit: false },
        schema: { tags, summary: 'Liveness', response: { 200: Live } },
      },
      async () => ok({ status: 'ok' }),
    );

    app.get(
      '/health/ready',
      {
        config: { access: 'Public', rateLimit: false },
        schema: {
          tags,
          summary: 'Readiness: each dependency answers',
          description:
            'The database, and Redis when configured, each with its status and the latency of a trivial request. 503 names the dependencies down.',
          response: { 200: Ready },
          errors: [503],
        },
      },
      async () => ok(await readiness()),
    );
  };
}
