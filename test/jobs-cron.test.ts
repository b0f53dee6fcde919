import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/client.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

// Two instances on one PostgreSQL share the queue; the embedded database belongs to one process,
// so there the test runs one instance.
const INSTANCES = process.env.DATABASE_URL ? 2 : 1;
const runs: { instance: number; id: string }[] = [];
const SCHEMA = process.env.DATABASE_URL ? `pgboss_${randomBytes(6).toString('hex')}` : 'pgboss';
const apps: TestApp[] = [];

beforeAll(async () => {
  const shared = { JOBS_SCHEMA: SCHEMA, JOBS_CRON_CHECK_SECONDS: '1' };
  for (let i = 0; i < INSTANCES; i++) {
    apps.push(
      await buildTestApp(process.env.DATABASE_URL ? shared : { JOBS_CRON_CHECK_SECONDS: '1' }, undefined, {
        beforeStart: (app) => {
          app.ctx.jobs.work('test.every_minute', async (_data, job) => void runs.push({ instance: i, id: job.id }));
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
    // One job per period (pg-boss keys each cron job by its minute), and each job ran once. A job of
    // one minute may run early in the next, so the check is on the periods, not on when handlers ran.
    const jobs = await rows<{ id: string; slot: string }>(
      apps[0]!.app.ctx.db,
      sql.raw(`select id::text, singleton_on::text as slot from ${SCHEMA}.job where name = 'test.every_minute'`),
    );
    expect(jobs.length).toBeGreaterThan(0);
    expect(new Set(jobs.map((j) => j.slot)).size).toBe(jobs.length);
    expect(jobs.map((j) => j.id)).toEqual(expect.arrayContaining(runs.map((r) => r.id)));
    expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);
  }, 40_000);
});
