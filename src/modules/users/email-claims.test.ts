import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createUser, uniqueEmail, uniquePhone } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const registration = (email: string) => ({
  phoneNumber: uniquePhone(),
  password: 'Fresh-Baguette-77',
  role: 'CLIENT',
  firstName: 'Awa',
  lastName: 'Diop',
  email,
});

/** An account registered with `email` whose phone was never verified. */
async function abandonedRegistration(email: string) {
  const res = await call(t.app, 'POST', '/auth/register', { body: registration(email) });
  expect(res.status).toBe(201);
  return res.body.data.userId as string;
}

const emailOf = async (id: string) => (await t.app.services.users.findById(id))?.email;

describe('an email held by an abandoned registration', () => {
  it('stays taken while that registration code is open', async () => {
    const email = uniqueEmail();
    const squatter = await abandonedRegistration(email);
    const res = await call(t.app, 'POST', '/auth/register', { body: registration(email) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('ALREADY_EXISTS');
    expect(await emailOf(squatter)).toBe(email);
  });

  it('is released to a new registration once the code has expired', async () => {
    const email = uniqueEmail();
    const squatter = await abandonedRegistration(email);
    t.clock.advance(10 * 60_000 + 1000);
    const owner = registration(email);
    const res = await call(t.app, 'POST', '/auth/register', { body: owner });
    expect(res.status).toBe(201);
    expect(await emailOf(squatter)).toBeNull();
    const code = await t.sms.codeFor(owner.phoneNumber);
    const verified = await call(t.app, 'POST', '/auth/verify-otp', {
      body: { phoneNumber: owner.phoneNumber, code, purpose: 'registration' },
    });
    expect(verified.body.data.user.email).toBe(email);
  });

  it('is released to an account an administrator creates', async () => {
    const email = uniqueEmail();
    const squatter = await abandonedRegistration(email);
    t.clock.advance(10 * 60_000 + 1000);
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const res = await call(t.app, 'POST', '/admin/users', { token: admin.token, body: registration(email) });
    expect(res.status).toBe(201);
    expect(res.body.data.email).toBe(email);
    expect(await emailOf(squatter)).toBeNull();
  });

  it('is released to a first sign-in with the identity provider', async () => {
    const email = uniqueEmail();
    // Written directly, with no code ever sent: abandoned from the start. The token outlives
    // the test clock, which earlier tests moved forward.
    const squatter = await createUser(t.app, { email, verified: false });
    const idToken = await t.idp.token({ sub: `sub-${uuidv7()}`, email, email_verified: true }, { expiresIn: '2h' });
    const res = await call(t.app, 'POST', '/auth/idp', { body: { idToken } });
    expect(res.status).toBe(200);
    expect(res.body.data.user.email).toBe(email);
    expect(await emailOf(squatter.id)).toBeNull();
  });

  it('is never taken from a verified account', async () => {
    const holder = await createUser(t.app);
    const res = await call(t.app, 'POST', '/auth/register', { body: registration(holder.email!) });
    expect(res.status).toBe(409);
    expect(await emailOf(holder.id)).toBe(holder.email);
  });
});
