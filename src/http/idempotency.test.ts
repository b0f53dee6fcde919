import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../db/client.js';
import { escrow, providerClearing } from '../modules/ledger/accounts.js';
import { AppError } from '../shared/errors.js';
import { uuidv7 } from '../shared/ids.js';
import { buildTestApp, type TestApp } from '../../test/helpers/app.js';
import { createSignedIn } from '../../test/helpers/factories.js';
import { call, type ApiResponse } from '../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../test/helpers/money-invariants.js';
import type { App } from './types.js';
import { PURGE_JOB, transactionalKey } from './idempotency.js';

// A money-moving route of the test only: it posts a payment to the ledger and counts its runs
// (`committed`: the runs whose posting committed).
let calls = 0;
let committed = 0;
const Body = Type.Object(
  {
    amount: Type.Integer({ minimum: 1 }),
    outcome: Type.Optional(Type.Union([Type.Literal('crash'), Type.Literal('refuse')])),
  },
  { additionalProperties: false },
);
function addTestRoutes(app: App) {
  // 'outside': the plugin claims the key; 'claim': the transaction claims it; 'answer': it also stores the answer.
  const handler = (keyIn: 'outside' | 'claim' | 'answer') => async (req: FastifyRequest, reply: FastifyReply) => {
    calls++;
    const { amount, outcome } = req.body as { amount: number; outcome?: string };
    const orderId = uuidv7();
    reply.header('location', `/api/v1/test/charges/${orderId}`);
    const posted = await app.ctx.db.transaction(async (tx) => {
      const key = keyIn === 'outside' ? undefined : transactionalKey(req, reply);
      await key?.claim(tx);
      const p = await app.services.ledger.post(tx, {
        kind: 'payment_received',
        reference: { type: 'order', id: orderId },
        idempotencyKey: `test:${orderId}`,
        currency: 'XOF',
        lines: [
          { account: providerClearing, amount },
          { account: escrow(orderId), amount: -amount },
        ],
      });
      if (keyIn === 'answer') await key?.answer(tx, 201, { orderId, transactionId: p.transactionId });
      // After the posting (and the answer), inside its transaction: the failure rolls them back.
      if (outcome === 'crash') throw new Error('the disk is on fire');
      if (outcome === 'refuse') throw new AppError(409, 'TEST_REFUSED', 'Refused by the test route');
      return p;
    });
    committed++;
    return reply.code(201).send({ success: true, data: { orderId, transactionId: posted.transactionId } });
  };
  app.post(
    '/api/v1/test/charges',
    { config: { access: 'Auth', idempotency: true }, schema: { body: Body } },
    handler('outside'),
  );
  // The same route claiming the key in its own transaction (as POST /orders does).
  app.post(
    '/api/v1/test/charges-tx',
    { config: { access: 'Auth', idempotency: 'in-transaction' }, schema: { body: Body } },
    handler('claim'),
  );
  app.post(
    '/api/v1/test/charges-answered',
    { config: { access: 'Auth', idempotency: 'in-transaction' }, schema: { body: Body } },
    handler('answer'),
  );
  app.post('/api/v1/test/acks', { config: { access: 'Auth', idempotency: true } }, async (_req, reply) => {
    calls++;
    return reply.code(204).send();
  });
  app.post(
    '/api/v1/test/other',
    { config: { access: 'Auth', idempotency: true }, schema: { body: Body } },
    async () => ({ success: true, data: {} }),
  );
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, undefined, { beforeStart: addTestRoutes });
}, 60_000);
afterAll(() => t.close());

