import { eq } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffInvitations } from '../../db/schema/staff.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  createSignedIn,
  createStore,
  createSupplier,
  uniqueEmail,
  uniquePhone,
} from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { INVITATION_CODE, invitationCodeFromSms } from './staff.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const fields = (res: { body: any }) => (res.body.error.details ?? []).map((d: { field: string }) => d.field);

const codeFromSms = (phone: string, after = 0) => invitationCodeFromSms(t, phone, after);

async function codeFromMail(email: string): Promise<string> {
  const mail = await t.mail.waitFor(email);
  // Undo quoted-printable soft line breaks and escapes before reading the body.
  const body = mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return INVITATION_CODE.exec(body)![1]!;
}

/** A fresh access token: moving the clock past 15 minutes expires the earlier ones. */
async function tokenFor(user: { id: string }) {
  const account = (await t.app.services.users.findById(user.id))!;
  return (await t.app.services.auth.signIn(account, {})).accessToken;
}

async function ownerWithStore() {
  const owner = await createSupplier(t.app);
  const store = await createStore(t.app, owner);
  return { owner, store };
}

/** Invites `person` by phone with `role` and returns the code from the SMS. */
async function invite(
  owner: { token: string },
  storeId: string,
  person: { user: { phoneNumber: string | null } },
  role = 'STAFF',
) {
  const phone = person.user.phoneNumber!;
  const before = t.sms.count(phone);
  const res = await call(t.app, 'POST', `/staff/stores/${storeId}/invite`, {
    token: owner.token,
    body: { phoneNumber: phone, role },
  });
  expect(res.status).toBe(201);
  return { invitation: res.body.data, code: await codeFromSms(phone, before) };
}

async function member(
  owner: { token: string },
  storeId: string,
  role = 'STAFF',
  opts: Parameters<typeof createSignedIn>[1] = {},
) {
  const person = await createSignedIn(t.app, opts);
  const { code } = await invite(owner, storeId, person, role);
  const res = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token });
  expect(res.status).toBe(200);
  return person;
}

