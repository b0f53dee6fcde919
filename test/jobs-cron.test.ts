import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';

// Two instances on one PostgreSQL share the queue; the embedded database belongs to one process,
// so there the test runs one instance.
const INSTANCES = process.env.DATABASE_URL ? 2 : 1;
const runs: { instance: number; at: Date }[] = [];
const apps: TestApp[] = [];

beforeAll(async () => {
  const shared = { JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}`, JOBS_CRON_CHECK_SECONDS: '1' };
  for (let i = 0; i < INSTANCES; i++) {
    apps.push(
      await buildTestApp(process.env.DATABASE_URL ? shared : { JOBS_CRON_CHECK_SECONDS: '1' }, undefined, {
        beforeStart: (app) => {
          app.ctx.jobs.work('test.every_minute', async () => void runs.push({ instance: i, at: new Date() }));
          app.ctx.jobs.schedule('test.every_minute', '* * * * *');
        },
      }),
    );
  }
}, 60_000);
afterAll(() => Promise.all(apps.map((a) => a.close())));

describe('cron schedules', () => {
  it(`run once per period across ${INSTANCES} instance(s)`, async () => {
    // Every instance checks the schedules each second; wait for the first run, then for several
    // more checks by every instance.
    const deadline = Date.now() + 20_000;
    while (runs.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(runs.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 4000));
    const minutes = runs.map((r) => Math.floor(r.at.getTime() / 60_000));
    // One run per minute: a second one is only possible if a new minute began meanwhile.
    expect(new Set(minutes).size).toBe(runs.length);
  }, 40_000);
});
