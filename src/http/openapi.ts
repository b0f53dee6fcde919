import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema } from '../shared/schemas.js';

export async function installOpenApi(app: FastifyInstance, prefix: string): Promise<void> {
  app.addSchema(ErrorResponseSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'FoodSave marketplace API',
        version: '1.0.0',
        description:
          'Anti-food-waste marketplace. Every response is `{success, data, meta?}` or `{success: false, error: {code, message, details?}, requestId}`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: `${prefix}/docs` });
  app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
