// The OpenAPI document without serving: the app is built on a throw-away in-memory database.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: undefined,
    REDIS_URL: undefined,
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
  };
  delete env.SUPER_ADMIN_PHONE;
  delete env.SUPER_ADMIN_PASSWORD;
  const app = await buildApp({ config: loadConfig(env), migrate: false });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
