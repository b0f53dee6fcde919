// Rewrites the list of events in docs/events.md from src/jobs/event-types.ts and the subscriptions
// the app registers. The app is built on a throw-away in-memory database and never started.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { renderEventList, withEventList } from '../src/jobs/events-doc.js';

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
const file = new URL('../docs/events.md', import.meta.url);
writeFileSync(file, withEventList(readFileSync(file, 'utf8'), renderEventList(app.events.subscriptions())));
await app.close();
