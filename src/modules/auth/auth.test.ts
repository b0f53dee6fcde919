import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TWILIO_SID, TWILIO_TOKEN, type TestApp } from '../../../test/helpers/app.js';
import {
  createSignedIn,
  createUser,
  DEFAULT_PASSWORD,
  uniqueEmail,
  uniquePhone,
} from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const registration = (
  over: Record<string, unknown> = {},
): Record<string, any> & { phoneNumber: string; password: string } => ({
  phoneNumber: uniquePhone(),
  password: 'Fresh-Baguette-77',
  role: 'CLIENT',
  firstName: 'Awa',
  lastName: 'Diop',
  ...over,
});

async function registerAndVerify(over: Record<string, unknown> = {}) {
  const body = registration(over);
  const res = await call(t.app, 'POST', '/auth/register', { body });
  expect(res.status).toBe(201);
  const code = await t.sms.codeFor(body.phoneNumber as string);
  const verified = await call(t.app, 'POST', '/auth/verify-otp', {
    body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
  });
  expect(verified.status).toBe(200);
  return { ...body, userId: res.body.data.userId as string, tokens: verified.body.data };
}

describe('registration and phone verification', () => {
  it('registers, sends the code through the SMS gateway, and refuses login until verified', async () => {
    const body = registration({ email: uniqueEmail() }) as ReturnType<typeof registration> & { email: string };
    const res = await call(t.app, 'POST', '/auth/register', { body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, data: { userId: expect.any(String), phoneNumber: body.phoneNumber } });

    const sms = await t.sms.waitFor(body.phoneNumber);
    expect(sms.path).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(sms.authorization).toBe(`Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`);
    expect(sms.from).toBe('+15005550006');
    expect(sms.body).toMatch(/\b\d{6}\b/);

    const early = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: body.phoneNumber, password: body.password },
    });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe('ACCOUNT_NOT_VERIFIED');

    const code = await t.sms.codeFor(body.phoneNumber);
    const verified = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user.isVerified).toBe(true);

    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: body.phoneNumber, password: body.password },
    });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(login.body.data.user).toMatchObject({
      role: 'CLIENT',
      phoneNumber: body.phoneNumber,
      profile: { firstName: 'Awa', lastName: 'Diop' },
    });
    expect(login.body.data.user).not.toHaveProperty('passwordHash');

    const me = await call(t.app, 'GET', '/auth/me', { token: login.body.data.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      id: res.body.data.userId,
      role: 'CLIENT',
      email: body.email.toLowerCase(),
      preferences: {},
    });
  });

  it('rejects malformed registrations field by field', async () => {
    const res = await call(t.app, 'POST', '/auth/register', {
      body: {
        phoneNumber: '12345',
        password: 'short',
        role: 'ADMIN',
        firstName: '',
        lastName: 'X',
        email: 'nope',
        extra: true,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'body.phoneNumber',
        'body.password',
        'body.role',
        'body.firstName',
        'body.email',
        'body.extra',
      ]),
    );
    expect(res.body.requestId).toEqual(expect.any(String));
  });

  it('refuses a common password and names the field', async () => {
    const res = await call(t.app, 'POST', '/auth/register', { body: registration({ password: 'password123' }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'body.password', message: expect.stringContaining('common') }]);
  });

  it('refuses a phone number that already has a verified account', async () => {
    const user = await createUser(t.app);
    const res = await call(t.app, 'POST', '/auth/register', { body: registration({ phoneNumber: user.phoneNumber }) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('ALREADY_EXISTS');
  });

  it('refuses a new registration of a phone whose registration code is still open', async () => {
    const body = registration({ email: uniqueEmail() });
    expect((await call(t.app, 'POST', '/auth/register', { body })).status).toBe(201);
    const code = await t.sms.codeFor(body.phoneNumber);
    const takeover = await call(t.app, 'POST', '/auth/register', {
      body: { ...body, password: 'Not-The-Owner-12', role: 'SUPPLIER_FOOD', email: uniqueEmail() },
    });
    expect(takeover.status).toBe(409);
    expect(takeover.body.error.code).toBe('REGISTRATION_PENDING');
    expect(takeover.body.error.message).toMatch(/verify-otp/);
    const ok = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user).toMatchObject({ role: 'CLIENT', email: body.email.toLowerCase() });
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: body.phoneNumber, password: body.password },
    });
    expect(login.status).toBe(200);
  });

  it('lets an unverified registration start again with a new code once the code has expired', async () => {
    const body = registration();
    const first = await call(t.app, 'POST', '/auth/register', { body });
    const oldCode = await t.sms.codeFor(body.phoneNumber);
    t.clock.advance(10 * 60_000 + 1000);
    const again = await call(t.app, 'POST', '/auth/register', { body: { ...body, password: 'Another-Pass-99' } });
    expect(again.status).toBe(201);
    expect(again.body.data.userId).toBe(first.body.data.userId);
    const newCode = await t.sms.codeFor(body.phoneNumber, 1);
    if (newCode !== oldCode) {
      const stale = await call(t.app, 'POST', '/auth/verify-otp', {
        body: { phoneNumber: body.phoneNumber, code: oldCode, purpose: 'registration' },
      });
      expect(stale.body.error.code).toBe('INVALID_OTP');
    }
    const ok = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code: newCode, purpose: 'registration' },
    });
    expect(ok.status).toBe(200);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: body.phoneNumber, password: 'Another-Pass-99' },
    });
    expect(login.status).toBe(200);
  });
});

