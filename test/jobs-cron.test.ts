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
    // One job per period: pg-boss's cron check inserts a "send it" job keyed by the schedule's name
    // and the minute (singleton_on), which then sends the job itself (no key of its own). So the
    // periods are those of the "send it" jobs, one per minute whichever instance checked, and each
    // sent job ran once.
    const slots = await rows<{ slot: string }>(
      apps[0]!.app.ctx.db,
      sql.raw(
        `select singleton_on::text as slot from ${SCHEMA}.job where name = '__pgboss__send-it' and singleton_key = 'test.every_minute'`,
      ),
    );
    const jobs = await rows<{ id: string }>(
      apps[0]!.app.ctx.db,
      sql.raw(`select id::text from ${SCHEMA}.job where name = 'test.every_minute'`),
    );
    expect(jobs.length).toBeGreaterThan(0);
    expect(slots.length).toBeGreaterThanOrEqual(jobs.length);
    expect(new Set(slots.map((j) => j.slot)).size).toBe(slots.length);
    expect(jobs.map((j) => j.id)).toEqual(expect.arrayContaining(runs.map((r) => r.id)));
    expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);
  }, 40_000);
});
