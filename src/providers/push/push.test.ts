import { exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFcm, FCM_CLIENT_EMAIL, FCM_PROJECT, INVALID_TOKEN, UNREGISTERED } from '../../../test/fakes/fcm.js';
import { AdjustableClock } from '../../shared/clock.js';
import { FcmPush, parseRetryAfter, PushRetryableError } from './push.js';

const fcm = new FakeFcm();
beforeAll(() => fcm.start());
afterAll(() => fcm.close());

const adapter = (clock = new AdjustableClock(), credentials = fcm.credentials()) =>
  new FcmPush({ baseUrl: fcm.url, tokenUrl: fcm.tokenUrl, projectId: FCM_PROJECT, credentials }, clock);
const message = (token: string) => ({
  token,
  title: 'Bonjour',
  body: 'Votre panier est prêt',
  data: { notificationId: 'n1', type: 'system_announcement' },
});
let n = 0;
const token = () => `device-${++n}-${Date.now()}`;

describe('FCM HTTP v1 adapter', () => {
  it('gets an access token by the JWT-bearer grant, sends, and reuses the token until shortly before it expires', async () => {
    const clock = new AdjustableClock();
    const push = adapter(clock);
    const before = fcm.tokenRequests;
    const [a, b] = [token(), token()];
    expect(await push.send(message(a))).toBe('sent');
    await Promise.all([push.send(message(b)), push.send(message(b))]);
    expect(fcm.tokenRequests - before).toBe(1);
    expect(fcm.to(a)).toEqual([
      {
        token: a,
        title: 'Bonjour',
        body: 'Votre panier est prêt',
        data: { notificationId: 'n1', type: 'system_announcement' },
      },
    ]);
    expect(fcm.to(b)).toHaveLength(2);

    clock.advance(3600_000 - 30_000); // within the last minute of the token's life
    await push.send(message(a));
    expect(fcm.tokenRequests - before).toBe(2);
    expect(fcm.refusals).toEqual([]);
  });

  it('reports dead tokens: 404 UNREGISTERED, 400 INVALID_ARGUMENT naming message.token', async () => {
    const push = adapter();
    const [gone, invalid] = [token(), token()];
    fcm.script.set(gone, [UNREGISTERED]);
    fcm.script.set(invalid, [INVALID_TOKEN]);
    expect(await push.send(message(gone))).toBe('invalid_token');
    expect(await push.send(message(invalid))).toBe('invalid_token');
  });

  it('fails without retry on another INVALID_ARGUMENT, and retryably on 429 and 5xx with Retry-After', async () => {
    const push = adapter();
    const tk = token();
    const otherField = {
      status: 400,
      body: { error: { status: 'INVALID_ARGUMENT', details: [{ fieldViolations: [{ field: 'message.data' }] }] } },
    };
    fcm.script.set(tk, [otherField, { status: 429, headers: { 'retry-after': '17' } }, { status: 503 }]);
    const first = await push.send(message(tk)).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Error);
    expect(first).not.toBeInstanceOf(PushRetryableError);
    const second = await push.send(message(tk)).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(PushRetryableError);
    expect((second as PushRetryableError).retryAfterSeconds).toBe(17);
    const third = await push.send(message(tk)).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(PushRetryableError);
    expect((third as PushRetryableError).retryAfterSeconds).toBeUndefined();
    expect(await push.send(message(tk))).toBe('sent');
  });

  it('fetches a new access token after a 401 and retries', async () => {
    const push = adapter();
    await push.send(message(token()));
    const before = fcm.tokenRequests;
    fcm.revokeAccessTokens();
    await expect(push.send(message(token()))).rejects.toBeInstanceOf(PushRetryableError);
    expect(await push.send(message(token()))).toBe('sent');
    expect(fcm.tokenRequests - before).toBe(1);
    fcm.refusals.length = 0;
  });

  it('is refused by the token endpoint when the assertion is signed with another key', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const wrong = JSON.stringify({ client_email: FCM_CLIENT_EMAIL, private_key: await exportPKCS8(privateKey) });
    await expect(adapter(new AdjustableClock(), wrong).send(message(token()))).rejects.toThrow(
      /token endpoint answered 400/,
    );
    expect(fcm.refusals.at(-1)).toMatch(/^assertion: signature verification failed/);
    fcm.refusals.length = 0;
  });

  it('reads Retry-After as seconds or as a date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
