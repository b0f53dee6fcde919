import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../src/http/types.js';
import { FakeTwilio } from './fakes/twilio.js';
import { buildTestApp, TWILIO_SID, TWILIO_TOKEN } from './helpers/app.js';
import { uniquePhone } from './helpers/factories.js';

// Both apps of a test share the data: a directory on disk for the embedded database, or one job
// queue schema on PostgreSQL.
const dirs: string[] = [];
function sharedData(): Record<string, string> {
  if (process.env.DATABASE_URL) return { JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}` };
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-jobs-restart-'));
  dirs.push(dir);
  return { DATA_DIR: dir };
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('jobs across a restart', () => {
  it('a job enqueued before the app closed runs in the next app on the same data', async () => {
    const shared = sharedData();
    const ran: unknown[] = [];
    const register = (app: App) => app.ctx.jobs.work('test.survivor', async (data) => void ran.push(data));

    // An API-only instance takes the job and closes without running it.
    const first = await buildTestApp({ ...shared, WORKERS: 'off' }, undefined, { beforeStart: register });
    await first.app.ctx.db.transaction((tx) => first.app.ctx.jobs.send('test.survivor', { order: 42 }, { tx }));
    await first.close();
    expect(ran).toEqual([]);

    const second = await buildTestApp(shared, undefined, { beforeStart: register });
    try {
      await second.app.jobs.drain();
      expect(ran).toEqual([{ order: 42 }]);
    } finally {
      await second.close();
    }
  }, 60_000);
});

function startServer(port: number, env: Record<string, string>): ChildProcess {
  const e: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  };
  delete e.REDIS_URL;
  return spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: e, stdio: ['ignore', 'ignore', 'pipe'] });
}

async function waitReady(base: string): Promise<void> {
  const deadline = Date.now() + 60_000;
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

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve()),
  );

describe('a server killed between commit and send', () => {
  const gateway = new FakeTwilio();
  afterAll(() => gateway.close());

  it('sends the registration code from the next server on the same data', async () => {
    const smsUrl = await gateway.start();
    const env = {
      ...sharedData(),
      SMS_PROVIDER: 'twilio',
      TWILIO_BASE_URL: smsUrl,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_FROM: '+15005550006',
    };
    // The data made once in this process (a migrated copy), so that each server starts in seconds.
    await (await buildTestApp(env)).close();
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const base = `http://127.0.0.1:${port}/api/v1`;
    const phoneNumber = uniquePhone();

    // Without workers the message can only wait in the queue: the process dies with it unsent.
    const api = startServer(port, { ...env, WORKERS: 'off' });
    await waitReady(base);
    const res = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        phoneNumber,
        password: 'Killed-Server-12',
        role: 'CLIENT',
        firstName: 'A',
        lastName: 'B',
      }),
    });
    expect(res.status).toBe(201);
    api.kill('SIGKILL');
    await exited(api);
    expect(gateway.count(phoneNumber)).toBe(0);

    const worker = startServer(port, env);
    try {
      const sms = await gateway.waitFor(phoneNumber, 0, 30_000);
      expect(sms.body).toMatch(/verification code is \d{6}/);
    } finally {
      worker.kill('SIGTERM');
      await exited(worker);
    }
  }, 120_000);
});
