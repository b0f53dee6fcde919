import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentSms {
  to: string;
  from: string;
  body: string;
  authorization: string | undefined;
  path: string;
}

/** An SMS gateway speaking Twilio's Messages REST resource; records what it is sent. */
export class FakeTwilio {
  readonly messages: SentSms[] = [];
  /** Status to answer with; set to 500 to simulate an outage. */
  status = 201;
  private server?: Server;
  private waiters: (() => void)[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(data);
        if (this.status < 300) {
          this.messages.push({
            to: form.get('To') ?? '',
            from: form.get('From') ?? '',
            body: form.get('Body') ?? '',
            authorization: req.headers.authorization,
            path: req.url ?? '',
          });
        }
        res.writeHead(this.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ sid: `SM${this.messages.length}`, status: 'queued' }));
        this.waiters.splice(0).forEach((w) => w());
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The newest message to `to`, waiting up to `timeoutMs` for it. */
  async waitFor(to: string, after = 0, timeoutMs = 5000): Promise<SentSms> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.filter((m) => m.to === to);
      if (found.length > after) return found[found.length - 1]!;
      if (Date.now() > deadline) throw new Error(`no SMS to ${to}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  count(to: string): number {
    return this.messages.filter((m) => m.to === to).length;
  }

  async codeFor(to: string, after = 0): Promise<string> {
    const msg = await this.waitFor(to, after);
    return /\b(\d{6})\b/.exec(msg.body)![1]!;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
