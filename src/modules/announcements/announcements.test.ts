import { and, count, eq, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFcm, FCM_PROJECT } from '../../../test/fakes/fcm.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { createSignedIn, createUser } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { rows } from '../../db/client.js';
import { announcements } from '../../db/schema/announcements.js';
import { notifications } from '../../db/schema/notifications.js';
import { users, type Role } from '../../db/schema/users.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';
import { BATCH_JOB } from './announcements.service.js';

// Announcements to every user reach the users of every other file sharing the database: this
// file has one of its own (on PostgreSQL; the embedded one is the app's own anyway).
const BATCH = 3;
const fcm = new FakeFcm();
let db: PrivateDatabase;
let t: TestApp;
let admin: Awaited<ReturnType<typeof createSignedIn>>;
beforeAll(async () => {
  await fcm.start();
  db = await privateDatabase();
  t = await buildTestApp(
    {
      ...db.env,
      PUSH_PROVIDER: 'fcm',
      FCM_BASE_URL: fcm.url,
      FCM_TOKEN_URL: fcm.tokenUrl,
      FCM_PROJECT_ID: FCM_PROJECT,
      FCM_CREDENTIALS: fcm.credentials(),
    },
    undefined,
    { services: { announcements: { batchSize: BATCH } } },
  );
  admin = await createSignedIn(t.app, { role: 'ADMIN' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await db?.drop();
  await fcm.close();
});

const send = (body: unknown, headers?: Record<string, string>) =>
  call(t.app, 'POST', '/admin/announcements', { token: admin.token, body, headers });
const progress = async (id: string) =>
  (await call(t.app, 'GET', `/admin/announcements/${id}`, { token: admin.token })).body.data;
const announcementsOf = async (userId: string) =>
  t.app.ctx.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.type, 'system_announcement')));
async function cohort(role: Role, n: number) {
  const made = [];
  for (let i = 0; i < n; i++) made.push(await createUser(t.app, { role }));
  return made.sort((a, b) => a.id.localeCompare(b.id));
}
/** The batch jobs of one announcement, oldest first, as the queue recorded them. */
async function batchJobs(announcementId: string) {
  const found = await rows<{ after: string | null; state: string }>(
    t.app.ctx.db,
    sql`select data->>'after' as after, state::text as state from ${sql.raw(t.app.ctx.config.JOBS_SCHEMA)}.job
        where name = ${BATCH_JOB} and data->>'announcementId' = ${announcementId} order by created_on, id`,
  );
  return found.map((r) => ({ after: r.after, state: r.state }));
}

/**
 * Runs the queue until the announcement is sent. A batch that failed (a connection lost under load)
 * waits for its retry, which `drain` leaves for later: the clock is moved to it, once per failure,
 * and the failure is printed so that a run that needed it says why.
 */
async function sendAll(announcementId: string) {
  for (let round = 0; ; round++) {
    await t.app.jobs.drain();
    const now = await progress(announcementId);
    if (now.status === 'SENT' || round === 3) return now;
    const jobs = await rows(
      t.app.ctx.db,
      sql`select data->>'after' as after, state::text as state, retry_count, output from ${sql.raw(t.app.ctx.config.JOBS_SCHEMA)}.job
          where name = ${BATCH_JOB} and data->>'announcementId' = ${announcementId} order by created_on, id`,
    );
    console.warn('announcement not sent after a drain', now, jobs);
    t.clock.advance(10 * 60_000);
  }
}

