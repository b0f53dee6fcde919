import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
  close(): void;
}

/** Development only (refused in production): the message goes to the log. */
export class LogEmail implements EmailSender {
  constructor(private readonly log: FastifyBaseLogger) {}
  async send(message: EmailMessage): Promise<void> {
    this.log.info(message, 'email (log adapter)');
  }
  close(): void {}
}

export class SmtpEmail implements EmailSender {
  private readonly transport: Transporter;
  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }
  async send(message: EmailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }
  close(): void {
    this.transport.close();
  }
}

export function createEmail(config: Config, log: FastifyBaseLogger): EmailSender {
  return config.EMAIL_PROVIDER === 'smtp' ? new SmtpEmail(config.SMTP_URL!, config.EMAIL_FROM) : new LogEmail(log);
}
