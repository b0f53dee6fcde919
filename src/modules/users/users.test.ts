import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  createSignedIn,
  createUser,
  DEFAULT_PASSWORD,
  uniqueEmail,
  uniquePhone,
} from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { listAdminActions } from '../audit/audit.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
let superAdmin: Awaited<ReturnType<typeof createSignedIn>>;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
  superAdmin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
});
afterAll(() => t.close());

const newUser = (role = 'CLIENT') => ({
  phoneNumber: uniquePhone(),
  password: 'Admin-Made-Pass-1',
  role,
  firstName: 'Moussa',
  lastName: 'Sow',
  email: uniqueEmail(),
});

describe('admin users', () => {
  it('creates a verified, active user who can sign in at once', async () => {
    const body = newUser('SUPPLIER_FOOD');
    const res = await call(t.app, 'POST', '/admin/users', { token: admin.token, body });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      role: 'SUPPLIER_FOOD',
      status: 'ACTIVE',
      isVerified: true,
      phoneNumber: body.phoneNumber,
    });
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: body.phoneNumber, password: body.password },
    });
    expect(login.status).toBe(200);
    expect(login.body.data.user.lastLoginAt).toEqual(expect.any(String));
    const seen = await call(t.app, 'GET', `/admin/users/${res.body.data.id}`, { token: admin.token });
    expect(seen.body.data.lastLoginAt).toBe(login.body.data.user.lastLoginAt);
  });

  it('lets only a super administrator create administrators', async () => {
    const byAdmin = await call(t.app, 'POST', '/admin/users', { token: admin.token, body: newUser('ADMIN') });
    expect(byAdmin.status).toBe(403);
    const bySuper = await call(t.app, 'POST', '/admin/users', { token: superAdmin.token, body: newUser('ADMIN') });
    expect(bySuper.status).toBe(201);
    expect(bySuper.body.data.role).toBe('ADMIN');
  });

  it('refuses a duplicate phone number', async () => {
    const existing = await createUser(t.app);
    const res = await call(t.app, 'POST', '/admin/users', {
      token: admin.token,
      body: { ...newUser(), phoneNumber: existing.phoneNumber },
    });
    expect(res.status).toBe(409);
  });

  it('lists users with filters, search and pagination', async () => {
    const tag = `Zq${Date.now().toString(36)}`;
    for (let i = 0; i < 3; i++) await createUser(t.app, { role: 'ADVERTISER', lastName: `${tag}${i}` });
    await createUser(t.app, { role: 'CLIENT', lastName: `${tag}x`, verified: false });
    const page1 = await call(t.app, 'GET', '/admin/users', {
      token: admin.token,
      query: { search: tag, role: 'ADVERTISER', limit: 2 },
    });
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const page2 = await call(t.app, 'GET', '/admin/users', {
      token: admin.token,
      query: { search: tag, role: 'ADVERTISER', limit: 2, page: 2 },
    });
    expect(page2.body.data).toHaveLength(1);
    const unverified = await call(t.app, 'GET', '/admin/users', {
      token: admin.token,
      query: { search: tag, verified: false },
    });
    expect(unverified.body.data.map((u: { profile: { lastName: string } }) => u.profile.lastName)).toEqual([`${tag}x`]);
  });

  it('searches by phone as people write it, by email in any case, by full name without accents', async () => {
    const tag = `Zr${Date.now().toString(36)}`;
    const email = uniqueEmail(tag.toLowerCase());
    const user = await createUser(t.app, { firstName: 'Aïssatou', lastName: `Ndiayé${tag}`, email });
    await createUser(t.app, { firstName: 'Aïssatou', lastName: `Diop${tag}` });
    const found = async (search: string) => {
      const res = await call(t.app, 'GET', '/admin/users', { token: admin.token, query: { search } });
      expect(res.status, search).toBe(200);
      return res.body.data.map((u: { id: string }) => u.id);
    };
    // +49 17x xxxxxxxx: with spaces, dashes, the 00 prefix or only the national part.
    const phone = user.phoneNumber!;
    const spaced = `${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6, 9)}-${phone.slice(9)}`;
    for (const search of [
      phone,
      spaced,
      `00${phone.slice(1)}`,
      phone.slice(3),
      `(${phone.slice(3, 6)}) ${phone.slice(6)}`,
    ]) {
      expect(await found(search), search).toEqual([user.id]);
    }
    expect(await found(email.toUpperCase())).toEqual([user.id]);
    expect(await found(`aissatou ndiaye${tag}`)).toEqual([user.id]);
    expect(await found(`NDIAYE${tag} Aïssatou`)).toEqual([user.id]);
    expect(await found(`aissatou ${tag}`)).toHaveLength(2);
    expect(await found(`aissatou sow${tag}`)).toEqual([]);
    // Characters of LIKE patterns are searched for as themselves.
    expect(await found(`%${tag}`)).toEqual([]);
  });

  it('validates list filters', async () => {
    const res = await call(t.app, 'GET', '/admin/users', {
      token: admin.token,
      query: { limit: 500, role: 'KING', foo: 1 },
    });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['query.limit', 'query.role', 'query.foo']));
  });

  it('reads one user; unknown id 404, malformed id 400', async () => {
    const user = await createUser(t.app);
    expect((await call(t.app, 'GET', `/admin/users/${user.id}`, { token: admin.token })).body.data.id).toBe(user.id);
    expect(
      (await call(t.app, 'GET', '/admin/users/01900000-0000-7000-8000-000000000000', { token: admin.token })).status,
    ).toBe(404);
    const bad = await call(t.app, 'GET', '/admin/users/not-a-uuid', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('params.id');
  });

  it('suspends a user: sessions end at once, login is refused, reactivation restores access', async () => {
    const target = await createSignedIn(t.app);
    const res = await call(t.app, 'PATCH', `/admin/users/${target.user.id}/status`, {
      token: admin.token,
      body: { status: 'SUSPENDED', reason: 'fraud report' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('SUSPENDED');
    const [decision] = await listAdminActions(t.app.ctx.db, 'user', target.user.id);
    expect(decision).toMatchObject({
      actorId: admin.user.id,
      action: 'user.status_changed',
      reason: 'fraud report',
      data: { from: 'ACTIVE', to: 'SUSPENDED' },
    });
    expect((await call(t.app, 'GET', '/auth/me', { token: target.token })).status).toBe(401);
    expect(
      (await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken: target.refreshToken } })).status,
    ).toBe(401);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: target.user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.body.error.code).toBe('ACCOUNT_SUSPENDED');
    await call(t.app, 'PATCH', `/admin/users/${target.user.id}/status`, {
      token: admin.token,
      body: { status: 'ACTIVE' },
    });
    const again = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: target.user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(again.status).toBe(200);
  });

  it('changes a role, but an ADMIN cannot touch a SUPER_ADMIN nor grant ADMIN', async () => {
    const user = await createUser(t.app);
    const ok = await call(t.app, 'PATCH', `/admin/users/${user.id}/role`, {
      token: admin.token,
      body: { role: 'ASSOCIATION' },
    });
    expect(ok.body.data.role).toBe('ASSOCIATION');
    expect(
      (await call(t.app, 'PATCH', `/admin/users/${user.id}/role`, { token: admin.token, body: { role: 'ADMIN' } }))
        .status,
    ).toBe(403);
    const other = await createUser(t.app, { role: 'SUPER_ADMIN' });
    expect(
      (
        await call(t.app, 'PATCH', `/admin/users/${other.id}/status`, {
          token: admin.token,
          body: { status: 'SUSPENDED' },
        })
      ).status,
    ).toBe(403);
    expect((await call(t.app, 'DELETE', `/admin/users/${other.id}`, { token: admin.token })).status).toBe(403);
    expect(
      (
        await call(t.app, 'PATCH', `/admin/users/${admin.user.id}/role`, {
          token: admin.token,
          body: { role: 'CLIENT' },
        })
      ).status,
    ).toBe(403);
  });

  it('lets only a super administrator change an administrator, and nobody change himself', async () => {
    const other = await createSignedIn(t.app, { role: 'ADMIN', verified: false });
    const id = other.user.id;
    const byAdmin = [
      await call(t.app, 'PATCH', `/admin/users/${id}/status`, { token: admin.token, body: { status: 'SUSPENDED' } }),
      await call(t.app, 'PATCH', `/admin/users/${id}/verify`, { token: admin.token }),
      await call(t.app, 'PATCH', `/admin/users/${id}/role`, { token: admin.token, body: { role: 'CLIENT' } }),
      await call(t.app, 'DELETE', `/admin/users/${id}`, { token: admin.token }),
    ];
    expect(byAdmin.map((r) => [r.status, r.body.error?.code])).toEqual(byAdmin.map(() => [403, 'FORBIDDEN']));
    const seen = await call(t.app, 'GET', `/admin/users/${id}`, { token: admin.token });
    expect(seen.body.data).toMatchObject({ role: 'ADMIN', status: 'ACTIVE', isVerified: false });
    const self = [
      await call(t.app, 'PATCH', `/admin/users/${admin.user.id}/status`, {
        token: admin.token,
        body: { status: 'SUSPENDED' },
      }),
      await call(t.app, 'DELETE', `/admin/users/${admin.user.id}`, { token: admin.token }),
      await call(t.app, 'PATCH', `/admin/users/${superAdmin.user.id}/status`, {
        token: superAdmin.token,
        body: { status: 'SUSPENDED' },
      }),
    ];
    expect(self.map((r) => r.status)).toEqual([403, 403, 403]);
    const bySuper = await call(t.app, 'PATCH', `/admin/users/${id}/status`, {
      token: superAdmin.token,
      body: { status: 'SUSPENDED' },
    });
    expect(bySuper.status).toBe(200);
    expect(bySuper.body.data.status).toBe('SUSPENDED');
  });

  it('force-verifies an account so it can sign in', async () => {
    const user = await createUser(t.app, { verified: false });
    const res = await call(t.app, 'PATCH', `/admin/users/${user.id}/verify`, { token: admin.token });
    expect(res.body.data.isVerified).toBe(true);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.status).toBe(200);
  });

  it('deletes a user: no more sign-in, the record stays, and deletion is final', async () => {
    const target = await createSignedIn(t.app);
    const res = await call(t.app, 'DELETE', `/admin/users/${target.user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data.user.status).toBe('DELETED');
    expect((await call(t.app, 'GET', '/auth/me', { token: target.token })).status).toBe(401);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: target.user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.status).toBe(401);
    expect((await call(t.app, 'GET', `/admin/users/${target.user.id}`, { token: admin.token })).body.data.status).toBe(
      'DELETED',
    );
    const revive = await call(t.app, 'PATCH', `/admin/users/${target.user.id}/status`, {
      token: admin.token,
      body: { status: 'ACTIVE' },
    });
    expect(revive.status).toBe(409);
    expect(revive.body.error.code).toBe('INVALID_TRANSITION');
  });

  it('keeps non-administrators out', async () => {
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', '/admin/users', { token: client.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/admin/users')).status).toBe(401);
  });
});

describe('first super administrator', () => {
  it('is created at start from SUPER_ADMIN_PHONE and SUPER_ADMIN_PASSWORD, once', async () => {
    const phone = uniquePhone();
    const env = { SUPER_ADMIN_PHONE: phone, SUPER_ADMIN_PASSWORD: 'Boot-Strap-Pass-9' };
    const first = await buildTestApp(env);
    try {
      const login = await call(first.app, 'POST', '/auth/login', {
        body: { phoneNumber: phone, password: 'Boot-Strap-Pass-9' },
      });
      expect(login.status).toBe(200);
      expect(login.body.data.user.role).toBe('SUPER_ADMIN');
      await first.app.services.users.ensureSuperAdmin(phone, 'Another-Pass-00');
      const still = await call(first.app, 'POST', '/auth/login', {
        body: { phoneNumber: phone, password: 'Boot-Strap-Pass-9' },
      });
      expect(still.status).toBe(200);
    } finally {
      await first.close();
    }
  });
});