describe('one-time codes', () => {
  it('expires a code after 10 minutes', async () => {
    const body = registration();
    await call(t.app, 'POST', '/auth/register', { body });
    const code = await t.sms.codeFor(body.phoneNumber);
    t.clock.advance(10 * 60_000 + 1000);
    const res = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('OTP_EXPIRED');
  });

  it('accepts a code once only', async () => {
    const { phoneNumber } = await registerAndVerify();
    const code = await t.sms.codeFor(phoneNumber);
    const again = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber, code, purpose: 'registration' },
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_OTP');
  });

  it('binds a code to its purpose', async () => {
    const body = registration();
    await call(t.app, 'POST', '/auth/register', { body });
    const code = await t.sms.codeFor(body.phoneNumber);
    const res = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'login' },
    });
    expect(res.body.error.code).toBe('INVALID_OTP');
  });

  it('kills a code after five wrong tries', async () => {
    const body = registration();
    await call(t.app, 'POST', '/auth/register', { body });
    const code = await t.sms.codeFor(body.phoneNumber);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await call(t.app, 'POST', '/auth/verify-otp', {
        body: { phoneNumber: body.phoneNumber, code: wrong, purpose: 'registration' },
      });
      expect(res.body.error.code).toBe('INVALID_OTP');
    }
    const right = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
    });
    expect(right.status).toBe(400);
    expect(right.body.error.code).toBe('INVALID_OTP');
  });

  it('allows three sends an hour per number, then 429 with Retry-After', async () => {
    const body = registration();
    await call(t.app, 'POST', '/auth/register', { body });
    for (let i = 0; i < 2; i++) {
      const res = await call(t.app, 'POST', '/auth/resend-otp', {
        body: { phoneNumber: body.phoneNumber, purpose: 'registration' },
      });
      expect(res.status).toBe(200);
    }
    const fourth = await call(t.app, 'POST', '/auth/resend-otp', {
      body: { phoneNumber: body.phoneNumber, purpose: 'registration' },
    });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe('OTP_RESEND_LIMIT');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(3000);
    // The newest code is the one that works.
    await t.sms.waitFor(body.phoneNumber, 2);
    const code = await t.sms.codeFor(body.phoneNumber, 2);
    const ok = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: body.phoneNumber, code, purpose: 'registration' },
    });
    expect(ok.status).toBe(200);
    t.clock.advance(3_600_000);
    const later = await call(t.app, 'POST', '/auth/resend-otp', {
      body: { phoneNumber: body.phoneNumber, purpose: 'login' },
    });
    expect(later.status).toBe(200);
  });

  it('limits email codes the same way', async () => {
    const email = uniqueEmail();
    const user = await createUser(t.app, { email });
    for (let i = 0; i < 3; i++) {
      const res = await call(t.app, 'POST', '/auth/resend-email-otp', { body: { email, purpose: 'login' } });
      expect(res.status).toBe(200);
    }
    const res = await call(t.app, 'POST', '/auth/resend-email-otp', { body: { email, purpose: 'login' } });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('OTP_RESEND_LIMIT');
    expect(user.id).toBeTruthy();
  });
});

describe('password sign-in', () => {
  it('answers an unknown phone and a wrong password identically', async () => {
    const user = await createUser(t.app);
    const wrong = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: 'not-the-password' },
    });
    const unknown = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: uniquePhone(), password: 'not-the-password' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
  });

  it('refuses a suspended account', async () => {
    const user = await createUser(t.app, { status: 'SUSPENDED' });
    const res = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ACCOUNT_SUSPENDED');
  });

  it('signs in by email in two steps', async () => {
    const email = uniqueEmail();
    const user = await createUser(t.app, { email });
    const step1 = await call(t.app, 'POST', '/auth/login/email', {
      body: { email: email.toUpperCase(), password: DEFAULT_PASSWORD },
    });
    expect(step1.status).toBe(200);
    expect(step1.body.data).not.toHaveProperty('accessToken');
    const code = await t.mail.codeFor(email);
    const step2 = await call(t.app, 'POST', '/auth/verify-email-otp', { body: { email, code, purpose: 'login' } });
    expect(step2.status).toBe(200);
    expect(step2.body.data.user.id).toBe(user.id);
    expect(step2.body.data.user.isEmailVerified).toBe(true);
    const me = await call(t.app, 'GET', '/auth/me', { token: step2.body.data.accessToken });
    expect(me.body.data.id).toBe(user.id);
  });

  it('sends no email code for a wrong password', async () => {
    const email = uniqueEmail();
    await createUser(t.app, { email });
    const res = await call(t.app, 'POST', '/auth/login/email', { body: { email, password: 'wrong-password' } });
    expect(res.status).toBe(401);
    await t.app.jobs.drain();
    expect(t.mail.count(email)).toBe(0);
  });
});

