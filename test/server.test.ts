import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../src/db/data-dir-lock.js';
import { bareEnv, killLeftovers, READY_TIMEOUT_MS, spawnServer, type ChildServer } from './helpers/child-server.js';
import { uniquePhone } from './helpers/factories.js';

const dataDir = mkdtempSync(join(tmpdir(), 'foodsave-server-test-'));
afterAll(() => {
  killLeftovers();
  rmSync(dataDir, { recursive: true, force: true });
});

// This file is about the embedded database on disk, whatever the suite runs on (bareEnv drops
// DATABASE_URL and REDIS_URL).
const serve = (env: Record<string, string> = {}) =>
  spawnServer({ env: bareEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env }) });

/** Runs the server to its exit, for starts that must fail. */
async function startFailing(
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | string; output: string; server: ChildServer }> {
  const server = await spawnServer({ env });
  const timer = setTimeout(() => server.child.kill('SIGKILL'), READY_TIMEOUT_MS);
  const code = await server.exited;
  clearTimeout(timer);
  return { code, output: server.output(), server };
}

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

describe('the server process', () => {
  it(
    'serves on the embedded database, keeps data across restarts and stops cleanly on SIGTERM',
    async () => {
      const phone = uniquePhone();
      const env = { SUPER_ADMIN_PHONE: phone, SUPER_ADMIN_PASSWORD: 'Server-Test-Pass-1' };
      const login = (api: string) =>
        fetch(`${api}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ phoneNumber: phone, password: 'Server-Test-Pass-1' }),
        });

      const first = await serve(env);
      await first.waitReady();
      const res = await login(first.api);
      if (res.status !== 200) throw first.fail(`login answered ${res.status}: ${await res.text()}`);
      const code = await first.stop();
      if (code !== 0 || !first.output().includes('shutting down'))
        throw first.fail(`SIGTERM: exit ${code}, expected 0 after "shutting down"`);
      expect(existsSync(join(dataDir, LOCK_FILE)), 'the lock is released at exit').toBe(false);

      // Second start: same directory, no administrator variables; the account is still there.
      const second = await serve();
      await second.waitReady();
      const again = await login(second.api);
      if (again.status !== 200) throw second.fail(`login after restart answered ${again.status}`);
      expect(((await again.json()) as { data: { user: { role: string } } }).data.user.role).toBe('SUPER_ADMIN');
      const code2 = await second.stop();
      if (code2 !== 0) throw second.fail(`exit ${code2} on SIGTERM`);
    },
    3 * READY_TIMEOUT_MS,
  );

  it(
    'refuses a second server on the same DATA_DIR in one line, and takes over the lock of a dead process',
    async () => {
      const first = await serve();
      await first.waitReady();
      const lock = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
      expect(lock.pid).toBe(first.child.pid);

      const second = await startFailing(bareEnv({ DATA_DIR: dataDir }));
      const message = second.output.trim();
      if (second.code !== 1)
        throw second.server.fail(`a second server on the same DATA_DIR exited with ${second.code}, expected 1`);
      expect(message).toBe(
        `Failed to start: DATA_DIR ${dataDir} is in use by another process (pid ${first.child.pid}): stop it first, or give this server another DATA_DIR`,
      );
      // The first one still serves.
      expect((await fetch(`${first.api}/health`)).status).toBe(200);
      expect(await first.stop()).toBe(0);

      // A lock whose process is gone (killed, crashed) does not stop a restart.
      writeFileSync(join(dataDir, LOCK_FILE), `${JSON.stringify({ pid: deadPid(), host: 'elsewhere' })}\n`);
      const third = await serve();
      await third.waitReady();
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(third.child.pid);
      expect(await third.stop()).toBe(0);
    },
    3 * READY_TIMEOUT_MS,
  );

  it(
    'refuses to start with a bad variable and names it',
    async () => {
      const { code, output, server } = await startFailing(bareEnv({ DATA_DIR: dataDir, PORT: 'not-a-port' }));
      if (code !== 1) throw server.fail(`exit ${code}, expected 1`);
      expect(output).toContain('PORT');
    },
    READY_TIMEOUT_MS,
  );
});

// A PostgreSQL server to be wrong about; the database named is never created.
const PG_SERVER = 'postgres://postgres@127.0.0.1:5432';
const pgAnswers = await (async () => {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres`, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
})();
if (!pgAnswers) console.warn(`Start-up errors on PostgreSQL not tested: nothing answers at ${PG_SERVER}`);

describe('a DATABASE_URL that cannot be used', () => {
  it.skipIf(!pgAnswers)(
    'stops the start with one line naming a database that does not exist',
    async () => {
      const name = `foodsave_missing_${randomBytes(6).toString('hex')}`;
      const { code, output, server } = await startFailing(bareEnv({ DATABASE_URL: `${PG_SERVER}/${name}` }));
      if (code !== 1) throw server.fail(`exit ${code}, expected 1`);
      expect(output.trim()).toBe(`Failed to start: DATABASE_URL: database "${name}" does not exist on 127.0.0.1:5432`);
    },
    READY_TIMEOUT_MS,
  );

  it(
    'stops the start with one line when the connection is refused',
    async () => {
      // Port 1 (tcpmux) is closed on any machine that runs these tests.
      const { code, output, server } = await startFailing(
        bareEnv({ DATABASE_URL: 'postgres://app:secret-pass@127.0.0.1:1/foodsave' }),
      );
      if (code !== 1) throw server.fail(`exit ${code}, expected 1`);
      expect(output.trim()).toBe('Failed to start: DATABASE_URL: connection refused by 127.0.0.1:1');
      expect(output).not.toContain('secret-pass');
    },
    READY_TIMEOUT_MS,
  );

  it(
    'stops the start with one line when Redis does not answer',
    async () => {
      const { code, output, server } = await startFailing(
        bareEnv({ DATA_DIR: 'memory://', REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'silent' }),
      );
      if (code !== 1) throw server.fail(`exit ${code}, expected 1`);
      expect(output.trim()).toBe('Failed to start: REDIS_URL: cannot connect (connect ECONNREFUSED 127.0.0.1:1)');
    },
    READY_TIMEOUT_MS,
  );
});
