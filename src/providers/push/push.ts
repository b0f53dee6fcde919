import type { FastifyBaseLogger } from 'fastify';
import { importPKCS8, SignJWT } from 'jose';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';

export interface PushMessage {
  token: string;
  title: string;
  body: string;
  /** FCM carries data values as strings only. */
  data: Record<string, string>;
}

/** `invalid_token`: the provider says the token will never work again; its owner must drop it. */
export type PushOutcome = 'sent' | 'invalid_token';

export interface PushSender {
  send(message: PushMessage): Promise<PushOutcome>;
}

/** A failure worth trying again (429, 5xx, network), after `retryAfterSeconds` when the provider said. */
export class PushRetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Development default: the message goes to the log (the in-app row is stored all the same). */
export class LogPush implements PushSender {
  constructor(private readonly log: FastifyBaseLogger) {}
  async send(message: PushMessage): Promise<PushOutcome> {
    this.log.info({ token: `${message.token.slice(0, 8)}...`, title: message.title }, 'push (log adapter)');
    return 'sent';
  }
}

interface ServiceAccount {
  client_email: string;
  private_key: string;
}

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
// An access token is renewed this long before it expires, so no request carries one about to lapse.
const RENEW_BEFORE_MS = 60_000;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if usable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * FCM HTTP v1. The access token comes from the service account's key by the OAuth2 JWT-bearer
 * grant (RFC 7523) and is reused until shortly before it expires; concurrent sends share one
 * token request.
 */
export class FcmPush implements PushSender {
  private readonly account: ServiceAccount;
  private key?: Promise<CryptoKey>;
  private token?: { value: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly opts: { baseUrl: string; tokenUrl: string; projectId: string; credentials: string },
    private readonly clock: Clock,
  ) {
    this.account = parseCredentials(opts.credentials);
  }

  async send(message: PushMessage): Promise<PushOutcome> {
    const url = `${this.opts.baseUrl.replace(/\/$/, '')}/v1/projects/${encodeURIComponent(this.opts.projectId)}/messages:send`;
    const res = await this.post(url, {
      headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          token: message.token,
          notification: { title: message.title, body: message.body },
          data: message.data,
        },
      }),
    });
    if (res.ok) return 'sent';
    const text = await res.text();
    if (res.status === 401) this.token = undefined; // revoked or expired early: fetch a new one next time
    if (res.status === 429 || res.status >= 500 || res.status === 401) {
      throw new PushRetryableError(
        `FCM answered ${res.status}`,
        parseRetryAfter(res.headers.get('retry-after'), this.clock.now()),
      );
    }
    if (isDeadToken(res.status, text)) return 'invalid_token';
    throw new Error(`FCM answered ${res.status}: ${text.slice(0, 200)}`);
  }

  private async accessToken(): Promise<string> {
    const now = this.clock.now().getTime();
    if (this.token && this.token.expiresAt - RENEW_BEFORE_MS > now) return this.token.value;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    this.key ??= importPKCS8(this.account.private_key, 'RS256');
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(this.account.client_email)
      .setAudience(this.opts.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await this.key);
    const res = await this.post(this.opts.tokenUrl, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    });
    if (!res.ok) {
      const retry = res.status === 429 || res.status >= 500;
      const msg = `FCM token endpoint answered ${res.status}`;
      throw retry
        ? new PushRetryableError(msg, parseRetryAfter(res.headers.get('retry-after'), this.clock.now()))
        : new Error(msg);
    }
    const json = (await res.json()) as { access_token?: string; expires_in?: number };
    if (!json.access_token) throw new Error('FCM token endpoint answered without access_token');
    this.token = { value: json.access_token, expiresAt: this.clock.now().getTime() + (json.expires_in ?? 3600) * 1000 };
    return json.access_token;
  }

  private async post(
    url: string,
    init: { headers: Record<string, string>; body: string | URLSearchParams },
  ): Promise<Response> {
    try {
      return await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      throw new PushRetryableError(`FCM unreachable: ${(err as Error).message}`);
    }
  }
}

/** 404 UNREGISTERED, or 400 INVALID_ARGUMENT about the token itself (not about another field). */
function isDeadToken(status: number, text: string): boolean {
  let body: { error?: { status?: string; details?: { errorCode?: string; fieldViolations?: { field?: string }[] }[] } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return false;
  }
  const details = body.error?.details ?? [];
  const codes = new Set([body.error?.status, ...details.map((d) => d.errorCode)]);
  if (status === 404 && codes.has('UNREGISTERED')) return true;
  if (status === 400 && codes.has('INVALID_ARGUMENT')) {
    return details.some((d) => d.fieldViolations?.some((v) => v.field === 'message.token'));
  }
  return false;
}

export function parseCredentials(json: string): ServiceAccount {
  let parsed: Partial<ServiceAccount>;
  try {
    parsed = JSON.parse(json) as Partial<ServiceAccount>;
  } catch {
    throw new Error('FCM_CREDENTIALS: not JSON');
  }
  if (typeof parsed.client_email !== 'string' || typeof parsed.private_key !== 'string') {
    throw new Error('FCM_CREDENTIALS: needs client_email and private_key (a service-account key file)');
  }
  return { client_email: parsed.client_email, private_key: parsed.private_key };
}

export function createPush(config: Config, log: FastifyBaseLogger, clock: Clock): PushSender {
  if (config.PUSH_PROVIDER === 'fcm') {
    return new FcmPush(
      {
        baseUrl: config.FCM_BASE_URL,
        tokenUrl: config.FCM_TOKEN_URL,
        projectId: config.FCM_PROJECT_ID!,
        credentials: config.FCM_CREDENTIALS!,
      },
      clock,
    );
  }
  return new LogPush(log);
}
