import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';

export interface SmsSender {
  send(to: string, body: string): Promise<void>;
}

/** Development only (refused in production): the message, code included, goes to the log. */
export class LogSms implements SmsSender {
  constructor(private readonly log: FastifyBaseLogger) {}
  async send(to: string, body: string): Promise<void> {
    this.log.info({ to, body }, 'sms (log adapter)');
  }
}

/** Twilio's Messages REST resource: form-encoded POST with HTTP basic auth. */
export class TwilioSms implements SmsSender {
  constructor(
    private readonly baseUrl: string,
    private readonly accountSid: string,
    private readonly authToken: string,
    private readonly from: string,
  ) {}

  async send(to: string, body: string): Promise<void> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(this.accountSid)}/Messages.json`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ To: to, From: this.from, Body: body }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`SMS gateway answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  }
}

export function createSms(config: Config, log: FastifyBaseLogger): SmsSender {
  if (config.SMS_PROVIDER === 'twilio') {
    return new TwilioSms(
      config.TWILIO_BASE_URL,
      config.TWILIO_ACCOUNT_SID!,
      config.TWILIO_AUTH_TOKEN!,
      config.TWILIO_FROM!,
    );
  }
  return new LogSms(log);
}
