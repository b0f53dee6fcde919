import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createUser } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const cookieOf = (headers: Record<string, unknown>) => String(headers['set-cookie'] ?? '');
const tokenIn = (setCookie: string) => /console_refresh=([^;]*)/.exec(setCookie)?.[1] ?? '';
const withCookie = (token: string) => ({ cookie: `other=1; console_refresh=${token}` });

async function signIn(role: 'ADMIN' | 'SUPER_ADMIN' | 'CLIENT' | 'SUPPLIER_FOOD') {
  const user = await createUser(t.app, { role });
  const res = await call(t.app, 'POST', '/auth/console/login', {
    body: { phoneNumber: user.phoneNumber, password: user.password },
  });
  return { user, res, token: tokenIn(cookieOf(res.headers)) };
}

describe('the console session', () => {
  it('signs an administrator in with the refresh token in an httpOnly, SameSite=Strict cookie of its own path', async () => {
    const { res, token, user } = await signIn('ADMIN');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user: { id: user.id, role: 'ADMIN' }, accessToken: expect.any(String) });
    expect(res.body.data.refreshToken).toBeUndefined();
    const cookie = cookieOf(res.headers);
    expect(cookie).toMatch(/; Path=\/api\/v1\/auth\/console; HttpOnly; SameSite=Strict; Max-Age=\d+/);
    expect(res.headers['cache-control']).toContain('no-store');
    const me = await call(t.app, 'GET', '/auth/me', { token: res.body.data.accessToken });
    expect(me.body.data.id).toBe(user.id);
    expect(token.length).toBeGreaterThan(20);
  });

  it('refuses every other role before opening a session', async () => {
    for (const role of ['CLIENT', 'SUPPLIER_FOOD'] as const) {
      const { res } = await signIn(role);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('CONSOLE_ADMINS_ONLY');
      expect(cookieOf(res.headers)).toBe('');
    }
  });

  it('refreshes from the cookie alone, rotating it; the old cookie then ends the session', async () => {
    const { token, user } = await signIn('SUPER_ADMIN');
    const next = await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(token) });
    expect(next.status).toBe(200);
    expect(next.body.data.user).toMatchObject({ id: user.id, role: 'SUPER_ADMIN' });
    const rotated = tokenIn(cookieOf(next.headers));
    expect(rotated).not.toBe(token);
    const replayed = await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(token) });
    expect(replayed.status).toBe(401);
    const afterReuse = await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(rotated) });
    expect(afterReuse.status).toBe(401);
  });

  it('answers 401 without a cookie and 403 from another site', async () => {
    const none = await call(t.app, 'POST', '/auth/console/refresh');
    expect(none.status).toBe(401);
    const { token } = await signIn('ADMIN');
    const foreign = await call(t.app, 'POST', '/auth/console/refresh', {
      headers: { ...withCookie(token), origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('CROSS_ORIGIN');
  });

  it('ends the session of an administrator who lost the role at the next refresh', async () => {
    const { token, user } = await signIn('ADMIN');
    await t.app.services.users.update(t.app.ctx.db, user.id, { role: 'CLIENT' });
    const refused = await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(token) });
    expect(refused.status).toBe(403);
    await t.app.services.users.update(t.app.ctx.db, user.id, { role: 'ADMIN' });
    expect((await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(token) })).status).toBe(401);
  });

  it('signs out: the session is revoked and the cookie cleared', async () => {
    const { res, token } = await signIn('ADMIN');
    const out = await call(t.app, 'POST', '/auth/console/logout', { headers: withCookie(token) });
    expect(out.status).toBe(200);
    expect(cookieOf(out.headers)).toMatch(/console_refresh=; .*Max-Age=0/);
    expect((await call(t.app, 'GET', '/auth/me', { token: res.body.data.accessToken })).status).toBe(401);
    expect((await call(t.app, 'POST', '/auth/console/refresh', { headers: withCookie(token) })).status).toBe(401);
    expect((await call(t.app, 'POST', '/auth/console/logout', { headers: withCookie('not-a-token') })).status).toBe(
      200,
    );
  });
});
