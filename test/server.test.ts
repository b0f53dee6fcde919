import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uniquePhone } from './helpers/factories.js';

const dataDir = mkdtempSync(join(tmpdir(), 'foodsave-server-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function start(port: number, env: Record<string, string>): ChildProcess {
  const e: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env };
  // This test is about the embedded database on disk, whatever the suite runs on.
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function waitReady(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become ready');
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('the server process', () => {
  it('serves on the embedded database, keeps data across restarts and stops cleanly on SIGTERM', async () => {
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const base = `http://127.0.0.1:${port}/api/v1`;
    const phone = uniquePhone();
    const env = { SUPER_ADMIN_PHONE: phone, SUPER_ADMIN_PASSWORD: 'Server-Test-Pass-1' };
    const login = () =>
      fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ phoneNumber: phone, password: 'Server-Test-Pass-1' }),
      });

    const first = start(port, env);
    let log = '';
    first.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    await waitReady(base);
    expect((await login()).status).toBe(200);
    expect(await stop(first)).toBe(0);
    expect(log).toContain('shutting down');

    // Second start: same directory, no administrator variables; the account is still there.
    const second = start(port, {});
    await waitReady(base);
    const again = await login();
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { user: { role: string } } }).data.user.role).toBe('SUPER_ADMIN');
    expect(await stop(second)).toBe(0);
  }, 90_000);

  it('refuses to start with a bad variable and names it', async () => {
    const child = start(0, { PORT: 'not-a-port' });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('PORT');
  });
});
