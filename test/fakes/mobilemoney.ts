import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const MOBILEMONEY_API_KEY = 'wave_sn_prod_test_key';
export const MOBILEMONEY_WEBHOOK_SECRET = 'wave_sn_WHS_test_secret';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  idempotencyKey?: string;
  body: unknown;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type WireSession = Record<string, unknown> & { id: string; checkout_status: string; payment_status: string };
type WirePayout = Record<string, unknown> & { id: string; status: string };

/**
 * A mobile-money provider speaking the checkout-session protocol (Wave's Checkout and Payout APIs)
 * on 127.0.0.1: sessions, expire, refund, payouts, Bearer key and Idempotency-Key checks. Tests
 * script outages (`failNext`, `hangNext`), pay or fail sessions and have it sign and post webhooks.
 */
export class FakeMobileMoney {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, WireSession & { refunded?: boolean }>();
  readonly payouts = new Map<string, WirePayout>();
  apiKey = MOBILEMONEY_API_KEY;
  webhookSecret = MOBILEMONEY_WEBHOOK_SECRET;
  /** Session lifetime the fake gives (the provider's is 30 minutes). */
  sessionMinutes = 30;
  private readonly idempotent = new Map<string, { hash: string; answer: Answer }>();
  // Scripted answers, each for any path or for one path only.
  private readonly script: { answer: Answer | 'hang'; path?: string; carriedOut?: boolean; onHeld?: () => void }[] = [];
  private readonly hanging = new Set<() => void>();
  private server?: Server;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const answer = this.handle(req, raw);
        if (answer === 'hang') {
          const release = () => res.destroy();
          this.hanging.add(release);
          res.on('close', () => this.hanging.delete(release));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /**
   * The next `count` API calls (to `path` only, when given) answer `answer` (default 500) instead of
   * being carried out. With a path, calls the app's background jobs make meanwhile (a reconciliation
   * run by cron asking for a session) do not use up the outage scripted for another call.
   */
  failNext(
    count = 1,
    answer: Answer = { status: 500, body: { code: 'internal-server-error', message: 'Internal server error' } },
    path?: string,
  ): void {
    for (let i = 0; i < count; i++) this.script.push({ answer, path });
  }

  /** The next `count` API calls (to `path` only, when given) never get an answer (until close). */
  hangNext(count = 1, path?: string): void {
    for (let i = 0; i < count; i++) this.script.push({ answer: 'hang', path });
  }

  /**
   * The next call to `path` is held: never answered (until close). `carriedOut`: the provider does the
   * work first (a session opened, its answer kept for its Idempotency-Key) and only the answer is lost.
   * `onHeld` runs the moment the call is held, so that a test acts while the caller waits for it.
   */
  holdNext(path: string, opts: { carriedOut?: boolean; onHeld?: () => void } = {}): void {
    this.script.push({ answer: 'hang', path, ...opts });
  }

  /** The client paid: the session is complete and succeeded. Returns the session object. */
  complete(sessionId: string, at = new Date()): WireSession {
    const s = this.session(sessionId);
    Object.assign(s, {
      checkout_status: 'complete',
      payment_status: 'succeeded',
      transaction_id: `TCN${randomUUID().slice(0, 8).toUpperCase()}`,
      when_completed: at.toISOString(),
      last_payment_error: null,
    });
    return s;
  }

  /** A payment attempt failed: the session stays open, with the error. */
  fail(
    sessionId: string,
    error = { code: 'insufficient-funds', message: 'The payer does not have enough money' },
  ): WireSession {
    const s = this.session(sessionId);
    Object.assign(s, { payment_status: 'processing', last_payment_error: error });
    return s;
  }

  /** Pays the session and posts the signed `checkout.session.completed` to `url`. */
  completeAndNotify(sessionId: string, url: string): Promise<{ status: number; body: string }> {
    return this.sendWebhook(url, this.event('checkout.session.completed', this.complete(sessionId)));
  }

  /** Fails an attempt on the session and posts the signed `checkout.session.payment_failed` to `url`. */
  failAndNotify(sessionId: string, url: string): Promise<{ status: number; body: string }> {
    return this.sendWebhook(url, this.event('checkout.session.payment_failed', this.fail(sessionId)));
  }

  /** Settles the payout and posts the signed `payout.completed` / `payout.failed` to `url`. */
  settlePayoutAndNotify(
    payoutId: string,
    status: 'succeeded' | 'failed',
    url: string,
  ): Promise<{ status: number; body: string }> {
    return this.sendWebhook(
      url,
      this.event(status === 'succeeded' ? 'payout.completed' : 'payout.failed', this.settlePayout(payoutId, status)),
    );
  }

  /** The session's time ran out. */
  expire(sessionId: string): WireSession {
    return Object.assign(this.session(sessionId), { checkout_status: 'expired', payment_status: 'cancelled' });
  }

  settlePayout(
    payoutId: string,
    status: 'succeeded' | 'failed',
    error = { error_code: 'recipient-not-found', error_message: 'No wallet with this number' },
  ): WirePayout {
    const p = this.payouts.get(payoutId);
    if (!p) throw new Error(`no payout ${payoutId}`);
    return Object.assign(p, { status, payout_error: status === 'failed' ? error : null });
  }

  /** An event as the provider builds it. */
  event(
    type: string,
    data: unknown,
    id = `EV_${randomUUID().replace(/-/g, '')}`,
  ): { id: string; type: string; data: unknown } {
    return { id, type, data: structuredClone(data) };
  }

  /** `Wave-Signature` for `raw` (several secrets: one v1 each, as during a rotation). */
  sign(raw: string, unixSeconds = Math.floor(Date.now() / 1000), secrets = [this.webhookSecret]): string {
    const v1 = secrets.map((s) => `v1=${createHmac('sha256', s).update(`${unixSeconds}${raw}`).digest('hex')}`);
    return [`t=${unixSeconds}`, ...v1].join(',');
  }

  /** Signs and posts `event` to `url` as the provider's webhook does; answers the status and body. */
  async sendWebhook(
    url: string,
    event: unknown,
    opts: { unixSeconds?: number; secrets?: string[]; signature?: string } = {},
  ): Promise<{ status: number; body: string }> {
    const raw = JSON.stringify(event);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'wave-signature': opts.signature ?? this.sign(raw, opts.unixSeconds, opts.secrets),
      },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  }

