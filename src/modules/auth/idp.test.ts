import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createUser, uniqueEmail } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const subject = () => `sub-${uuidv7()}`;

describe('identity provider sign-in', () => {
  it('creates an account on first sign-in and finds it again afterwards', async () => {
    const sub = subject();
    const email = uniqueEmail('idp');
    const idToken = await t.idp.token({ sub, email, email_verified: true, given_name: 'Fatou', family_name: 'Ndiaye' });
    const first = await call(t.app, 'POST', '/auth/idp', { body: { idToken, role: 'SUPPLIER_DEALS' } });
    expect(first.status).toBe(200);
    expect(first.body.data.isNewUser).toBe(true);
    expect(first.body.data.user).toMatchObject({
      role: 'SUPPLIER_DEALS',
      email,
      isVerified: true,
      profile: { firstName: 'Fatou' },
    });
    const again = await call(t.app, 'POST', '/auth/idp', { body: { idToken: await t.idp.token({ sub }) } });
    expect(again.body.data.isNewUser).toBe(false);
    expect(again.body.data.user.id).toBe(first.body.data.user.id);
    expect((await call(t.app, 'GET', '/auth/me', { token: again.body.data.accessToken })).status).toBe(200);
  });

  it('refuses a token signed by another key, for another audience or issuer, or expired', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const tokens = [
      await t.idp.token({ sub: subject() }, { key: privateKey }),
      await t.idp.token({ sub: subject() }, { audience: 'someone-else' }),
      await t.idp.token({ sub: subject() }, { issuer: 'https://evil.test' }),
      await t.idp.token({ sub: subject() }, { expiresIn: '-1m' }),
      'not-a-jwt',
    ];
    for (const idToken of tokens) {
      const res = await call(t.app, 'POST', '/auth/idp', { body: { idToken } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('never takes over an existing account through a matching email', async () => {
    const email = uniqueEmail('taken');
    await createUser(t.app, { email });
    const res = await call(t.app, 'POST', '/auth/idp', {
      body: { idToken: await t.idp.token({ sub: subject(), email, email_verified: true }) },
    });
    expect(res.status).toBe(409);
  });

  it('links and unlinks a provider account to the signed-in user', async () => {
    const me = await createSignedIn(t.app);
    const sub = subject();
    const link = await call(t.app, 'POST', '/auth/idp/link', {
      token: me.token,
      body: { idToken: await t.idp.token({ sub }) },
    });
    expect(link.status).toBe(200);
    expect(link.body.data.subject).toBe(sub);
    const login = await call(t.app, 'POST', '/auth/idp', { body: { idToken: await t.idp.token({ sub }) } });
    expect(login.body.data.user.id).toBe(me.user.id);

    const other = await createSignedIn(t.app);
    const stolen = await call(t.app, 'POST', '/auth/idp/link', {
      token: other.token,
      body: { idToken: await t.idp.token({ sub }) },
    });
    expect(stolen.status).toBe(409);

    expect((await call(t.app, 'POST', '/auth/idp/unlink', { token: me.token })).status).toBe(200);
    expect((await call(t.app, 'POST', '/auth/idp/unlink', { token: me.token })).status).toBe(404);
    const after = await call(t.app, 'POST', '/auth/idp', { body: { idToken: await t.idp.token({ sub }) } });
    expect(after.body.data.isNewUser).toBe(true);
  });

  it('refuses to unlink the only way to sign in', async () => {
    const created = await call(t.app, 'POST', '/auth/idp', {
      body: { idToken: await t.idp.token({ sub: subject() }) },
    });
    const res = await call(t.app, 'POST', '/auth/idp/unlink', { token: created.body.data.accessToken });
    expect(res.status).toBe(409);
  });
});

describe('without an identity provider configured', () => {
  it('answers 503', async () => {
    const bare = await buildTestApp({ IDP_JWKS_URL: '', IDP_ISSUER: '', IDP_AUDIENCE: '' });
    try {
      const res = await call(bare.app, 'POST', '/auth/idp', { body: { idToken: 'x.y.z' } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await bare.close();
    }
  });
});