describe('inviting by phone and accepting', () => {
  it('sends a single-use code by SMS; the invited person sees, accepts and joins the store', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const res = await call(t.app, 'POST', `/staff/stores/${store.id}/invite`, {
      token: owner.token,
      body: { phoneNumber: person.user.phoneNumber, role: 'MANAGER' },
    });
    expect(res.status).toBe(201);
    const invitation = res.body.data;
    expect(invitation).toEqual({
      id: expect.any(String),
      storeId: store.id,
      role: 'MANAGER',
      phoneNumber: person.user.phoneNumber,
      email: null,
      status: 'PENDING',
      expiresAt: new Date(new Date(invitation.createdAt).getTime() + 7 * DAY).toISOString(),
      createdAt: expect.any(String),
    });
    const sms = await t.sms.waitFor(person.user.phoneNumber!);
    expect(sms.body).toContain(store.name);
    const code = INVITATION_CODE.exec(sms.body)![1]!;
    expect(Buffer.from(code, 'base64url')).toHaveLength(32);
    // Only a SHA-256 of the code is kept.
    const [row] = await t.app.ctx.db.select().from(staffInvitations).where(eq(staffInvitations.id, invitation.id));
    expect(row!.tokenHash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(code);

    const mine = await call(t.app, 'GET', '/staff/invitations', { token: person.token });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual([
      {
        id: invitation.id,
        role: 'MANAGER',
        status: 'PENDING',
        sentTo: 'phone',
        expiresAt: invitation.expiresAt,
        createdAt: invitation.createdAt,
        store: { id: store.id, name: store.name, address: store.address, city: store.city },
      },
    ]);
    // Nobody else sees it.
    const stranger = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', '/staff/invitations', { token: stranger.token })).body.data).toEqual([]);

    const accepted = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({
      role: 'MANAGER',
      since: expect.any(String),
      store: { id: store.id, name: store.name },
    });

    expect((await call(t.app, 'GET', '/staff/invitations', { token: person.token })).body.data).toEqual([]);
    const stores = await call(t.app, 'GET', '/staff/my-stores', { token: person.token });
    expect(stores.body.data).toEqual([accepted.body.data]);
    expect(stores.body.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    const role = await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: person.token });
    expect(role.body.data).toMatchObject({
      storeId: store.id,
      role: 'MANAGER',
      capabilities: expect.arrayContaining(['orders.manage']),
    });

    const staff = await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: owner.token });
    expect(staff.status).toBe(200);
    expect(staff.body.data).toEqual({
      storeId: store.id,
      members: [
        {
          userId: person.user.id,
          role: 'MANAGER',
          firstName: 'Test',
          lastName: 'User',
          phoneNumber: person.user.phoneNumber,
          email: person.user.email,
          joinedAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ],
      pendingInvitations: [],
    });
  });

  it('accepts a code once: reusing it, or rejecting after accepting, is 409', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const { code } = await invite(owner, store.id, person);
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token })).status).toBe(200);
    for (const action of ['accept', 'reject']) {
      const again = await call(t.app, 'POST', `/staff/invitations/${code}/${action}`, { token: person.token });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('INVALID_TRANSITION');
    }
  });

  it('lets only the invited person answer: anyone else gets 404, and unknown or malformed codes too', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const { code } = await invite(owner, store.id, person);
    const intruder = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: intruder.token })).status).toBe(
      404,
    );
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/reject`, { token: owner.token })).status).toBe(404);
    const unknown = 'A'.repeat(43);
    expect((await call(t.app, 'POST', `/staff/invitations/${unknown}/accept`, { token: person.token })).status).toBe(
      404,
    );
    const bad = await call(t.app, 'POST', '/staff/invitations/short/accept', { token: person.token });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['params.token']);
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/accept`)).status).toBe(401);
    // Still pending for the right person.
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token })).status).toBe(200);
  });

  it('declines: the invitation leaves the list and can no longer be accepted', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const { code } = await invite(owner, store.id, person);
    const res = await call(t.app, 'POST', `/staff/invitations/${code}/reject`, { token: person.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Invitation declined' });
    expect((await call(t.app, 'GET', '/staff/invitations', { token: person.token })).body.data).toEqual([]);
    const late = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token });
    expect(late.body.error.code).toBe('INVALID_TRANSITION');
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: person.token })).status).toBe(404);
  });

  it('expires after 7 days: 410 INVITATION_EXPIRED, gone from the list, and the person can be invited again', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const { code } = await invite(owner, store.id, person);
    t.clock.advance(7 * DAY + 60_000);
    const personToken = await tokenFor(person.user);
    expect((await call(t.app, 'GET', '/staff/invitations', { token: personToken })).body.data).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const res = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: personToken });
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe('INVITATION_EXPIRED');
    }
    const ownerToken = await tokenFor(owner.user);
    const fresh = await invite({ token: ownerToken }, store.id, person);
    expect(fresh.code).not.toBe(code);
    expect((await call(t.app, 'POST', `/staff/invitations/${fresh.code}/accept`, { token: personToken })).status).toBe(
      200,
    );
  });
});

describe('inviting by email', () => {
  it('emails the code; only a verified email address matches', async () => {
    const { owner, store } = await ownerWithStore();
    const email = uniqueEmail('staff');
    const person = await createSignedIn(t.app, { email });
    const res = await call(t.app, 'POST', `/staff/stores/${store.id}/invite`, {
      token: owner.token,
      body: { email: email.toUpperCase(), role: 'STAFF' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email, phoneNumber: null, role: 'STAFF' });
    const code = await codeFromMail(email);

    // The account's email is not verified yet: the invitation is not its.
    expect((await call(t.app, 'GET', '/staff/invitations', { token: person.token })).body.data).toEqual([]);
    expect((await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token })).status).toBe(404);

    await t.app.services.users.update(t.app.ctx.db, person.user.id, { emailVerifiedAt: t.clock.now() });
    const list = await call(t.app, 'GET', '/staff/invitations', { token: person.token });
    expect(list.body.data).toMatchObject([{ sentTo: 'email', role: 'STAFF', store: { id: store.id } }]);
    const accepted = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.role).toBe('STAFF');
  });
});

