import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../db/client.js';
import type { EmailMessage, EmailSender } from '../providers/email/email.js';
import type { SmsSender } from '../providers/sms/sms.js';
import type { Jobs } from './queue.js';

export const SMS_JOB = 'sms.send';
export const EMAIL_JOB = 'email.send';

/**
 * SMS and email leave through the job queue: enqueued in the transaction that decided to send them
 * (nothing goes out for a rolled-back request, nothing is lost when the process dies after commit),
 * retried with backoff while the gateway fails.
 */
export interface Messages {
  sms(tx: Executor, to: string, text: string): Promise<void>;
  email(tx: Executor, message: EmailMessage): Promise<void>;
}

/**
 * Job payloads that hold secrets (one-time codes, invitation codes) are sealed with AES-256-GCM:
 * the job tables keep rows for days after completion, and a code must not sit there readable.
 */
export class PayloadSealer {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHash('sha256').update(`job-payloads:${secret}`).digest();
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open<T>(sealed: string): T {
    if (!sealed.startsWith('v1.')) throw new Error('unknown sealed payload version');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as T;
  }
}

interface SealedJob {
  sealed: string;
}

// Gateways recover within minutes; one-time codes live ten. Six tries with backoff from 5 s span
// about 5 to 10 minutes.
const RETRIES = { retryLimit: 6, retryDelaySeconds: 5, concurrency: 2 };

export function createMessages(
  jobs: Jobs,
  senders: { sms: SmsSender; email: EmailSender },
  sealer: PayloadSealer,
): Messages {
  jobs.work(
    SMS_JOB,
    async (job: SealedJob) => {
      const { to, text } = sealer.open<{ to: string; text: string }>(job.sealed);
      await senders.sms.send(to, text);
    },
    RETRIES,
  );
  jobs.work(
    EMAIL_JOB,
    async (job: SealedJob) => {
      await senders.email.send(sealer.open<EmailMessage>(job.sealed));
    },
    RETRIES,
  );
  return {
    async sms(tx, to, text) {
      await jobs.send(SMS_JOB, { sealed: sealer.seal({ to, text }) } satisfies SealedJob, { tx });
    },
    async email(tx, message) {
      await jobs.send(EMAIL_JOB, { sealed: sealer.seal(message) } satisfies SealedJob, { tx });
    },
  };
}
