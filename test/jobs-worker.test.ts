import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call } from './helpers/http.js';

let worker: TestApp;
let failNext = true;
beforeAll(async () => {
  worker = await buildTestApp({}, undefined, {
    role: 'worker',
    beforeStart: (app) => {
      app.ctx.jobs.work('test.measured', async () => undefined);
      app.ctx.jobs.work('test.failing_once', async () => {
        if (failNext) {
          failNext = false;
          throw new Error('first try fails');
        }
      });
    },
  });
});
afterAll(() => worker.close());

const metrics = async () => (await worker.app.inject({ method: 'GET', url: '/api/v1/metrics' })).body;

describe('the worker process (npm run worker)', () => {
  it('serves health and metrics but no API route', async () => {
    expect((await call(worker.app, 'GET', '/health/ready')).status).toBe(200);
    const register = await call(worker.app, 'POST', '/auth/register', { body: {} });
    expect(register.status).toBe(404);
  });

  it('runs jobs and reports their durations, failures and queue depth in /metrics', async () => {
    await worker.app.ctx.jobs.send('test.measured', {});
    await worker.app.ctx.jobs.send('test.failing_once', {});
    await worker.app.jobs.drain();
    let text = await metrics();
    expect(text).toMatch(/jobs_duration_seconds_count\{name="test.measured",outcome="completed"\} 1\b/);
    expect(text).toMatch(/jobs_failed_total\{name="test.failing_once"\} 1\b/);
    expect(text).toMatch(/jobs_queued\{name="test.failing_once",state="retry"\} 1\b/);

    worker.clock.advance(10 * 60_000);
    await worker.app.jobs.drain();
    text = await metrics();
    expect(text).toMatch(/jobs_duration_seconds_count\{name="test.failing_once",outcome="completed"\} 1\b/);
    expect(text).not.toMatch(/jobs_queued\{name="test.failing_once"/);
  });
});

describe('shutdown', () => {
  it('waits for the jobs running in the process', async () => {
    const order: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = await buildTestApp({}, undefined, {
      beforeStart: (app) =>
        app.ctx.jobs.work('test.slow', async () => {
          started();
          await gate;
          order.push('job finished');
        }),
    });
    await t.app.ctx.jobs.send('test.slow', {});
    await running;
    const closed = t.close().then(() => order.push('app closed'));
    // The close is under way while the job still runs (closing takes a few tens of milliseconds
    // otherwise); the job is let go only later, and the close must have waited for it.
    await new Promise((r) => setTimeout(r, 500));
    expect(order).toEqual([]);
    release();
    await closed;
    expect(order).toEqual(['job finished', 'app closed']);
  });
});
