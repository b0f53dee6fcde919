import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { openSse } from '../../../test/helpers/sse.js';
import { notifications } from '../../db/schema/notifications.js';
import { uuidv7 } from '../../shared/ids.js';

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1/notifications/stream`;
}

async function seedOne(t: TestApp, userId: string) {
  const id = uuidv7();
  await t.app.ctx.db.insert(notifications).values({
    id,
    userId,
    type: 'system_announcement',
    category: 'system',
    title: 'Info',
    body: 'Texte',
    createdAt: t.clock.now(),
  });
  return id;
}

describe('GET /notifications/stream', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await buildTestApp();
    url = await listening(t);
  });
  afterAll(() => t.close());

  it('refuses a request without a valid token', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  });

  it('sends the unread count at once and again after each change, to this user only', async () => {
    const u = await createSignedIn(t.app);
    const other = await createSignedIn(t.app);
    const [a, b] = [await seedOne(t, u.user.id), await seedOne(t, u.user.id)];
    const mine = await openSse(url, u.token);
    const theirs = await openSse(url, other.token);
    try {
      expect(mine.status).toBe(200);
      expect(mine.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(mine.headers.get('x-request-id')).toBeTruthy();
      expect(await mine.next()).toEqual({ event: 'unread', data: { count: 2 } });
      expect(await theirs.next()).toEqual({ event: 'unread', data: { count: 0 } });

      await call(t.app, 'PATCH', `/notifications/${a}/read`, { token: u.token });
      expect(await mine.next()).toEqual({ event: 'unread', data: { count: 1 } });
      await call(t.app, 'DELETE', `/notifications/${b}`, { token: u.token });
      expect(await mine.next()).toEqual({ event: 'unread', data: { count: 0 } });
      // The other user's stream heard nothing: its next event is its own.
      await seedOne(t, other.user.id);
      await call(t.app, 'PATCH', '/notifications/read-all', { token: other.token });
      expect(await theirs.next()).toEqual({ event: 'unread', data: { count: 0 } });
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('ends open streams when the server shuts down', async () => {
    const own = await buildTestApp();
    const u = await createSignedIn(own.app);
    const stream = await openSse(await listening(own), u.token);
    expect((await stream.next()).event).toBe('unread');
    await own.close();
    await stream.ended();
  });
});

// Two instances on one database and one Redis: a change made through one reaches a client
// connected to the other.
describe.skipIf(!process.env.REDIS_URL || !process.env.DATABASE_URL)('stream across instances (Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([buildTestApp(), buildTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('delivers the event produced on one instance to a client of the other', async () => {
    const u = await createSignedIn(a.app);
    const id = await seedOne(a, u.user.id);
    const stream = await openSse(await listening(b), u.token);
    try {
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 1 } });
      await call(a.app, 'PATCH', `/notifications/${id}/read`, { token: u.token });
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 0 } });
      // B's cached count was dropped by the same message.
      expect((await call(b.app, 'GET', '/notifications/unread-count', { token: u.token })).body.data).toEqual({
        count: 0,
      });
      const view = await a.app.ctx.db.transaction((tx) =>
        a.app.services.notifications.notify(tx, u.user.id, 'kyc_approved', { supplierId: 's' }),
      );
      expect(await stream.next()).toEqual({ event: 'notification', data: view });
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 1 } });
      expect((await call(b.app, 'GET', '/notifications', { token: u.token })).body.data[0]).toEqual(view);
    } finally {
      stream.close();
    }
  });
});