describe('access and validation', () => {
  it('is for administrators only', async () => {
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const supplier = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const routes: [string, string, unknown?][] = [
      ['POST', '/admin/announcements', { title: 'Maintenance', message: 'Ce soir' }],
      ['GET', '/admin/announcements'],
      ['GET', `/admin/announcements/${uuidv7()}`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(t.app, method, url, { body })).status).toBe(401);
      for (const who of [client, supplier]) {
        const res = await call(t.app, method, url, { token: who.token, body });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    }
    const [made] = await t.app.ctx.db
      .select({ n: count() })
      .from(announcements)
      .where(eq(announcements.title, 'Maintenance'));
    expect(made?.n).toBe(0);
  });

  it('names the field of every bad value', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['body.title', 'body.message']],
      [{ title: '   ', message: 'Ce soir' }, ['body.title']],
      [{ title: 'x'.repeat(101), message: 'Ce soir' }, ['body.title']],
      [{ title: 'Maintenance', message: 'x'.repeat(501) }, ['body.message']],
      [{ title: 'Maintenance', message: 'Ce soir', role: 'KING' }, ['body.role']],
      // Channels follow each user's preferences: an announcement cannot choose them.
      [{ title: 'Maintenance', message: 'Ce soir', channels: ['sms'] }, ['body.channels']],
    ];
    for (const [body, fields] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(fields.sort());
    }
    const page = await call(t.app, 'GET', '/admin/announcements', { token: admin.token, query: { limit: 101 } });
    expect(page.body.error.details[0].field).toBe('query.limit');
    expect(
      (await call(t.app, 'GET', '/admin/announcements/nope', { token: admin.token })).body.error.details[0].field,
    ).toBe('params.id');
    const unknown = await call(t.app, 'GET', `/admin/announcements/${uuidv7()}`, { token: admin.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});

describe('sending', () => {
  it('reaches every active, verified account once, in batches; suspended, deleted and unverified ones are left out', async () => {
    const reached = [...(await cohort('CLIENT', 4)), ...(await cohort('SUPPLIER_FOOD', 1))];
    const left = [
      await createUser(t.app, { status: 'SUSPENDED' }),
      await createUser(t.app, { status: 'DELETED' }),
      await createUser(t.app, { verified: false }),
    ];
    const [active] = await t.app.ctx.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.status, 'ACTIVE'), isNotNull(users.verifiedAt)));
    const reachable = active!.n;

    t.clock.advance(1000);
    const res = await send({ title: 'Maintenance', message: 'Le service sera coupé ce soir de 23 h à minuit.' });
    expect(res.status).toBe(202);
    const queued = res.body.data;
    expect(queued).toEqual({
      id: expect.any(String),
      title: 'Maintenance',
      message: 'Le service sera coupé ce soir de 23 h à minuit.',
      role: null,
      status: 'QUEUED',
      recipients: null,
      sent: 0,
      createdBy: admin.user.id,
      createdAt: expect.any(String),
      finishedAt: null,
    });
    const done = await sendAll(queued.id);
    expect(done).toEqual({
      ...queued,
      status: 'SENT',
      recipients: reachable,
      sent: reachable,
      finishedAt: expect.any(String),
    });
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(Date.parse(queued.createdAt));
    expect((await batchJobs(queued.id)).length).toBe(Math.floor(reachable / BATCH) + 1);
    for (const u of [...reached, admin.user]) {
      const found = await announcementsOf(u.id);
      expect(found, u.id).toHaveLength(1);
      expect(found[0]).toMatchObject({
        category: 'system',
        title: 'Maintenance',
        body: queued.message,
        data: { announcementId: queued.id, title: 'Maintenance', message: queued.message },
      });
    }
    for (const u of left) expect(await announcementsOf(u.id), u.id).toHaveLength(0);

    const [action] = await listAdminActions(t.app.ctx.db, 'announcement', queued.id);
    expect(action).toMatchObject({
      actorId: admin.user.id,
      action: 'announcement.send',
      data: { title: 'Maintenance', role: null },
    });
    const listed = await call(t.app, 'GET', '/admin/announcements', { token: admin.token, query: { limit: 1 } });
    expect(listed.body.data).toEqual([done]);
  });

  it('reaches only the users of the role it names', async () => {
    const dealers = await cohort('SUPPLIER_DEALS', 2);
    const client = await createUser(t.app);
    const res = await send({
      title: 'Bons plans',
      message: 'Nouvelles règles de publication.',
      role: 'SUPPLIER_DEALS',
    });
    expect(res.body.data).toMatchObject({ role: 'SUPPLIER_DEALS', status: 'QUEUED' });
    expect(await sendAll(res.body.data.id)).toMatchObject({ status: 'SENT', recipients: 2, sent: 2 });
    for (const u of dealers) expect(await announcementsOf(u.id)).toHaveLength(1);
    expect(await announcementsOf(client.id)).toHaveLength(0);
  });

  it('goes through the audience batch after batch, by id; a batch run twice notifies nobody twice', async () => {
    const members = await cohort('ASSOCIATION', 7);
    const res = await send({
      title: 'Associations',
      message: 'Les rapports du mois sont attendus.',
      role: 'ASSOCIATION',
    });
    const id = res.body.data.id;
    expect(await sendAll(id)).toMatchObject({ status: 'SENT', recipients: 7, sent: 7 });
    // Each batch started where the one before stopped: after the 3rd and the 6th member by id.
    expect(await batchJobs(id)).toEqual([
      { after: null, state: 'completed' },
      { after: members[2]!.id, state: 'completed' },
      { after: members[5]!.id, state: 'completed' },
    ]);

    // The first and second batches again, as a retry after a lost acknowledgement would run them.
    await t.app.ctx.db.transaction(async (tx) => {
      await t.app.ctx.jobs.send(BATCH_JOB, { announcementId: id, after: null }, { tx });
      await t.app.ctx.jobs.send(BATCH_JOB, { announcementId: id, after: members[2]!.id }, { tx });
    });
    await t.app.jobs.drain();
    expect(await progress(id)).toMatchObject({ status: 'SENT', recipients: 7, sent: 7 });
    expect(await batchJobs(id)).toHaveLength(5);
    for (const u of members) expect(await announcementsOf(u.id)).toHaveLength(1);
  });

  it('sends push, SMS and email as each user chose for system messages', async () => {
    const pushed = await createSignedIn(t.app, { role: 'ADVERTISER' });
    const texted = await createSignedIn(t.app, { role: 'ADVERTISER' });
    for (const u of [pushed, texted]) {
      const token = `fcm-${uuidv7()}`;
      await call(t.app, 'POST', '/notifications/device-token', {
        token: u.token,
        body: { token, platform: 'android' },
      });
      Object.assign(u, { device: token });
    }
    const prefs = await call(t.app, 'PATCH', '/notifications/preferences', {
      token: texted.token,
      body: { channels: { system: { push: false, sms: true } } },
    });
    expect(prefs.status).toBe(200);
    const res = await send({ title: 'Annonceurs', message: 'Nouveaux emplacements disponibles.', role: 'ADVERTISER' });
    expect((await t.sms.waitFor(texted.user.phoneNumber!)).body).toBe(
      'Annonceurs : Nouveaux emplacements disponibles.',
    );
    await fcm.waitFor((pushed as unknown as { device: string }).device);

    expect(await sendAll(res.body.data.id)).toMatchObject({ status: 'SENT', recipients: 2, sent: 2 });
    const push = fcm.to((pushed as unknown as { device: string }).device);
    expect(push).toHaveLength(1);
    expect(push[0]).toMatchObject({ title: 'Annonceurs', body: 'Nouveaux emplacements disponibles.' });
    expect(fcm.to((texted as unknown as { device: string }).device)).toHaveLength(0);
    expect(t.sms.count(pushed.user.phoneNumber!)).toBe(0);
  });

  it('answers a repeated request with the same Idempotency-Key from the first, and sends once', async () => {
    const body = { title: `Rappel ${uuidv7()}`, message: 'Aucun compte concerné.', role: 'SUPER_ADMIN' };
    const key = { 'idempotency-key': `announce-${uuidv7()}` };
    const first = await send(body, key);
    expect(first.status).toBe(202);
    const again = await send(body, key);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const other = await send({ ...body, message: 'Un autre texte.' }, key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const [made] = await t.app.ctx.db
      .select({ n: count() })
      .from(announcements)
      .where(eq(announcements.title, body.title));
    expect(made?.n).toBe(1);

    // Nobody holds the role: sent at once, to no one.
    expect(await sendAll(first.body.data.id)).toMatchObject({ status: 'SENT', recipients: 0, sent: 0 });
  });
});
