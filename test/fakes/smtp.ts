import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SentMail {
  to: string[];
  from: string;
  raw: string;
}

/** An SMTP sink on 127.0.0.1 that keeps every message it accepts. */
export class FakeSmtp {
  readonly messages: SentMail[] = [];
  private server?: SMTPServer;

  async start(): Promise<string> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (c: Buffer) => (raw += c.toString()));
        stream.on('end', () => {
          this.messages.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const { port } = this.server.server.address() as AddressInfo;
    return `smtp://127.0.0.1:${port}`;
  }

  async waitFor(to: string, after = 0): Promise<SentMail> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = this.messages.filter((m) => m.to.includes(to));
      if (found.length > after) return found[found.length - 1]!;
      if (Date.now() > deadline) throw new Error(`no email to ${to}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  count(to: string): number {
    return this.messages.filter((m) => m.to.includes(to)).length;
  }

  async codeFor(to: string, after = 0): Promise<string> {
    const mail = await this.waitFor(to, after);
    return /\b(\d{6})\b/.exec(
      mail.raw
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n'),
    )![1]!;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