  /** Requests to `path` (exact) or whose path starts with it when `prefix`. */
  calls(path: string, prefix = false): RecordedRequest[] {
    return this.requests.filter((r) => (prefix ? r.path.startsWith(path) : r.path === path));
  }

  private session(id: string): WireSession {
    const s = this.sessions.get(id);
    if (!s) throw new Error(`no session ${id}`);
    return s;
  }

  private handle(req: IncomingMessage, raw: string): Answer | 'hang' {
    const path = (req.url ?? '').split('?')[0]!;
    const method = req.method ?? 'GET';
    const idempotencyKey = header(req, 'idempotency-key');
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      return { status: 400, body: { code: 'request-validation-error', message: 'Body is not JSON' } };
    }
    this.requests.push({ method, path, authorization: header(req, 'authorization'), idempotencyKey, body });
    const scripted = this.script.findIndex((x) => x.path === undefined || x.path === path);
    if (scripted < 0) return this.serve(req, method, path, body, idempotencyKey);
    const { answer, carriedOut, onHeld } = this.script.splice(scripted, 1)[0]!;
    if (carriedOut) this.serve(req, method, path, body, idempotencyKey);
    onHeld?.();
    return answer;
  }

  private serve(
    req: IncomingMessage,
    method: string,
    path: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Answer {
    if (header(req, 'authorization') !== `Bearer ${this.apiKey}`) {
      return {
        status: 401,
        body: { code: 'missing-auth-header', message: 'Authorization header is missing or invalid' },
      };
    }
    const needsKey =
      method === 'POST' && (path === '/v1/checkout/sessions' || path === '/v1/payout' || path.endsWith('/refund'));
    if (needsKey && !idempotencyKey)
      return { status: 400, body: { code: 'request-validation-error', message: 'Idempotency-Key header is required' } };
    if (!needsKey || !idempotencyKey) return this.route(method, path, body);
    // Same key, same request: the first answer again; same key, another request: refused.
    const slot = `${path} ${idempotencyKey}`;
    const hash = JSON.stringify(body ?? null);
    const seen = this.idempotent.get(slot);
    if (seen)
      return seen.hash === hash
        ? seen.answer
        : {
            status: 422,
            body: { code: 'idempotency-mismatch', message: 'Idempotency-Key reused with another request' },
          };
    const answer = this.route(method, path, body);
    if (answer.status < 500) this.idempotent.set(slot, { hash, answer: structuredClone(answer) });
    return answer;
  }

  private route(method: string, path: string, body: unknown): Answer {
    const b = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(b);
    if (method === 'POST' && path === '/v1/payout') return this.createPayout(b);
    let m = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire|\/refund)?$/.exec(path);
    if (m) {
      const s = this.sessions.get(decodeURIComponent(m[1]!));
      if (!s) return notFound('checkout-session-not-found');
      if (method === 'GET' && !m[2]) return { status: 200, body: s };
      if (method === 'POST' && m[2] === '/expire') {
        if (s.checkout_status !== 'open')
          return {
            status: 409,
            body: { code: 'checkout-session-not-open', message: 'Only an open session can be expired' },
          };
        this.expire(s.id);
        return { status: 200 };
      }
      if (method === 'POST' && m[2] === '/refund') {
        if (s.payment_status !== 'succeeded')
          return {
            status: 409,
            body: { code: 'checkout-refund-failed', message: 'Only a paid session can be refunded' },
          };
        if (s.refunded)
          return { status: 409, body: { code: 'checkout-refund-failed', message: 'Session already refunded' } };
        s.refunded = true;
        return { status: 200 };
      }
    }
    m = /^\/v1\/payout\/([^/]+)$/.exec(path);
    if (m && method === 'GET') {
      const p = this.payouts.get(decodeURIComponent(m[1]!));
      return p ? { status: 200, body: p } : notFound('payout-not-found');
    }
    return notFound('not-found');
  }

  private createSession(b: Record<string, unknown>): Answer {
    const bad = ['amount', 'currency', 'success_url', 'error_url'].find((k) => typeof b[k] !== 'string');
    if (bad || !/^\d+$/.test(String(b.amount))) {
      return {
        status: 400,
        body: {
          code: 'request-validation-error',
          message: 'Request invalid',
          details: [{ loc: [bad ?? 'amount'], msg: 'invalid' }],
        },
      };
    }
    const id = `cos-${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const now = new Date();
    const s: WireSession = {
      id,
      amount: b.amount,
      currency: b.currency,
      client_reference: b.client_reference ?? null,
      checkout_status: 'open',
      payment_status: 'processing',
      business_name: 'FoodSave',
      success_url: b.success_url,
      error_url: b.error_url,
      restrict_payer_mobile: b.restrict_payer_mobile ?? null,
      wave_launch_url: `${this.url}/c/${id}`,
      transaction_id: null,
      when_created: now.toISOString(),
      when_expires: new Date(now.getTime() + this.sessionMinutes * 60_000).toISOString(),
      when_completed: null,
      last_payment_error: null,
    };
    this.sessions.set(id, s);
    return { status: 200, body: s };
  }

  private createPayout(b: Record<string, unknown>): Answer {
    const bad = ['currency', 'receive_amount', 'mobile', 'name'].find((k) => typeof b[k] !== 'string');
    if (bad) return { status: 400, body: { code: 'request-validation-error', message: `${bad} is required` } };
    const p: WirePayout = {
      id: `pt-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      currency: b.currency,
      receive_amount: b.receive_amount,
      fee: '0',
      mobile: b.mobile,
      name: b.name,
      client_reference: b.client_reference ?? null,
      status: 'processing',
      timestamp: new Date().toISOString(),
      payout_error: null,
    };
    this.payouts.set(p.id, p);
    return { status: 200, body: p };
  }

  close(): Promise<void> {
    this.hanging.forEach((release) => release());
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
const notFound = (code: string): Answer => ({ status: 404, body: { code, message: 'Not found' } });
