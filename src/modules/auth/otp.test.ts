import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createUser, DEFAULT_PASSWORD, uniquePhone } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** `n` distinct 6-digit codes, none of them `right`. */
const wrongCodes = (right: string, n: number) =>
  Array.from({ length: n + 1 }, (_, i) => String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, '0'))
    .filter((c) => c !== right)
    .slice(0, n);

describe('one-time codes under concurrency', () => {
  it('compares at most five guesses of a code, however many arrive at once', async () => {
    const user = await createUser(t.app);
    const phoneNumber = user.phoneNumber!;
    await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber } });
    const code = await t.sms.codeFor(phoneNumber);
    // A reset check does not use the code up, so a right guess that got compared would answer 200.
    const guesses = [...wrongCodes(code, 30), code];
    const answers = await Promise.all(
      guesses.map((c) =>
        call(t.app, 'POST', '/auth/verify-otp', { body: { phoneNumber, code: c, purpose: 'password_reset' } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(guesses.map(() => 400));
    expect(answers.filter((a) => /tries left/.test(a.body.error.message)).length).toBeLessThanOrEqual(4);
    const late = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber, code, purpose: 'password_reset' },
    });
    expect(late.status).toBe(400);
    expect(late.body.error.code).toBe('INVALID_OTP');
  });

  it('does not count a right code as a wrong try', async () => {
    const user = await createUser(t.app);
    const phoneNumber = user.phoneNumber!;
    await call(t.app, 'POST', '/auth/forgot-password', { body: { phoneNumber } });
    const code = await t.sms.codeFor(phoneNumber);
    for (const wrong of wrongCodes(code, 3)) {
      await call(t.app, 'POST', '/auth/verify-otp', { body: { phoneNumber, code: wrong, purpose: 'password_reset' } });
    }
    for (let i = 0; i < 3; i++) {
      const check = await call(t.app, 'POST', '/auth/verify-otp', {
        body: { phoneNumber, code, purpose: 'password_reset' },
      });
      expect(check.status).toBe(200);
    }
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { phoneNumber, code, newPassword: 'After-Checks-Pass-5' },
    });
    expect(reset.status).toBe(200);
  });

  it('lets only one of two simultaneous verifications with the right code succeed', async () => {
    const phoneNumber = uniquePhone();
    const body = { phoneNumber, password: 'Fresh-Baguette-77', role: 'CLIENT', firstName: 'Awa', lastName: 'Diop' };
    expect((await call(t.app, 'POST', '/auth/register', { body })).status).toBe(201);
    const code = await t.sms.codeFor(phoneNumber);
    const verify = () =>
      call(t.app, 'POST', '/auth/verify-otp', { body: { phoneNumber, code, purpose: 'registration' } });
    const answers = await Promise.all([verify(), verify()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body.error.code).toBe('INVALID_OTP');
  });
});

describe('login codes', () => {
  it('sends no email login code on resend unless the password step opened one', async () => {
    const user = await createUser(t.app);
    const email = user.email!;
    const resend = await call(t.app, 'POST', '/auth/resend-email-otp', { body: { email, purpose: 'login' } });
    const unknown = await call(t.app, 'POST', '/auth/resend-email-otp', {
      body: { email: `x${email}`, purpose: 'login' },
    });
    expect(resend.status).toBe(200);
    expect(resend.body).toEqual(unknown.body);
    await t.app.jobs.drain();
    expect(t.mail.count(email)).toBe(0);
  });

  it('replaces the email login code opened by the password step', async () => {
    const user = await createUser(t.app);
    const email = user.email!;
    const step1 = await call(t.app, 'POST', '/auth/login/email', { body: { email, password: DEFAULT_PASSWORD } });
    expect(step1.status).toBe(200);
    const first = await t.mail.codeFor(email);
    expect((await call(t.app, 'POST', '/auth/resend-email-otp', { body: { email, purpose: 'login' } })).status).toBe(
      200,
    );
    await t.app.jobs.drain();
    expect(t.mail.count(email)).toBe(2);
    const second = await t.mail.codeFor(email, 1);
    if (second !== first) {
      const stale = await call(t.app, 'POST', '/auth/verify-email-otp', {
        body: { email, code: first, purpose: 'login' },
      });
      expect(stale.status).toBe(400);
    }
    const signedIn = await call(t.app, 'POST', '/auth/verify-email-otp', {
      body: { email, code: second, purpose: 'login' },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user.id).toBe(user.id);
  });

  it('does not revive an expired email login code', async () => {
    const user = await createUser(t.app);
    const email = user.email!;
    await call(t.app, 'POST', '/auth/login/email', { body: { email, password: DEFAULT_PASSWORD } });
    await t.mail.codeFor(email);
    t.clock.advance(10 * 60_000 + 1000);
    expect((await call(t.app, 'POST', '/auth/resend-email-otp', { body: { email, purpose: 'login' } })).status).toBe(
      200,
    );
    await t.app.jobs.drain();
    expect(t.mail.count(email)).toBe(1);
  });

  it('never sends an SMS login code: phone sign-in takes the password', async () => {
    const user = await createUser(t.app);
    const phoneNumber = user.phoneNumber!;
    const resend = await call(t.app, 'POST', '/auth/resend-otp', { body: { phoneNumber, purpose: 'login' } });
    expect(resend.status).toBe(200);
    await t.app.jobs.drain();
    expect(t.sms.count(phoneNumber)).toBe(0);
    const guess = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber, code: '123456', purpose: 'login' },
    });
    expect(guess.status).toBe(400);
    expect(guess.body.error.code).toBe('INVALID_OTP');
  });
});
