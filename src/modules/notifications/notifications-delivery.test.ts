import { and, eq } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFcm, FCM_PROJECT, UNREGISTERED } from '../../../test/fakes/fcm.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { openSse } from '../../../test/helpers/sse.js';
import { eventHandlings } from '../../db/schema/events.js';
import { deviceTokens, notifications } from '../../db/schema/notifications.js';
import { eventJobName } from '../../jobs/events.js';
import { uuidv7 } from '../../shared/ids.js';

const fcm = new FakeFcm();
let t: TestApp;
beforeAll(async () => {
  await fcm.start();
  t = await buildTestApp({
    PUSH_PROVIDER: 'fcm',
    FCM_BASE_URL: fcm.url,
    FCM_TOKEN_URL: fcm.tokenUrl,
    FCM_PROJECT_ID: FCM_PROJECT,
    FCM_CREDENTIALS: fcm.credentials(),
  });
});
afterAll(async () => {
  await t.close();
  await fcm.close();
});

const device = () => `fcm-${uuidv7()}`;
const drain = () => t.app.jobs.drain();
const notify = (
  userId: string,
  type: Parameters<typeof t.app.services.notifications.notify>[2],
  data: Record<string, unknown> = {},
) => t.app.ctx.db.transaction((tx) => t.app.services.notifications.notify(tx, userId, type, data));

async function userWithDevices(count: number) {
  const u = await createSignedIn(t.app);
  const tokens = Array.from({ length: count }, device);
  for (const token of tokens)
    await call(t.app, 'POST', '/notifications/device-token', { token: u.token, body: { token, platform: 'android' } });
  return { ...u, devices: tokens };
}

const setPrefs = (token: string, body: unknown) => call(t.app, 'PATCH', '/notifications/preferences', { token, body });

describe('notify', () => {
  it('stores the notification and pushes it to every device of the user, after commit only', async () => {
    const u = await userWithDevices(2);
    const view = await notify(u.user.id, 'supplier_verified', { supplierId: 'sup-1' });
    expect(view).toMatchObject({
      type: 'supplier_verified',
      category: 'account',
      title: 'Compte fournisseur vérifié',
      data: { supplierId: 'sup-1' },
      readAt: null,
    });
    // Woken at commit; waiting on the fake leaves the workers the event loop (drain polls hard).
    for (const d of u.devices) await fcm.waitFor(d);
    await drain();
    for (const d of u.devices) {
      expect(fcm.to(d)).toEqual([
        {
          token: d,
          title: view.title,
          body: view.body,
          data: { notificationId: view.id, type: 'supplier_verified', category: 'account', supplierId: 'sup-1' },
        },
      ]);
    }
    const listed = await call(t.app, 'GET', '/notifications', { token: u.token });
    expect(listed.body.data).toEqual([view]);

    await expect(
      t.app.ctx.db.transaction(async (tx) => {
        await t.app.services.notifications.notify(tx, u.user.id, 'system_announcement', { message: 'rolled back' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await drain();
    expect((await call(t.app, 'GET', '/notifications/unread-count', { token: u.token })).body.data.count).toBe(1);
    expect(fcm.to(u.devices[0]!)).toHaveLength(1);
  });

  it('follows the preferences: push off, SMS and email on', async () => {
    const u = await userWithDevices(1);
    await t.app.services.users.update(t.app.ctx.db, u.user.id, { emailVerifiedAt: t.clock.now() });
    expect((await setPrefs(u.token, { channels: { system: { push: false, sms: true, email: true } } })).status).toBe(
      200,
    );
    const sentBefore = t.mail.count(u.user.email!);
    await notify(u.user.id, 'system_announcement', { title: 'Maintenance', message: 'Ce soir à 23 h' });
    // The workers are woken at commit; waiting on the fake gateways leaves them the event loop.
    expect((await t.sms.waitFor(u.user.phoneNumber!)).body).toBe('Maintenance : Ce soir à 23 h');
    const mail = await t.mail.waitFor(u.user.email!, sentBefore);
    expect(mail.raw).toMatch(/Subject: Maintenance/);
    await drain();
    expect(fcm.to(u.devices[0]!)).toHaveLength(0);
    expect((await call(t.app, 'GET', '/notifications/unread-count', { token: u.token })).body.data.count).toBe(1);
  });

  it('deletes a token FCM calls unregistered, and retries a throttled device alone after Retry-After', async () => {
    const u = await userWithDevices(3);
    const [gone, throttled, fine] = u.devices as [string, string, string];
    fcm.script.set(gone, [UNREGISTERED]);
    fcm.script.set(throttled, [{ status: 429, headers: { 'retry-after': '120' } }]);
    await notify(u.user.id, 'system_announcement', { message: 'x' });
    await fcm.waitFor(fine);
    await drain();
    const left = await t.app.ctx.db
      .select({ token: deviceTokens.token })
      .from(deviceTokens)
      .where(eq(deviceTokens.userId, u.user.id));
    expect(left.map((r) => r.token).sort()).toEqual([throttled, fine].sort());
    expect(fcm.to(fine)).toHaveLength(1);
    expect(fcm.to(throttled)).toHaveLength(0);

    t.clock.advance(60_000);
    await drain();
    expect(fcm.to(throttled)).toHaveLength(0);
    t.clock.advance(61_000);
    await drain();
    expect(fcm.to(throttled)).toHaveLength(1);
    expect(fcm.to(fine)).toHaveLength(1);
  });

  it('holds push during quiet hours until they end, except security messages', async () => {
    const u = await userWithDevices(1);
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const now = t.clock.now();
    const end = new Date(now.getTime() + 2 * 3600_000);
    await setPrefs(u.token, {
      quietHours: { start: hhmm(new Date(now.getTime() - 3600_000)), end: hhmm(end), timezone: 'UTC' },
    });
    await notify(u.user.id, 'system_announcement', { message: 'plus tard' });
    await notify(u.user.id, 'password_changed');
    await drain();
    expect(fcm.to(u.devices[0]!).map((m) => m.data.type)).toEqual(['password_changed']);
    t.clock.advance(2 * 3600_000 + 60_000);
    await drain();
    expect(fcm.to(u.devices[0]!).map((m) => m.data.type)).toEqual(['password_changed', 'system_announcement']);
  });

  it('pushes the new notification and unread count to an open stream', async () => {
    const u = await createSignedIn(t.app);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const stream = await openSse(
      `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1/notifications/stream`,
      u.token,
    );
    try {
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 0 } });
      const view = await notify(u.user.id, 'kyc_approved', { supplierId: 's' });
      expect(await stream.next()).toEqual({ event: 'notification', data: view });
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 1 } });
    } finally {
      stream.close();
    }
  });
});

