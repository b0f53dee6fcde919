import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { ownPostgres, ownPostgresUnavailable, type OwnPostgres } from './helpers/postgres-server.js';

// The PostgreSQL server stopped under a running app, then started again. The server is the test's
// own (the run's shared one is never stopped), so this runs on both passes of the suite.

const unavailable = ownPostgresUnavailable();
if (unavailable) console.warn(`database-outage.test.ts skipped: ${unavailable}`);

const UNREACHABLE = 'database unreachable: requests answer 503 until it is back';
const BACK = 'database reachable again';

/** Polls until `done` holds: a liveness bound for what the app does on its own (reconnect, probe). */
async function eventually(what: string, done: () => Promise<boolean> | boolean, boundMs = 30_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(unavailable)('a database outage under a running server', () => {
  let pg: OwnPostgres;
  let t: TestApp;
  const logs: { msg: string; level: number; failedRequests?: number }[] = [];
  const said = (msg: string) => logs.filter((l) => l.msg === msg).length;

  beforeAll(async () => {
    pg = await ownPostgres();
    t = await buildTestApp(
      { DATABASE_URL: pg.url, LOG_LEVEL: 'warn' },
      { write: (line) => void logs.push(JSON.parse(line)) },
    );
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    pg?.remove();
  }, 60_000);

  const title = 'answers 503 with Retry-After when stopped (%s), says so once, and serves again once restarted';
  it.each(['fast', 'immediate'] as const)(
    title,
    async (mode) => {
      const { user, token } = await createSignedIn(t.app);
      const me = () => call(t.app, 'GET', '/auth/me', { token });
      const login = () =>
        call(t.app, 'POST', '/auth/login', { body: { phoneNumber: user.phoneNumber, password: user.password } });
      expect((await me()).status).toBe(200);
      expect((await login()).status).toBe(200);
      const [before, backBefore] = [said(UNREACHABLE), said(BACK)];

      pg.stop(mode);
      try {
        for (const res of [await me(), await login(), await me(), await login(), await me()]) {
          expect(res.status).toBe(503);
          expect(res.headers['retry-after']).toBe('5');
          expect(res.body.error).toEqual({
            code: 'SERVICE_UNAVAILABLE',
            message: 'The database cannot be reached; try again shortly',
          });
        }
        expect(said(UNREACHABLE) - before, 'one warning for the outage, not one per request').toBe(1);
        expect(
          logs.filter((l) => l.level >= 50),
          'no error lines',
        ).toEqual([]);
      } finally {
        // Started again whatever failed above, so the next case has its database.
        pg.start();
      }
      await eventually('GET /auth/me answers 200 again', async () => (await me()).status === 200);
      expect((await login()).status).toBe(200);
      await eventually('the end of the outage is logged', () => said(BACK) > backBefore);
      expect(said(BACK) - backBefore).toBe(1);
      expect(said(UNREACHABLE) - before).toBe(1);
      expect(logs.filter((l) => l.msg === BACK).at(-1)!.failedRequests).toBeGreaterThanOrEqual(5);
    },
    120_000,
  );
});