const charge = (token: string, key: string | undefined, body: object, url = '/test/charges') =>
  call(t.app, 'POST', url, { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
const newKey = () => `key-${uuidv7()}`;
/**
 * The answers of 20 requests sent at once with one key: exactly one ran (answered fresh); the others
 * replay its answer or are told the key is in use. Answers the one that ran.
 */
function onlyOneRan(answers: ApiResponse[]): ApiResponse {
  const fresh = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed']);
  const replayed = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === 'true');
  const busy = answers.filter((r) => r.status === 409);
  expect(fresh).toHaveLength(1);
  expect(replayed.length + busy.length).toBe(answers.length - 1);
  for (const r of busy) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
  for (const r of replayed) expect(r.body).toEqual(fresh[0]!.body);
  return fresh[0]!;
}
const escrowOf = async (orderId: string) => t.app.services.ledger.balance(t.app.ctx.db, escrow(orderId));

describe('Idempotency-Key', () => {
  it('replays the stored status, body and headers without running the handler again', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = calls;
    const first = await charge(token, key, { amount: 1500 });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const again = await call(t.app, 'POST', '/test/charges', {
      token,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: '{ "amount": 1500 }',
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.body).toEqual(first.body);
    expect(calls - before).toBe(1);
    expect(await escrowOf(first.body.data.orderId)).toBe(-1500);
    await assertMoneyInvariants(t.app);
  });

  it('replays an answer without a body', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = calls;
    const send = () => call(t.app, 'POST', '/test/acks', { token, headers: { 'idempotency-key': key } });
    expect((await send()).status).toBe(204);
    const again = await send();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([204, 'true']);
    expect(calls - before).toBe(1);
  });

  it('runs the route normally without the header', async () => {
    const { token } = await createSignedIn(t.app);
    const before = calls;
    const [a, b] = [await charge(token, undefined, { amount: 10 }), await charge(token, undefined, { amount: 10 })];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.orderId).not.toBe(b.body.data.orderId);
    expect(calls - before).toBe(2);
  });

  it('refuses the key with another body (422) or on another route (422)', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    expect((await charge(token, key, { amount: 100 })).status).toBe(201);
    const other = await charge(token, key, { amount: 101 });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const elsewhere = await charge(token, key, { amount: 100 }, '/test/other');
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps the keys of different users apart', async () => {
    const [a, b] = [await createSignedIn(t.app), await createSignedIn(t.app)];
    const key = newKey();
    const ra = await charge(a.token, key, { amount: 100 });
    const rb = await charge(b.token, key, { amount: 200 });
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(ra.body.data.orderId).not.toBe(rb.body.data.orderId);
  });

  it('runs the handler once when the same request arrives 20 times at once', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = calls;
    const answers = await Promise.all(Array.from({ length: 20 }, () => charge(token, key, { amount: 300 })));
    expect(calls - before).toBe(1);
    const ran = onlyOneRan(answers);
    expect(await escrowOf(ran.body.data.orderId)).toBe(-300);
  });

  it('frees the key after a 5xx, so a retry runs again; stores a refusal (4xx) and replays it', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = calls;
    const crashed = await charge(token, key, { amount: 50, outcome: 'crash' });
    expect(crashed.status).toBe(500);
    expect(await rows(t.app.ctx.db, sql`select 1 from idempotency_keys where key = ${key}`)).toEqual([]);
    const retried = await charge(token, key, { amount: 50, outcome: 'crash' });
    expect(retried.status).toBe(500);
    expect(calls - before).toBe(2);

    const refusedKey = newKey();
    const refused = await charge(token, refusedKey, { amount: 50, outcome: 'refuse' });
    expect(refused.status).toBe(409);
    const replay = await charge(token, refusedKey, { amount: 50, outcome: 'refuse' });
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual(refused.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(calls - before).toBe(3);
    await assertMoneyInvariants(t.app);
  });

  it('lets the same request take over a key left running for more than a minute', async () => {
    const { user, token } = await createSignedIn(t.app);
    const key = newKey();
    expect((await charge(token, key, { amount: 70 })).status).toBe(201);
    // What a process that died mid-request leaves behind: the key still running, no answer.
    await t.app.ctx.db.execute(sql`update idempotency_keys set state = 'running', status_code = null, response_body = null
                                   where user_id = ${user.id} and key = ${key}`);
    expect((await charge(token, key, { amount: 70 })).status).toBe(409);
    t.clock.advance(61_000);
    // Still bound to its request: another body is refused, the same one runs again, once.
    expect((await charge(token, key, { amount: 71 })).status).toBe(422);
    const before = calls;
    const taken = await charge(token, key, { amount: 70 });
    expect(taken.status).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(calls - before).toBe(1);
    expect((await charge(token, key, { amount: 70 })).headers['idempotent-replayed']).toBe('true');
  });

  it('forgets keys after 24 hours, and the purge job deletes them', async () => {
    // The purge deletes every expired key of the database, and test files share it on PostgreSQL:
    // this test starts two days in the past, so the purge at its end runs at about the real time and
    // finds expired only the keys made here, never another file's live ones.
    t.clock.advance(Date.now() - 48 * 3600_000 - t.clock.now().getTime());
    const { user, token } = await createSignedIn(t.app);
    const key = newKey();
    const first = await charge(token, key, { amount: 80 });
    t.clock.advance(24 * 3600_000 + 1000);
    // Access tokens live 15 minutes: a new sign-in, a day later.
    const { accessToken } = await t.app.services.auth.signIn(user, {});
    // Expired keys are ignored when read: the same key now starts a new request.
    const later = await charge(accessToken, key, { amount: 81 });
    expect(later.status).toBe(201);
    expect(later.body.data.orderId).not.toBe(first.body.data.orderId);
    const other = newKey();
    expect((await charge(accessToken, other, { amount: 82 })).status).toBe(201);
    t.clock.advance(24 * 3600_000 + 1000);
    await t.app.ctx.jobs.send(PURGE_JOB, {});
    await t.app.jobs.drain();
    expect(await rows(t.app.ctx.db, sql`select key from idempotency_keys where user_id = ${user.id}`)).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['not ASCII', 'clé'],
  ])('refuses a key that is %s (400 on headers.idempotency-key)', async (_name, key) => {
    const { token } = await createSignedIn(t.app);
    const before = calls;
    const r = await charge(token, key, { amount: 10 });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ field: 'headers.idempotency-key', message: expect.any(String) }]);
    expect(calls).toBe(before);
  });

  it('checks access and the body before the key: those refusals hold no key', async () => {
    const key = newKey();
    expect((await charge('not-a-token', key, { amount: 10 })).status).toBe(401);
    const { token } = await createSignedIn(t.app);
    expect((await charge(token, key, { amount: -1 })).status).toBe(400);
    expect((await charge(token, key, { amount: 10 })).status).toBe(201);
  });
});