describe('invitation refusals', () => {
  it('requires exactly one of phone number and email, a known role and no other field', async () => {
    const { owner, store } = await ownerWithStore();
    const url = `/staff/stores/${store.id}/invite`;
    const cases: [Record<string, unknown>, string[]][] = [
      [{ role: 'STAFF' }, ['body.phoneNumber']],
      [{ phoneNumber: uniquePhone(), email: uniqueEmail(), role: 'STAFF' }, ['body.email']],
      [{ phoneNumber: uniquePhone(), role: 'OWNER' }, ['body.role']],
      [{ phoneNumber: '0771234567', role: 'STAFF' }, ['body.phoneNumber']],
      [{ email: 'not-an-email', role: 'STAFF' }, ['body.email']],
      [{ phoneNumber: uniquePhone(), role: 'STAFF', note: 'hi' }, ['body.note']],
    ];
    for (const [body, expected] of cases) {
      const res = await call(t.app, 'POST', url, { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fields(res)).toEqual(expected);
    }
    const staff = await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: owner.token });
    expect(staff.body.data.pendingInvitations).toEqual([]);
  });

  it('refuses the owner himself, a second pending invitation and someone already on the team', async () => {
    const { owner, store } = await ownerWithStore();
    const url = `/staff/stores/${store.id}/invite`;
    const self = await call(t.app, 'POST', url, {
      token: owner.token,
      body: { phoneNumber: owner.user.phoneNumber, role: 'MANAGER' },
    });
    expect(self.status).toBe(400);
    expect(fields(self)).toEqual(['body.phoneNumber']);
    const selfMail = await call(t.app, 'POST', url, {
      token: owner.token,
      body: { email: owner.user.email, role: 'MANAGER' },
    });
    expect(fields(selfMail)).toEqual(['body.email']);

    const person = await createSignedIn(t.app);
    await invite(owner, store.id, person);
    const twice = await call(t.app, 'POST', url, {
      token: owner.token,
      body: { phoneNumber: person.user.phoneNumber, role: 'MANAGER' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ALREADY_INVITED');

    const joined = await member(owner, store.id);
    const again = await call(t.app, 'POST', url, {
      token: owner.token,
      body: { email: joined.user.email, role: 'MANAGER' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_MEMBER');
  });

  it('lets only the store owner invite: 401, 403 for other roles, 403 NOT_OWNER, 404 for an unknown store', async () => {
    const { owner, store } = await ownerWithStore();
    const body = { phoneNumber: uniquePhone(), role: 'STAFF' };
    const url = `/staff/stores/${store.id}/invite`;
    expect((await call(t.app, 'POST', url, { body })).status).toBe(401);
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', url, { token: client.token, body })).body.error.code).toBe('FORBIDDEN');
    const other = await createSupplier(t.app);
    const notOwner = await call(t.app, 'POST', url, { token: other.token, body });
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error.code).toBe('NOT_OWNER');
    expect((await call(t.app, 'POST', `/staff/stores/${uuidv7()}/invite`, { token: owner.token, body })).status).toBe(
      404,
    );
    // A manager manages orders, not the team.
    const manager = await member(owner, store.id, 'MANAGER', { role: 'SUPPLIER_FOOD' });
    const byManager = await call(t.app, 'POST', url, { token: manager.token, body });
    expect(byManager.status).toBe(403);
    expect(byManager.body.error.code).toBe('FORBIDDEN');
    expect(t.sms.count(body.phoneNumber)).toBe(0);
  });

  it("hides another supplier's store the public cannot see: team changes answer 404, not 403", async () => {
    const other = await createSupplier(t.app);
    const inactiveOwner = await createSupplier(t.app);
    const inactive = await createStore(t.app, inactiveOwner, { isActive: false });
    const unverifiedOwner = await createSupplier(t.app, { verification: 'REJECTED' });
    const unverified = await createStore(t.app, unverifiedOwner);
    for (const [owner, store] of [
      [inactiveOwner, inactive],
      [unverifiedOwner, unverified],
    ] as const) {
      const person = await member(owner, store.id, 'STAFF');
      const body = { phoneNumber: uniquePhone(), role: 'STAFF' };
      const requests = [
        ['POST', `/staff/stores/${store.id}/invite`, body],
        ['PATCH', `/staff/stores/${store.id}/members/${person.user.id}`, { role: 'MANAGER' }],
        ['DELETE', `/staff/stores/${store.id}/members/${person.user.id}`, undefined],
        ['GET', `/staff/stores/${store.id}`, undefined],
      ] as const;
      for (const [method, url, b] of requests) {
        const res = await call(t.app, method, url, { token: other.token, body: b });
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
      expect(t.sms.count(body.phoneNumber)).toBe(0);
      expect(
        (await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: person.token })).body.data.role,
      ).toBe('STAFF');
    }
  });

  it('revokes pending invitations when the store is deleted', async () => {
    const { owner, store } = await ownerWithStore();
    const person = await createSignedIn(t.app);
    const { code } = await invite(owner, store.id, person);
    expect((await call(t.app, 'DELETE', `/supplier/stores/${store.id}`, { token: owner.token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/staff/invitations', { token: person.token })).body.data).toEqual([]);
    const res = await call(t.app, 'POST', `/staff/invitations/${code}/accept`, { token: person.token });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_TRANSITION', message: expect.stringContaining('REVOKED') });
  });
});

describe('the team of a store', () => {
  it('lists members and pending invitations to the owner only', async () => {
    const { owner, store } = await ownerWithStore();
    const joined = await member(owner, store.id, 'STAFF');
    const invited = await createSignedIn(t.app);
    const { invitation } = await invite(owner, store.id, invited, 'MANAGER');
    const res = await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: owner.token });
    expect(res.body.data.members.map((m: { userId: string }) => m.userId)).toEqual([joined.user.id]);
    expect(res.body.data.pendingInvitations).toEqual([invitation]);

    const other = await createSupplier(t.app);
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: other.token })).status).toBe(404);
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: client.token })).status).toBe(403);
  });

  it("changes a member's role and removes a member; other suppliers get 403 NOT_OWNER", async () => {
    const { owner, store } = await ownerWithStore();
    const person = await member(owner, store.id, 'STAFF');
    const url = `/staff/stores/${store.id}/members/${person.user.id}`;

    const other = await createSupplier(t.app);
    const foreign = await call(t.app, 'PATCH', url, { token: other.token, body: { role: 'MANAGER' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('NOT_OWNER');
    expect((await call(t.app, 'DELETE', url, { token: other.token })).body.error.code).toBe('NOT_OWNER');
    expect(fields(await call(t.app, 'PATCH', url, { token: owner.token, body: { role: 'OWNER' } }))).toEqual([
      'body.role',
    ]);
    expect(fields(await call(t.app, 'PATCH', url, { token: owner.token, body: { role: 'STAFF', extra: 1 } }))).toEqual([
      'body.extra',
    ]);

    const promoted = await call(t.app, 'PATCH', url, { token: owner.token, body: { role: 'MANAGER' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ userId: person.user.id, role: 'MANAGER' });
    expect(
      (await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: person.token })).body.data.role,
    ).toBe('MANAGER');

    const removed = await call(t.app, 'DELETE', url, { token: owner.token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ message: 'Member removed' });
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: person.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/staff/my-stores', { token: person.token })).body.data).toEqual([]);
    expect((await call(t.app, 'DELETE', url, { token: owner.token })).status).toBe(404);
    expect((await call(t.app, 'PATCH', url, { token: owner.token, body: { role: 'STAFF' } })).status).toBe(404);
    // A removed member can be invited back.
    const back = await invite(owner, store.id, person, 'STAFF');
    expect(
      (await call(t.app, 'POST', `/staff/invitations/${back.code}/accept`, { token: person.token })).body.data.role,
    ).toBe('STAFF');
  });

  it('answers my-role with OWNER for the owner and 404 for anyone else or an unknown store', async () => {
    const { owner, store } = await ownerWithStore();
    const res = await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: owner.token });
    expect(res.body.data).toMatchObject({ storeId: store.id, role: 'OWNER' });
    expect(res.body.data.capabilities).toContain('staff.manage');
    const stranger = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`, { token: stranger.token })).status).toBe(404);
    expect((await call(t.app, 'GET', `/staff/stores/${uuidv7()}/my-role`, { token: owner.token })).status).toBe(404);
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}/my-role`)).status).toBe(401);
  });
});

