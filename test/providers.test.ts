import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows as rowsOf } from '../src/db/client.js';
import { SmtpEmail } from '../src/providers/email/email.js';
import { TwilioSms } from '../src/providers/sms/sms.js';
import { FakeSmtp } from './fakes/smtp.js';
import { FakeTwilio } from './fakes/twilio.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { uniqueEmail, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

describe('SMS gateway adapter (Twilio protocol)', () => {
  const gateway = new FakeTwilio();
  let url: string;
  beforeAll(async () => {
    url = await gateway.start();
  });
  afterAll(() => gateway.close());

  it('posts the form with basic auth', async () => {
    const sms = new TwilioSms(url, 'AC123', 'secret', '+15005550006');
    const to = uniquePhone();
    await sms.send(to, 'hello');
    const got = await gateway.waitFor(to);
    expect(got).toMatchObject({
      to,
      from: '+15005550006',
      body: 'hello',
      path: '/2010-04-01/Accounts/AC123/Messages.json',
    });
    expect(got.authorization).toBe(`Basic ${Buffer.from('AC123:secret').toString('base64')}`);
  });

  it('reports a gateway error', async () => {
    gateway.status = 500;
    try {
      await expect(new TwilioSms(url, 'AC123', 'secret', '+1500').send(uniquePhone(), 'x')).rejects.toThrow(/500/);
    } finally {
      gateway.status = 201;
    }
  });
});

describe('SMTP adapter', () => {
  it('delivers through an SMTP server', async () => {
    const server = new FakeSmtp();
    const url = await server.start();
    const mail = new SmtpEmail(url, 'FoodSave <no-reply@foodsave.test>');
    try {
      const to = uniqueEmail();
      await mail.send({ to, subject: 'Hi', text: 'Your code is 123456' });
      const got = await server.waitFor(to);
      expect(got.from).toBe('no-reply@foodsave.test');
      expect(got.raw).toContain('Subject: Hi');
    } finally {
      mail.close();
      await server.close();
    }
  });
});

describe('when the SMS gateway is down', () => {
  let t: TestApp;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const stream = { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) };
    t = await buildTestApp({ LOG_LEVEL: 'warn' }, stream);
  });
  afterAll(() => t.close());

  it('still registers the account, and delivers the code once the gateway is back', async () => {
    const phoneNumber = uniquePhone();
    t.sms.status = 503;
    const res = await call(t.app, 'POST', '/auth/register', {
      body: { phoneNumber, password: 'Gateway-Down-12', role: 'CLIENT', firstName: 'A', lastName: 'B' },
    });
    expect(res.status).toBe(201);
    await t.app.jobs.drain();
    expect(t.sms.count(phoneNumber)).toBe(0);
    // The failed try is logged with the job, which waits for its retry.
    const failed = logs.filter((l) => l.msg === 'job failed').map((l) => l.job as { name: string; retryCount: number });
    expect(failed).toContainEqual(expect.objectContaining({ name: 'sms.send', retryCount: 0 }));
    // Still refused a minute later: the second try fails too, and the job keeps waiting.
    t.clock.advance(60_000);
    await t.app.jobs.drain();
    expect(t.sms.count(phoneNumber)).toBe(0);
    t.sms.status = 201;
    t.clock.advance(5 * 60_000);
    await t.app.jobs.drain();
    expect(t.sms.count(phoneNumber)).toBe(1);
    const code = await t.sms.codeFor(phoneNumber);
    const ok = await call(t.app, 'POST', '/auth/verify-otp', { body: { phoneNumber, code, purpose: 'registration' } });
    expect(ok.status).toBe(200);
    // The job tables keep the message sealed: neither the code nor the number is readable there.
    const rows = await rowsOf<{ data: string }>(
      t.app.ctx.db,
      sql.raw(`SELECT data::text AS data FROM ${t.app.ctx.config.JOBS_SCHEMA}.job WHERE name = 'sms.send'`),
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.data).not.toContain(code);
      expect(r.data).not.toContain(phoneNumber.slice(1));
    }
  });
});
