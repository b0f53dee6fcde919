import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { buildApp } from '../../src/app.js';
import type { ModuleOptions } from '../../src/modules/module.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { AdjustableClock } from '../../src/shared/clock.js';
import { FakeIdp, IDP_AUDIENCE, IDP_ISSUER } from '../fakes/jwks.js';
import { FakeMobileMoney } from '../fakes/mobilemoney.js';
import { FakeSmtp } from '../fakes/smtp.js';
import { FakeTwilio } from '../fakes/twilio.js';

export const TWILIO_SID = 'ACtest0000000000000000000000000000';
export const TWILIO_TOKEN = 'twilio-test-token';

export interface TestApp {
  app: App;
  clock: AdjustableClock;
  sms: FakeTwilio;
  mail: FakeSmtp;
  idp: FakeIdp;
  /** The payment provider the app talks to (unless the test chose MOBILEMONEY_PROVIDER=sandbox). */
  mobilemoney: FakeMobileMoney;
  close(): Promise<void>;
}

// The migrated embedded database made once per run by test/global-setup.ts, read once per worker.
let template: Promise<Blob | undefined> | undefined;
const migratedTemplate = () =>
  (template ??=
    process.env.TEST_PGLITE_TEMPLATE && !process.env.DATABASE_URL
      ? readFile(process.env.TEST_PGLITE_TEMPLATE).then((b) => new Blob([b]))
      : Promise.resolve(undefined));

/**
 * The real application on the test database (in-memory PGlite, or the PostgreSQL and Redis
 * named by DATABASE_URL / REDIS_URL), with its SMS, email and identity adapters talking to fake
 * servers of those protocols on 127.0.0.1.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  logStream?: { write(line: string): void },
  opts: { beforeStart?: (app: App) => void; role?: 'api' | 'worker'; services?: ModuleOptions } = {},
): Promise<TestApp> {
  const sms = new FakeTwilio();
  const mail = new FakeSmtp();
  const idp = new FakeIdp();
  const mobilemoney = new FakeMobileMoney();
  const [smsUrl, smtpUrl, jwksUrl, mobilemoneyUrl] = await Promise.all([
    sms.start(),
    mail.start(),
    idp.start(),
    mobilemoney.start(),
  ]);
  const clock = new AdjustableClock();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: 'memory://',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    RATE_LIMIT_MAX: '1000000',
    AUTH_RATE_LIMIT_MAX: '1000000',
    SMS_PROVIDER: 'twilio',
    TWILIO_BASE_URL: smsUrl,
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_FROM: '+15005550006',
    EMAIL_PROVIDER: 'smtp',
    SMTP_URL: smtpUrl,
    IDP_JWKS_URL: jwksUrl,
    IDP_ISSUER,
    IDP_AUDIENCE,
    MOBILEMONEY_PROVIDER: 'checkout',
    MOBILEMONEY_BASE_URL: mobilemoneyUrl,
    MOBILEMONEY_API_KEY: mobilemoney.apiKey,
    MOBILEMONEY_WEBHOOK_SECRET: mobilemoney.webhookSecret,
    PUBLIC_BASE_URL: 'http://api.test',
    // Test files share one PostgreSQL database: each app gets a job queue of its own, so one app's
    // workers never take another's jobs (and send its SMS to the wrong fake gateway).
    ...(process.env.DATABASE_URL && { JOBS_SCHEMA: `pgboss_${randomBytes(6).toString('hex')}` }),
    ...env,
  });
  // The migrated copy seeds a new database; a data directory on disk that has files keeps them.
  const fresh =
    config.DATA_DIR.startsWith('memory://') ||
    !existsSync(config.DATA_DIR) ||
    readdirSync(config.DATA_DIR).length === 0;
  const initialData = fresh ? await migratedTemplate() : undefined;
  const app = await buildApp({ config, clock, logStream, initialData, role: opts.role, services: opts.services });
  // Job handlers of a test are registered before the queue starts, as the app's own are.
  opts.beforeStart?.(app);
  await app.ready();
  return {
    app,
    clock,
    sms,
    mail,
    idp,
    mobilemoney,
    async close() {
      await app.close();
      await Promise.all([sms.close(), mail.close(), idp.close(), mobilemoney.close()]);
    },
  };
}
