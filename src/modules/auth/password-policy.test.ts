import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createUser, DEFAULT_PASSWORD, uniqueEmail } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
});
afterAll(() => t.close());

// A Senegalese mobile number (Orange, 77) from a space of 10^7, and its 9 local digits.
const senegalPhone = () => {
  const local = `77${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
  return { phoneNumber: `+221${local}`, local };
};

const WEAK: [password: string, rule: RegExp][] = [
  ['        ', /only spaces/],
  ['aaaaaaaa', /repeated/],
  ['azertyui', /common/],
  ['qsdfghjk', /keyboard walk/],
  ['dakar2024', /common/],
  ['senegal221', /common/],
  ['Teranga@2025', /common/],
  ['Sénégal2024!', /common/],
  ['123456789a', /common/],
  ['P@ssw0rd2024', /common/],
];
// Every way the account's own number is commonly written (filled in with the account's digits).
const PHONE_FORMS = (local: string) => [
  `+221${local}`,
  `221${local}`,
  `00221${local}`,
  local,
  `${local.slice(0, 2)} ${local.slice(2, 5)} ${local.slice(5, 7)} ${local.slice(7)}`,
  `Moi-${local}!`,
];

function expectRefused(res: { status: number; body: any }, field: string, rule: RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details).toEqual([{ field, message: expect.stringMatching(rule) }]);
  expect(res.body.error.message).toMatch(rule);
}

const registration = (over: Record<string, unknown>) => ({
  phoneNumber: senegalPhone().phoneNumber,
  password: 'Fresh-Baguette-77',
  role: 'CLIENT',
  firstName: 'Awa',
  lastName: 'Diop',
  ...over,
});

describe('the password rules, on every route that sets a password', () => {
  it('counts spaces as typed: spaces count towards the length, spaces alone are refused', async () => {
    const ok = await call(t.app, 'POST', '/auth/register', { body: registration({ password: ' garden  walk  42 ' }) });
    expect(ok.status).toBe(201);
    const short = await call(t.app, 'POST', '/auth/register', { body: registration({ password: '  ab1  ' }) });
    expect(short.status).toBe(400);
    expect(short.body.error.details[0].field).toBe('body.password');
  });

  it.each(WEAK)('register refuses %j', async (password, rule) => {
    expectRefused(
      await call(t.app, 'POST', '/auth/register', { body: registration({ password }) }),
      'body.password',
      rule,
    );
  });

  it.each(WEAK)('an administrator cannot create an account with %j', async (password, rule) => {
    const res = await call(t.app, 'POST', '/admin/users', { token: admin.token, body: registration({ password }) });
    expectRefused(res, 'body.password', rule);
  });

  it('change-password refuses each weak password and keeps the old one', async () => {
    const user = await createSignedIn(t.app);
    for (const [newPassword, rule] of WEAK) {
      const res = await call(t.app, 'POST', '/auth/change-password', {
        token: user.token,
        body: { currentPassword: DEFAULT_PASSWORD, newPassword },
      });
      expectRefused(res, 'body.newPassword', rule);
    }
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: user.user.phoneNumber, password: DEFAULT_PASSWORD },
    });
    expect(login.status).toBe(200);
  });

  it('reset-password refuses each weak password without spending the code', async () => {
    const user = await createUser(t.app);
    const phoneNumber = user.phoneNumber!;
    await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber } });
    const code = await t.sms.codeFor(phoneNumber);
    for (const [newPassword, rule] of WEAK) {
      const res = await call(t.app, 'POST', '/auth/reset-password', { body: { phoneNumber, code, newPassword } });
      expectRefused(res, 'body.newPassword', rule);
    }
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { phoneNumber, code, newPassword: 'Quiet-Mango-Tree-8' },
    });
    expect(reset.status).toBe(200);
  });

  it("refuses the account's own phone number, however it is written, on register and by an administrator", async () => {
    const { phoneNumber, local } = senegalPhone();
    for (const password of PHONE_FORMS(local)) {
      expectRefused(
        await call(t.app, 'POST', '/auth/register', { body: registration({ phoneNumber, password }) }),
        'body.password',
        /phone number/,
      );
      const byAdmin = await call(t.app, 'POST', '/admin/users', {
        token: admin.token,
        body: registration({ phoneNumber, password }),
      });
      expectRefused(byAdmin, 'body.password', /phone number/);
    }
  });

  it("refuses the account's own phone number or email on change and on a reset by email", async () => {
    const { phoneNumber, local } = senegalPhone();
    const email = uniqueEmail('ndeye.fall');
    const created = await call(t.app, 'POST', '/admin/users', {
      token: admin.token,
      body: registration({ phoneNumber, email }),
    });
    expect(created.status).toBe(201);
    const login = await call(t.app, 'POST', '/auth/login', { body: { phoneNumber, password: 'Fresh-Baguette-77' } });
    const token = login.body.data.accessToken as string;
    const change = (newPassword: string) =>
      call(t.app, 'POST', '/auth/change-password', {
        token,
        body: { currentPassword: 'Fresh-Baguette-77', newPassword },
      });
    for (const password of PHONE_FORMS(local))
      expectRefused(await change(password), 'body.newPassword', /phone number/);
    expectRefused(await change(`${email.split('@')[0]}!`), 'body.newPassword', /email/);
    expectRefused(await change(email.toUpperCase()), 'body.newPassword', /email/);

    await call(t.app, 'POST', '/auth/forgot-password', { body: { email } });
    const code = await t.mail.codeFor(email);
    // Reset by email: the phone number is known only from the account the code belongs to.
    const byPhone = await call(t.app, 'POST', '/auth/reset-password', {
      body: { email, code, newPassword: `Moi-${local}` },
    });
    expectRefused(byPhone, 'body.newPassword', /phone number/);
    const byEmail = await call(t.app, 'POST', '/auth/reset-password', {
      body: { email, code, newPassword: `${email}-2` },
    });
    expectRefused(byEmail, 'body.newPassword', /email/);
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { email, code, newPassword: 'Quiet-Mango-Tree-8' },
    });
    expect(reset.status).toBe(200);
  });

  it('accepts passphrases and passwords that only contain a listed word', async () => {
    for (const password of [
      'Teranga-Demo-2024',
      'dakar by the sea at dawn',
      'Correct-Horse-42',
      'mot de passe du marché',
    ]) {
      const res = await call(t.app, 'POST', '/auth/register', { body: registration({ password }) });
      expect(res.status, password).toBe(201);
    }
  });
});