describe('password reset and change', () => {
  it('resets by SMS, ends every session, and the new password works', async () => {
    const { user, token } = await createSignedIn(t.app);
    const forgot = await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber: user.phoneNumber } });
    expect(forgot.status).toBe(200);
    const code = await t.sms.codeFor(user.phoneNumber!);
    const check = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: user.phoneNumber, code, purpose: 'password_reset' },
    });
    expect(check.body.data).toEqual({ verified: true });
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { phoneNumber: user.phoneNumber, code, newPassword: 'Brand-New-Pass-1' },
    });
    expect(reset.status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { token })).status).toBe(401);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: 'Brand-New-Pass-1' },
    });
    expect(login.status).toBe(200);
    const reused = await call(t.app, 'POST', '/auth/reset-password', {
      body: { phoneNumber: user.phoneNumber, code, newPassword: 'Other-New-Pass-2' },
    });
    expect(reused.body.error.code).toBe('INVALID_OTP');
  });

  it('resets by email', async () => {
    const email = uniqueEmail();
    const user = await createUser(t.app, { email });
    await call(t.app, 'POST', '/auth/forgot-password', { body: { email } });
    const code = await t.mail.codeFor(email);
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { email, code, newPassword: 'Mail-Reset-Pass-3' },
    });
    expect(reset.status).toBe(200);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: 'Mail-Reset-Pass-3' },
    });
    expect(login.status).toBe(200);
  });

  it('answers the same for an unknown account and sends nothing', async () => {
    const phone = uniquePhone();
    const known = await createUser(t.app);
    const a = await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber: phone } });
    const b = await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber: known.phoneNumber } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    await t.app.jobs.drain();
    expect(t.sms.count(phone)).toBe(0);
  });

  it('requires exactly one of phone or email', async () => {
    const res = await call(t.app, 'POST', '/auth/forgot-password', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('changes the password with the current one and ends the other sessions only', async () => {
    const { user, token } = await createSignedIn(t.app);
    const other = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    const bad = await call(t.app, 'POST', '/auth/change-password', {
      token,
      body: { currentPassword: 'nope-nope', newPassword: 'Changed-Pass-44' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('body.currentPassword');
    const ok = await call(t.app, 'POST', '/auth/change-password', {
      token,
      body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'Changed-Pass-44' },
    });
    expect(ok.status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { token: other.body.data.accessToken })).status).toBe(401);
  });
});

describe('tokens and sessions', () => {
  it('rotates refresh tokens and revokes the session when an old one is replayed', async () => {
    const { refreshToken } = await createSignedIn(t.app);
    const first = await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    const replay = await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken } });
    expect(replay.status).toBe(401);
    const newer = await call(t.app, 'POST', '/auth/refresh-token', {
      body: { refreshToken: first.body.data.refreshToken },
    });
    expect(newer.status).toBe(401);
    expect((await call(t.app, 'GET', '/auth/me', { token: first.body.data.accessToken })).status).toBe(401);
  });

  it('ends the session at logout: the access token stops working at once', async () => {
    const { token, refreshToken } = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', '/auth/logout', { token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { token })).status).toBe(401);
    expect((await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken } })).status).toBe(401);
  });

  it('refuses a refresh token as an access token and the reverse', async () => {
    const { token, refreshToken } = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', '/auth/me', { token: refreshToken })).status).toBe(401);
    expect((await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken: token } })).status).toBe(401);
  });

  it('refuses an unsigned token (alg none) and a tampered one', async () => {
    const { token } = await createSignedIn(t.app);
    const [, payload] = token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expect((await call(t.app, 'GET', '/auth/me', { token: none })).status).toBe(401);
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '01900000-0000-7000-8000-000000000000' })).toString(
      'base64url',
    );
    const tampered = token.replace(payload!, forged);
    const res = await call(t.app, 'GET', '/auth/me', { token: tampered });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('expires access tokens after 15 minutes; the refresh token still works', async () => {
    const { token, refreshToken } = await createSignedIn(t.app);
    t.clock.advance(15 * 60_000 + 1000);
    expect((await call(t.app, 'GET', '/auth/me', { token })).status).toBe(401);
    const res = await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken } });
    expect(res.status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { token: res.body.data.accessToken })).status).toBe(200);
  });

  it('expires refresh tokens after 7 days', async () => {
    const { refreshToken } = await createSignedIn(t.app);
    t.clock.advance(7 * 86_400_000 + 1000);
    expect((await call(t.app, 'POST', '/auth/refresh-token', { body: { refreshToken } })).status).toBe(401);
  });

  it('refuses a malformed Authorization header', async () => {
    const res = await call(t.app, 'GET', '/auth/me', { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
  });
});
