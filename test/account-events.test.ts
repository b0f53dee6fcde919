import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvents, EventName } from '../src/jobs/event-types.js';
import { postMultipart, validParts } from '../src/modules/kyc/kyc.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createStore, createSupplier, DEFAULT_PASSWORD, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

// Every account event, as a subscriber receives it after the request's transaction committed.
const received: { name: EventName; payload: unknown; eventId: string }[] = [];
const ofName = <E extends EventName>(name: E) =>
  received.filter((e) => e.name === name).map((e) => e.payload as DomainEvents[E]);

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  t = await buildTestApp({}, undefined, {
    beforeStart: (app) => {
      const names: EventName[] = [
        'users.password_changed',
        'users.signed_in_with_provider',
        'suppliers.verified',
        'suppliers.rejected',
        'kyc.decided',
        'staff.invited',
      ];
      for (const name of names) {
        app.ctx.events.subscribe(name, 'test-recorder', async (payload, meta) => {
          received.push({ name, payload, eventId: meta.eventId });
        });
      }
    },
  });
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
});
afterAll(() => t.close());

describe('account events', () => {
  it('users.password_changed after a change and after a reset, not after a refused change', async () => {
    const me = await createSignedIn(t.app);
    const refused = await call(t.app, 'POST', '/auth/change-password', {
      token: me.token,
      body: { currentPassword: 'wrong-one-123', newPassword: 'Another-Horse-43' },
    });
    expect(refused.status).toBe(400);
    const changed = await call(t.app, 'POST', '/auth/change-password', {
      token: me.token,
      body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'Another-Horse-43' },
    });
    expect(changed.status).toBe(200);
    await t.app.jobs.drain();
    expect(ofName('users.password_changed').filter((p) => p.userId === me.user.id)).toHaveLength(1);

    const phoneNumber = me.user.phoneNumber!;
    await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber } });
    const code = await t.sms.codeFor(phoneNumber);
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { phoneNumber, code, newPassword: 'Third-Horse-44' },
    });
    expect(reset.status).toBe(200);
    await t.app.jobs.drain();
    expect(ofName('users.password_changed').filter((p) => p.userId === me.user.id)).toHaveLength(2);
  });

  it('users.signed_in_with_provider on every provider sign-in', async () => {
    const sub = `sub-${uniquePhone()}`;
    const first = await call(t.app, 'POST', '/auth/idp', { body: { idToken: await t.idp.token({ sub }) } });
    const again = await call(t.app, 'POST', '/auth/idp', { body: { idToken: await t.idp.token({ sub }) } });
    expect([first.status, again.status]).toEqual([200, 200]);
    await t.app.jobs.drain();
    const userId = first.body.data.user.id as string;
    const events = ofName('users.signed_in_with_provider').filter((p) => p.userId === userId);
    expect(events).toHaveLength(2);
    expect(events[0]!.provider).toBe(t.app.ctx.config.IDP_ISSUER);
  });

  it("suppliers.verified and suppliers.rejected on administrators' decisions", async () => {
    const a = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    const b = await createSupplier(t.app, { verification: 'PENDING', kycStatus: 'APPROVED' });
    expect((await call(t.app, 'PATCH', `/admin/suppliers/${a.profile.id}/verify`, { token: admin.token })).status).toBe(
      200,
    );
    expect(
      (
        await call(t.app, 'PATCH', `/admin/suppliers/${b.profile.id}/reject`, {
          token: admin.token,
          body: { reason: 'Address not found' },
        })
      ).status,
    ).toBe(200);
    await t.app.jobs.drain();
    expect(ofName('suppliers.verified')).toContainEqual({ supplierId: a.profile.id, userId: a.user.id });
    expect(ofName('suppliers.rejected')).toContainEqual({
      supplierId: b.profile.id,
      userId: b.user.id,
      reason: 'Address not found',
    });
  });

  it('kyc.decided on a review, and with suppliers.verified on a force-verify', async () => {
    const s = await createSupplier(t.app, { verification: 'PENDING' });
    expect((await postMultipart(t.app, '/suppliers/profile/kyc', s.token, await validParts())).status).toBe(201);
    const rejected = await call(t.app, 'POST', `/admin/suppliers/${s.profile.id}/kyc/reject`, {
      token: admin.token,
      body: { reason: 'Blurred photo' },
    });
    expect(rejected.status).toBe(200);
    const forced = await call(t.app, 'POST', `/admin/kyc/suppliers/${s.profile.id}/force-verify`, {
      token: admin.token,
      body: { reason: 'Checked in person' },
    });
    expect(forced.status).toBe(200);
    await t.app.jobs.drain();
    const decided = ofName('kyc.decided').filter((p) => p.supplierId === s.profile.id);
    expect(decided).toEqual([
      { supplierId: s.profile.id, userId: s.user.id, status: 'REJECTED', reason: 'Blurred photo' },
      { supplierId: s.profile.id, userId: s.user.id, status: 'APPROVED', reason: 'Checked in person' },
    ]);
    expect(ofName('suppliers.verified')).toContainEqual({ supplierId: s.profile.id, userId: s.user.id });
  });

  it('staff.invited names the invited account when one holds the phone number', async () => {
    const owner = await createSupplier(t.app);
    const store = await createStore(t.app, owner);
    const person = await createSignedIn(t.app);
    const res = await call(t.app, 'POST', `/staff/stores/${store.id}/invite`, {
      token: owner.token,
      body: { phoneNumber: person.user.phoneNumber, role: 'STAFF' },
    });
    expect(res.status).toBe(201);
    await t.app.jobs.drain();
    expect(ofName('staff.invited')).toContainEqual({
      invitationId: res.body.data.id,
      storeId: store.id,
      userId: person.user.id,
      phoneNumber: person.user.phoneNumber,
    });
  });
});