describe('what store roles may do', () => {
  it('lets a manager see statistics and close the store, but not edit, toggle or delete it', async () => {
    const { owner, store } = await ownerWithStore();
    const manager = await member(owner, store.id, 'MANAGER', { role: 'SUPPLIER_FOOD' });
    const stats = await call(t.app, 'GET', `/supplier/stores/${store.id}/statistics`, { token: manager.token });
    expect(stats.status).toBe(200);
    expect(stats.body.data.staff).toMatchObject({ members: 1, managers: 1, staff: 0 });
    const endsAt = new Date(t.clock.now().getTime() + DAY).toISOString();
    const closure = await call(t.app, 'POST', `/supplier/stores/${store.id}/temporary-closure`, {
      token: manager.token,
      body: { endsAt },
    });
    expect(closure.status).toBe(200);
    expect(closure.body.data.closure).toMatchObject({ endsAt, inEffect: true });
    for (const [method, url, body] of [
      ['PUT', `/supplier/stores/${store.id}`, { name: 'Renamed' }],
      ['POST', `/supplier/stores/${store.id}/toggle-active`, undefined],
      ['DELETE', `/supplier/stores/${store.id}`, undefined],
    ] as const) {
      const res = await call(t.app, method, url, { token: manager.token, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('keeps staff to orders and bookings', async () => {
    const { owner, store } = await ownerWithStore();
    const staff = await member(owner, store.id, 'STAFF', { role: 'SUPPLIER_DEALS' });
    const stats = await call(t.app, 'GET', `/supplier/stores/${store.id}/statistics`, { token: staff.token });
    expect(stats.status).toBe(403);
    expect(stats.body.error.code).toBe('FORBIDDEN');
    expect((await call(t.app, 'GET', `/staff/stores/${store.id}`, { token: staff.token })).status).toBe(403);

    const { staff: service } = t.app.services;
    const db = t.app.ctx.db;
    await expect(service.assertStoreCapability(db, staff.user.id, store.id, 'orders.update')).resolves.toMatchObject({
      role: 'STAFF',
    });
    await expect(
      service.assertStoreCapability(db, staff.user.id, store.id, 'bookings.validate'),
    ).resolves.toMatchObject({ role: 'STAFF' });
    await expect(service.assertStoreCapability(db, staff.user.id, store.id, 'products.manage')).rejects.toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
    });
    await expect(service.assertStoreCapability(db, owner.user.id, store.id, 'products.manage')).resolves.toMatchObject({
      role: 'OWNER',
    });
    const stranger = await createSignedIn(t.app);
    await expect(service.assertStoreCapability(db, stranger.user.id, store.id, 'orders.view')).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(
      service.assertStoreCapability(db, stranger.user.id, store.id, 'orders.update', { change: true }),
    ).rejects.toMatchObject({ statusCode: 403, code: 'NOT_OWNER' });
    await expect(service.assertStoreCapability(db, owner.user.id, uuidv7(), 'orders.view')).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});