describe('Idempotency-Key claimed in the business transaction', () => {
  const chargeTx = (token: string, key: string, body: object) => charge(token, key, body, '/test/charges-tx');
  const keyRow = async (key: string) =>
    (
      await rows<{ state: string; status_code: number | null }>(
        t.app.ctx.db,
        sql`select state, status_code from idempotency_keys where key = ${key}`,
      )
    )[0];

  it('commits the key with the effect: 20 requests at once post once, the others replay or get 409', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = committed;
    const answers = await Promise.all(Array.from({ length: 20 }, () => chargeTx(token, key, { amount: 310 })));
    expect(committed - before).toBe(1);
    const ran = onlyOneRan(answers);
    expect(await escrowOf(ran.body.data.orderId)).toBe(-310);
    const again = await chargeTx(token, key, { amount: 310 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(ran.headers.location);
    expect((await chargeTx(token, key, { amount: 311 })).status).toBe(422);
    expect(await keyRow(key)).toEqual({ state: 'done', status_code: 201 });
  });

  it('leaves no key after a 5xx (rolled back with the effect); stores a refusal and replays it', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = committed;
    expect((await chargeTx(token, key, { amount: 60, outcome: 'crash' })).status).toBe(500);
    expect(await keyRow(key)).toBeUndefined();
    expect((await chargeTx(token, key, { amount: 60 })).status).toBe(201);
    expect(committed - before).toBe(1);

    const refusedKey = newKey();
    const refused = await chargeTx(token, refusedKey, { amount: 60, outcome: 'refuse' });
    expect(refused.status).toBe(409);
    expect(await keyRow(refusedKey)).toEqual({ state: 'done', status_code: 409 });
    const replay = await chargeTx(token, refusedKey, { amount: 60, outcome: 'refuse' });
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(refused.body);
    expect(committed - before).toBe(1);
    await assertMoneyInvariants(t.app);
  });

  it('runs again, once, with a key that expired', async () => {
    const { user, token } = await createSignedIn(t.app);
    const key = newKey();
    const first = await chargeTx(token, key, { amount: 90 });
    t.clock.advance(24 * 3600_000 + 1000);
    const { accessToken } = await t.app.services.auth.signIn(user, {});
    const before = committed;
    const later = await chargeTx(accessToken, key, { amount: 91 });
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.orderId).not.toBe(first.body.data.orderId);
    expect(committed - before).toBe(1);
    const replay = await chargeTx(accessToken, key, { amount: 91 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(later.body);
  });
});

describe('Idempotency-Key answered in the business transaction', () => {
  const chargeAnswered = (token: string, key: string, body: object) =>
    charge(token, key, body, '/test/charges-answered');
  const keyRow = async (key: string) =>
    (
      await rows<{ state: string; response_body: string | null; response_headers: Record<string, string> }>(
        t.app.ctx.db,
        sql`select state, response_body, response_headers from idempotency_keys where key = ${key}`,
      )
    )[0];

  it('stores the answer with the effect: the answer sent is the one replayed, 20 requests at once post once', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = committed;
    const answers = await Promise.all(Array.from({ length: 20 }, () => chargeAnswered(token, key, { amount: 320 })));
    expect(committed - before).toBe(1);
    const ran = onlyOneRan(answers);
    const row = await keyRow(key);
    expect(row?.state).toBe('done');
    expect(JSON.parse(row!.response_body!)).toEqual(ran.body);
    expect(row?.response_headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      location: ran.headers.location,
    });
    const again = await chargeAnswered(token, key, { amount: 320 });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.body).toEqual(ran.body);
    expect(again.headers.location).toBe(ran.headers.location);
    expect(await escrowOf(ran.body.data.orderId)).toBe(-320);
  });

  it('loses the answer with the effect when the transaction fails after it: a retry runs again', async () => {
    const { token } = await createSignedIn(t.app);
    const key = newKey();
    const before = committed;
    expect((await chargeAnswered(token, key, { amount: 61, outcome: 'crash' })).status).toBe(500);
    expect(await keyRow(key)).toBeUndefined();
    const retried = await chargeAnswered(token, key, { amount: 61 });
    expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(committed - before).toBe(1);
    await assertMoneyInvariants(t.app);
  });
});

describe('the OpenAPI document', () => {
  it('describes the header and the 409 and 422 answers of routes taking a key', async () => {
    const doc = (await call(t.app, 'GET', '/openapi.json')).body;
    const op = doc.paths['/api/v1/test/charges'].post;
    expect(op.parameters).toContainEqual(
      expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }),
    );
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
  });
});
