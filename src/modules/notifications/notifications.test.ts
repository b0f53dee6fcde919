import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { deviceTokens, notifications } from '../../db/schema/notifications.js';
import { eq } from 'drizzle-orm';
import { uuidv7 } from '../../shared/ids.js';
import { definitionOf, type NotificationType } from './notification-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Writes notifications straight to the table, a minute apart, oldest first. */
async function seed(userId: string, types: NotificationType[]) {
  const start = t.clock.now().getTime() - types.length * 60_000;
  const rows = types.map((type, i) => ({
    id: uuidv7(),
    userId,
    type,
    category: definitionOf(type).category,
    title: `title ${i}`,
    body: `body ${i}`,
    data: { n: i },
    createdAt: new Date(start + i * 60_000),
  }));
  await t.app.ctx.db.insert(notifications).values(rows);
  return rows;
}

describe('notifications', () => {
  it('lists own notifications newest first, paged, filtered by unread and category', async () => {
    const u = await createSignedIn(t.app);
    const other = await createSignedIn(t.app);
    const rows = await seed(u.user.id, [
      'supplier_verified',
      'system_announcement',
      'kyc_approved',
      'system_announcement',
    ]);
    await seed(other.user.id, ['system_announcement']);

    const page1 = await call(t.app, 'GET', '/notifications', { token: u.token, query: { limit: 3 } });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((n: { id: string }) => n.id)).toEqual([rows[3]!.id, rows[2]!.id, rows[1]!.id]);
    expect(page1.body.meta).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
    expect(page1.body.data[0]).toMatchObject({
      type: 'system_announcement',
      category: 'system',
      title: 'title 3',
      body: 'body 3',
      data: { n: 3 },
      readAt: null,
    });

    const beyond = await call(t.app, 'GET', '/notifications', { token: u.token, query: { page: 5, limit: 3 } });
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.total).toBe(4);

    const system = await call(t.app, 'GET', '/notifications', { token: u.token, query: { category: 'system' } });
    expect(system.body.data.map((n: { id: string }) => n.id)).toEqual([rows[3]!.id, rows[1]!.id]);

    await call(t.app, 'PATCH', `/notifications/${rows[3]!.id}/read`, { token: u.token });
    const unread = await call(t.app, 'GET', '/notifications', {
      token: u.token,
      query: { unread: true, category: 'system' },
    });
    expect(unread.body.data.map((n: { id: string }) => n.id)).toEqual([rows[1]!.id]);
    expect(unread.body.meta.total).toBe(1);

    const bad = await call(t.app, 'GET', '/notifications', {
      token: u.token,
      query: { category: 'weather', unread: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'query.category',
      'query.unread',
    ]);
  });

  it('counts unread, marks one and all read, keeps the first read time', async () => {
    const u = await createSignedIn(t.app);
    const rows = await seed(u.user.id, ['system_announcement', 'system_announcement', 'kyc_rejected']);
    const count = async () =>
      (await call(t.app, 'GET', '/notifications/unread-count', { token: u.token })).body.data.count;
    expect(await count()).toBe(3);

    const first = await call(t.app, 'PATCH', `/notifications/${rows[0]!.id}/read`, { token: u.token });
    expect(first.status).toBe(200);
    expect(first.body.data.readAt).toEqual(expect.any(String));
    expect(await count()).toBe(2);
    t.clock.advance(60_000);
    const again = await call(t.app, 'PATCH', `/notifications/${rows[0]!.id}/read`, { token: u.token });
    expect(again.body.data.readAt).toBe(first.body.data.readAt);

    const all = await call(t.app, 'PATCH', '/notifications/read-all', { token: u.token });
    expect(all.body.data).toEqual({ count: 2 });
    expect(await count()).toBe(0);
  });

  it("answers 404 for another user's notification and an unknown id", async () => {
    const owner = await createSignedIn(t.app);
    const intruder = await createSignedIn(t.app);
    const [row] = await seed(owner.user.id, ['system_announcement']);
    for (const [method, url] of [
      ['PATCH', `/notifications/${row!.id}/read`],
      ['DELETE', `/notifications/${row!.id}`],
      ['PATCH', `/notifications/${uuidv7()}/read`],
    ] as const) {
      const res = await call(t.app, method, url, { token: intruder.token });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect(
      (await call(t.app, 'PATCH', '/notifications/not-a-uuid/read', { token: owner.token })).body.error.details[0]
        .field,
    ).toBe('params.id');
    const still = await call(t.app, 'GET', '/notifications/unread-count', { token: owner.token });
    expect(still.body.data.count).toBe(1);
  });

  it('deletes one and all', async () => {
    const u = await createSignedIn(t.app);
    const other = await createSignedIn(t.app);
    const rows = await seed(u.user.id, ['system_announcement', 'system_announcement', 'system_announcement']);
    await seed(other.user.id, ['system_announcement']);
    const one = await call(t.app, 'DELETE', `/notifications/${rows[0]!.id}`, { token: u.token });
    expect(one.status).toBe(200);
    expect((await call(t.app, 'DELETE', `/notifications/${rows[0]!.id}`, { token: u.token })).status).toBe(404);
    const all = await call(t.app, 'DELETE', '/notifications', { token: u.token });
    expect(all.body.data).toEqual({ count: 2 });
    expect((await call(t.app, 'GET', '/notifications', { token: u.token })).body.meta.total).toBe(0);
    expect((await call(t.app, 'GET', '/notifications', { token: other.token })).body.meta.total).toBe(1);
  });
});

