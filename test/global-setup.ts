import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { projectRoot } from './helpers/child-server.js';

/**
 * On a real PostgreSQL server the whole run gets its own database, made here and dropped at the
 * end, so runs never see each other's rows. Test files still share it and run in parallel.
 *
 * On the embedded database every test app has a database of its own in memory. Running the
 * migrations and installing the job queue cost seconds per app, so they run once here and each app
 * starts from a copy of the result (TEST_PGLITE_TEMPLATE, read by test/helpers/app.ts).
 */
export default async function setup() {
  // The console built once, before any file runs (browser tests open it); when it is current this only
  // compares a few dates.
  execFileSync(process.execPath, ['scripts/build-console.mjs', '--if-stale'], { cwd: projectRoot, stdio: 'inherit' });
  const base = process.env.DATABASE_URL;
  if (!base) return embeddedTemplate();
  const name = `foodsave_test_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  return async () => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  };
}

async function embeddedTemplate() {
  // The whole app, started without workers, so the copy also holds the job queue's tables and queues.
  const app = await buildApp({ config: loadConfig({ DATA_DIR: 'memory://', WORKERS: 'off', LOG_LEVEL: 'silent' }) });
  await app.ready();
  // Every test app unpacks and starts a copy: about 30% less of its start-up work without the template
  // databases (a quarter of the files; nothing here connects to them or creates a database) and after
  // a checkpoint (a copy replays the log written since the last one: otherwise the whole migration).
  const pglite = app.database.pglite!;
  await pglite.exec("UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')");
  for (const statement of ['DROP DATABASE template0', 'DROP DATABASE template1', 'CHECKPOINT'])
    await pglite.exec(statement);
  const archive = await app.database.dump!();
  await app.close();
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-test-db-'));
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await archive.arrayBuffer()));
  process.env.TEST_PGLITE_TEMPLATE = file;
  return () => rmSync(dir, { recursive: true, force: true });
}