describe('account events', () => {
  const ofUser = (userId: string) => t.app.ctx.db.select().from(notifications).where(eq(notifications.userId, userId));

  it('turns each account event into its notification', async () => {
    const u = await createSignedIn(t.app);
    const { events } = t.app.ctx;
    await t.app.ctx.db.transaction(async (tx) => {
      await events.publish(tx, 'users.password_changed', { userId: u.user.id });
      await events.publish(tx, 'users.signed_in_with_provider', {
        userId: u.user.id,
        provider: 'https://accounts.google.com',
      });
      await events.publish(tx, 'suppliers.verified', { supplierId: 's1', userId: u.user.id });
      await events.publish(tx, 'suppliers.rejected', {
        supplierId: 's1',
        userId: u.user.id,
        reason: 'adresse illisible',
      });
      await events.publish(tx, 'kyc.decided', {
        supplierId: 's1',
        userId: u.user.id,
        status: 'RESUBMISSION_REQUESTED',
        reason: 'photo floue',
      });
      await events.publish(tx, 'staff.invited', { invitationId: 'i1', storeId: 'st1', userId: u.user.id });
      await events.publish(tx, 'staff.invited', { invitationId: 'i2', storeId: 'st1', phoneNumber: '+221770000000' });
    });
    await drain();
    const rows = await ofUser(u.user.id);
    expect(rows.map((r) => r.type).sort()).toEqual(
      [
        'kyc_resubmission_requested',
        'password_changed',
        'provider_sign_in',
        'staff_invited',
        'supplier_rejected',
        'supplier_verified',
      ].sort(),
    );
    expect(rows.find((r) => r.type === 'kyc_resubmission_requested')!.body).toBe(
      'Merci de renvoyer vos documents : photo floue',
    );
    expect(rows.find((r) => r.type === 'provider_sign_in')!.body).toContain('https://accounts.google.com');
  });

  it("tells the user of a password change through every device, and drops the other sessions' devices", async () => {
    const u = await userWithDevices(1);
    const other = await t.app.services.auth.signIn(u.user, {});
    const otherDevice = device();
    await call(t.app, 'POST', '/notifications/device-token', {
      token: other.accessToken,
      body: { token: otherDevice, platform: 'ios' },
    });
    const res = await call(t.app, 'POST', '/auth/change-password', {
      token: u.token,
      body: { currentPassword: u.user.password, newPassword: 'Another-Horse-43' },
    });
    expect(res.status).toBe(200);
    const [push] = await fcm.waitFor(u.devices[0]!);
    expect(push).toMatchObject({ title: 'Mot de passe modifié', data: { type: 'password_changed' } });
    await drain();
    expect(fcm.to(otherDevice)).toHaveLength(0);
    const listed = await call(t.app, 'GET', '/notifications', { token: u.token });
    expect(listed.body.data.map((n: { type: string }) => n.type)).toEqual(['password_changed']);
  });

  it('notifies once per event even when its handler runs again', async () => {
    const u = await createSignedIn(t.app);
    await t.app.ctx.db.transaction((tx) =>
      t.app.ctx.events.publish(tx, 'users.password_changed', { userId: u.user.id }),
    );
    await drain();
    const [first] = await ofUser(u.user.id);
    expect(first!.sourceKey).toMatch(/^[0-9a-f-]{36}$/);
    // As after a crash between the notification's commit and the record that the event was handled:
    // the record is gone and the same event is delivered again.
    await t.app.ctx.db
      .delete(eventHandlings)
      .where(and(eq(eventHandlings.eventId, first!.sourceKey!), eq(eventHandlings.handler, 'notifications')));
    const job = {
      eventId: first!.sourceKey!,
      occurredAt: first!.createdAt.toISOString(),
      payload: { userId: u.user.id },
    };
    await t.app.ctx.jobs.send(eventJobName('users.password_changed', 'notifications'), job);
    await drain();
    const handled = await t.app.ctx.db
      .select()
      .from(eventHandlings)
      .where(eq(eventHandlings.eventId, first!.sourceKey!));
    expect(handled).toHaveLength(1);
    expect(await ofUser(u.user.id)).toHaveLength(1);
  });
});