describe('preferences', () => {
  it('starts from the documented defaults and changes only the given fields', async () => {
    const u = await createSignedIn(t.app);
    const initial = await call(t.app, 'GET', '/notifications/preferences', { token: u.token });
    expect(initial.status).toBe(200);
    expect(initial.body.data.channels.orders).toEqual({ push: true, sms: false, email: false });
    expect(initial.body.data.channels.promotions).toEqual({ push: false, sms: false, email: false });
    expect(initial.body.data.channels.account).toEqual({ push: true, sms: false, email: true });
    expect(initial.body.data.quietHours).toBeNull();

    const changed = await call(t.app, 'PATCH', '/notifications/preferences', {
      token: u.token,
      body: {
        channels: { orders: { sms: true }, promotions: { push: true }, account: { sms: true } },
        quietHours: { start: '22:00', end: '07:00', timezone: 'africa/dakar' },
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.channels.orders).toEqual({ push: true, sms: true, email: false });
    expect(changed.body.data.channels.promotions.push).toBe(true);
    expect(changed.body.data.channels.account).toEqual({ push: true, sms: true, email: true });
    expect(changed.body.data.quietHours).toEqual({ start: '22:00', end: '07:00', timezone: 'Africa/Dakar' });

    const second = await call(t.app, 'PATCH', '/notifications/preferences', {
      token: u.token,
      body: { channels: { orders: { push: false } } },
    });
    expect(second.body.data.channels.orders).toEqual({ push: false, sms: true, email: false });
    expect(second.body.data.quietHours).toEqual({ start: '22:00', end: '07:00', timezone: 'Africa/Dakar' });
    const cleared = await call(t.app, 'PATCH', '/notifications/preferences', {
      token: u.token,
      body: { quietHours: null },
    });
    expect(cleared.body.data.quietHours).toBeNull();
    expect((await call(t.app, 'GET', '/notifications/preferences', { token: u.token })).body.data).toEqual(
      cleared.body.data,
    );
  });

  it('refuses switching off account push or email, bad times and unknown fields', async () => {
    const u = await createSignedIn(t.app);
    const locked = await call(t.app, 'PATCH', '/notifications/preferences', {
      token: u.token,
      body: { channels: { account: { push: false, email: false } } },
    });
    expect(locked.status).toBe(400);
    expect(locked.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'body.channels.account.push',
      'body.channels.account.email',
    ]);

    const cases: [unknown, string][] = [
      [{ quietHours: { start: '24:00', end: '07:00' } }, 'body.quietHours.start'],
      [{ quietHours: { start: '22:00', end: '22:00' } }, 'body.quietHours.end'],
      [{ quietHours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, 'body.quietHours.timezone'],
      [{ channels: { weather: { push: true } } }, 'body.channels.weather'],
      [{ channels: { orders: { pigeon: true } } }, 'body.channels.orders.pigeon'],
      [{ channels: { orders: { push: 'yes' } } }, 'body.channels.orders.push'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'PATCH', '/notifications/preferences', { token: u.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
  });
});

describe('device tokens', () => {
  const token = () => `fcm-${uuidv7()}:APA91b${'x'.repeat(40)}`;
  const tokensOf = (userId: string) => t.app.ctx.db.select().from(deviceTokens).where(eq(deviceTokens.userId, userId));

  it('registers, moves a re-registered token to the current user, keeps 10 per user', async () => {
    const a = await createSignedIn(t.app);
    const b = await createSignedIn(t.app);
    const shared = token();
    const reg = await call(t.app, 'POST', '/notifications/device-token', {
      token: a.token,
      body: { token: shared, platform: 'android', deviceId: 'pixel-7', appVersion: '1.2.0' },
    });
    expect(reg.status).toBe(200);
    expect(reg.body.data).toMatchObject({ platform: 'android', deviceId: 'pixel-7', appVersion: '1.2.0' });
    expect(reg.body.data.token).toBeUndefined();

    await call(t.app, 'POST', '/notifications/device-token', {
      token: b.token,
      body: { token: shared, platform: 'android' },
    });
    expect(await tokensOf(a.user.id)).toHaveLength(0);
    const moved = await tokensOf(b.user.id);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ token: shared, deviceId: null, sessionId: expect.any(String) });

    const mine: string[] = [];
    for (let i = 0; i < 11; i++) {
      t.clock.advance(1000);
      const tk = token();
      mine.push(tk);
      await call(t.app, 'POST', '/notifications/device-token', {
        token: a.token,
        body: { token: tk, platform: 'ios' },
      });
    }
    const kept = (await tokensOf(a.user.id)).map((r) => r.token).sort();
    expect(kept).toEqual(mine.slice(1).sort());
  });

  it('removes one (own only) and all; refuses bad bodies', async () => {
    const a = await createSignedIn(t.app);
    const b = await createSignedIn(t.app);
    const [t1, t2, t3] = [token(), token(), token()];
    for (const tk of [t1, t2])
      await call(t.app, 'POST', '/notifications/device-token', {
        token: a.token,
        body: { token: tk, platform: 'web' },
      });
    await call(t.app, 'POST', '/notifications/device-token', { token: b.token, body: { token: t3, platform: 'web' } });

    expect(
      (await call(t.app, 'DELETE', '/notifications/device-token', { token: a.token, body: { token: t3 } })).status,
    ).toBe(404);
    expect(
      (await call(t.app, 'DELETE', '/notifications/device-token', { token: a.token, body: { token: t1 } })).status,
    ).toBe(200);
    expect((await tokensOf(a.user.id)).map((r) => r.token)).toEqual([t2]);
    const all = await call(t.app, 'DELETE', '/notifications/device-tokens', { token: a.token });
    expect(all.body.data).toEqual({ count: 1 });
    expect(await tokensOf(b.user.id)).toHaveLength(1);

    const cases: [unknown, string][] = [
      [{ token: t1, platform: 'blackberry' }, 'body.platform'],
      [{ token: 'has space', platform: 'ios' }, 'body.token'],
      [{ platform: 'ios' }, 'body.token'],
      [{ token: t1, platform: 'ios', extra: 1 }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', '/notifications/device-token', { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await call(t.app, 'DELETE', '/notifications/device-token', { token: a.token })).status).toBe(400);
  });

  it('drops the tokens a session registered when it signs out, and only those', async () => {
    const u = await createSignedIn(t.app);
    const phone = await t.app.services.auth.signIn(u.user, {});
    const [mine, theirs] = [token(), token()];
    await call(t.app, 'POST', '/notifications/device-token', {
      token: u.token,
      body: { token: mine, platform: 'web' },
    });
    await call(t.app, 'POST', '/notifications/device-token', {
      token: phone.accessToken,
      body: { token: theirs, platform: 'android' },
    });
    expect((await call(t.app, 'POST', '/auth/logout', { token: u.token })).status).toBe(200);
    expect((await tokensOf(u.user.id)).map((r) => r.token)).toEqual([theirs]);
  });
});
