// Prints the OpenAPI document without serving: the app is built on a throw-away in-memory database.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: 'memory://', LOG_LEVEL: 'silent' };
delete env.SUPER_ADMIN_PHONE;
delete env.SUPER_ADMIN_PASSWORD;
const app = await buildApp({ config: loadConfig(env), migrate: false });
await app.ready();
process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
