import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterOf } from '../src/jobs/queue.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

// What the test handlers saw, by job name.
const seen = new Map<string, { data: unknown; retryCount: number }[]>();
const record = (name: string, data: unknown, retryCount: number): void =>
  void seen.set(name, [...(seen.get(name) ?? []), { data, retryCount }]);
const calls = (name: string) => seen.get(name) ?? [];
// Tries that should fail, per key of the payload.
const failuresLeft = new Map<string, number>();

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, undefined, {
    beforeStart: (app) => {
      app.ctx.jobs.work('test.recorded', async (data, job) => record('test.recorded', data, job.retryCount));
      app.ctx.jobs.work(
        'test.flaky',
        async (data: { key: string }, job) => {
          record('test.flaky', data, job.retryCount);
          const left = failuresLeft.get(data.key) ?? 0;
          if (left > 0) {
            failuresLeft.set(data.key, left - 1);
            throw new Error('gateway unavailable');
          }
        },
        { retryLimit: 2, retryDelaySeconds: 10 },
      );
      app.ctx.events.subscribe('users.password_changed', 'test-first', async (payload, meta) =>
        record('first', { ...payload, eventId: meta.eventId }, 0),
      );
      app.ctx.events.subscribe('users.password_changed', 'test-second', async (payload, meta) => {
        record('second', { ...payload, eventId: meta.eventId }, 0);
        const left = failuresLeft.get(payload.userId) ?? 0;
        if (left > 0) {
          failuresLeft.set(payload.userId, left - 1);
          throw new Error('second handler fails');
        }
      });
    },
  });
});
afterAll(() => t.close());

const waiting = async (name: string) =>
  (await t.app.jobs.depth()).filter((r) => r.name === name).reduce((n, r) => n + r.count, 0);

describe('jobs', () => {
  it('runs a job sent outside any transaction', async () => {
    const id = await t.app.ctx.jobs.send('test.recorded', { n: 1 });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await t.app.jobs.drain();
    expect(calls('test.recorded')).toContainEqual({ data: { n: 1 }, retryCount: 0 });
  });

  it('keeps one job per singleton key and minute', async () => {
    // The slot is the database's clock minute: start away from its end so both sends share one.
    const second0 = new Date().getSeconds();
    if (second0 >= 57) await new Promise((r) => setTimeout(r, (61 - second0) * 1000));
    const first = await t.app.ctx.jobs.send('test.recorded', { n: 'single' }, { singletonKey: 'k1' });
    const second = await t.app.ctx.jobs.send('test.recorded', { n: 'single' }, { singletonKey: 'k1' });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    await t.app.jobs.drain();
    expect(calls('test.recorded').filter((c) => (c.data as { n: unknown }).n === 'single')).toHaveLength(1);
  });

  it('refuses a job name without a handler', async () => {
    await expect(t.app.ctx.jobs.send('test.nobody', {})).rejects.toThrow(/no job handler/);
  });

  it('leaves no job when the transaction rolls back, and runs the job of a committed one', async () => {
    await expect(
      t.app.ctx.db.transaction(async (tx) => {
        await t.app.ctx.jobs.send('test.recorded', { n: 'rolled back' }, { tx });
        throw new Error('business rule refused');
      }),
    ).rejects.toThrow('business rule refused');
    expect(await waiting('test.recorded')).toBe(0);

    await t.app.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await t.app.ctx.jobs.send('test.recorded', { n: 'committed' }, { tx });
    });
    await t.app.jobs.drain();
    const data = calls('test.recorded').map((c) => c.data);
    expect(data).toContainEqual({ n: 'committed' });
    expect(data).not.toContainEqual({ n: 'rolled back' });
  });

  it('runs a delayed job once the clock reaches its time', async () => {
    await t.app.ctx.jobs.send('test.recorded', { n: 'later' }, { startAfterSeconds: 3600 });
    await t.app.jobs.drain();
    expect(calls('test.recorded').map((c) => c.data)).not.toContainEqual({ n: 'later' });
    t.clock.advance(3601_000);
    await t.app.jobs.drain();
    expect(calls('test.recorded').map((c) => c.data)).toContainEqual({ n: 'later' });
  });

  it('retries a failing job with growing delays, then succeeds', async () => {
    failuresLeft.set('recovers', 1);
    await t.app.ctx.jobs.send('test.flaky', { key: 'recovers' });
    await t.app.jobs.drain();
    expect(calls('test.flaky').filter((c) => (c.data as { key: string }).key === 'recovers')).toHaveLength(1);
    // Waiting for its retry, not due yet.
    expect(await waiting('test.flaky')).toBe(1);
    t.clock.advance(60_000);
    await t.app.jobs.drain();
    const tries = calls('test.flaky').filter((c) => (c.data as { key: string }).key === 'recovers');
    expect(tries.map((c) => c.retryCount)).toEqual([0, 1]);
    expect(await waiting('test.flaky')).toBe(0);
  });

  it('moves a job to its dead-letter queue after the last try', async () => {
    failuresLeft.set('hopeless', 10);
    await t.app.ctx.jobs.send('test.flaky', { key: 'hopeless' });
    for (let i = 0; i < 3; i++) {
      await t.app.jobs.drain();
      t.clock.advance(10 * 60_000);
    }
    const tries = calls('test.flaky').filter((c) => (c.data as { key: string }).key === 'hopeless');
    expect(tries.map((c) => c.retryCount)).toEqual([0, 1, 2]);
    const dead = (await t.app.jobs.depth()).find((r) => r.name === deadLetterOf('test.flaky'));
    expect(dead).toMatchObject({ state: 'created', count: 1 });
  });
});

describe('domain events', () => {
  it('runs each handler once per event, retrying a failing handler alone', async () => {
    const userId = '01900000-0000-7000-8000-000000000001';
    failuresLeft.set(userId, 1);
    await t.app.ctx.db.transaction((tx) => t.app.ctx.events.publish(tx, 'users.password_changed', { userId }));
    await t.app.jobs.drain();
    t.clock.advance(10 * 60_000);
    await t.app.jobs.drain();
    const first = calls('first').filter((c) => (c.data as { userId: string }).userId === userId);
    const second = calls('second').filter((c) => (c.data as { userId: string }).userId === userId);
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(2);
    const eventId = (first[0]!.data as { eventId: string }).eventId;
    expect((second[1]!.data as { eventId: string }).eventId).toBe(eventId);

    // The same event delivered again (as after a crash between the handler and the queue's record).
    await t.app.ctx.jobs.send('users.password_changed:test-first', {
      eventId,
      occurredAt: new Date().toISOString(),
      payload: { userId },
    });
    await t.app.jobs.drain();
    expect(calls('first').filter((c) => (c.data as { userId: string }).userId === userId)).toHaveLength(1);
  });

  it('publishes nothing when the transaction rolls back', async () => {
    const userId = '01900000-0000-7000-8000-000000000002';
    await expect(
      t.app.ctx.db.transaction(async (tx) => {
        await t.app.ctx.events.publish(tx, 'users.password_changed', { userId });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await t.app.jobs.drain();
    expect(calls('first').filter((c) => (c.data as { userId: string }).userId === userId)).toHaveLength(0);
  });
});
