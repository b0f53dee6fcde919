import { exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FCM_PROJECT = 'foodsave-test';
export const FCM_CLIENT_EMAIL = 'push@foodsave-test.iam.gserviceaccount.com';

export interface SentPush {
  token: string;
  title: string;
  body: string;
  data: Record<string, string>;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const UNREGISTERED: Answer = {
  status: 404,
  body: {
    error: {
      code: 404,
      message: 'Requested entity was not found.',
      status: 'NOT_FOUND',
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
    },
  },
};
export const INVALID_TOKEN: Answer = {
  status: 400,
  body: {
    error: {
      code: 400,
      message: 'The registration token is not a valid FCM registration token',
      status: 'INVALID_ARGUMENT',
      details: [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }],
        },
      ],
    },
  },
};

/**
 * Google's OAuth2 token endpoint (JWT-bearer grant, the assertion's RS256 signature checked with
 * the service account's public key) and FCM HTTP v1 `messages:send`, on one 127.0.0.1 server.
 */
export class FakeFcm {
  readonly sent: SentPush[] = [];
  /** Token requests answered (a cached access token means no new one). */
  tokenRequests = 0;
  /** Rejected assertions or access tokens, with the reason. */
  readonly refusals: string[] = [];
  /** Lifetime of the access tokens handed out. */
  expiresIn = 3600;
  /** Answers to give, per device token, in order; a token without one is accepted. */
  readonly script = new Map<string, Answer[]>();
  private readonly accessTokens = new Set<string>();
  private publicKey?: CryptoKey;
  private privatePem?: string;
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    this.publicKey = publicKey;
    this.privatePem = await exportPKCS8(privateKey);
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        void this.handle(req.url ?? '', req.headers.authorization, raw).then(({ status, body, headers }) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body ?? {}));
        });
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  /** The service-account key file the application is configured with. */
  credentials(): string {
    return JSON.stringify({
      type: 'service_account',
      project_id: FCM_PROJECT,
      client_email: FCM_CLIENT_EMAIL,
      private_key: this.privatePem,
    });
  }

  /** Forgets every access token handed out (as if they had been revoked). */
  revokeAccessTokens(): void {
    this.accessTokens.clear();
  }

  to(token: string): SentPush[] {
    return this.sent.filter((m) => m.token === token);
  }

  /** Waits up to 10 s until `count` messages reached `token`. */
  async waitFor(token: string, count = 1): Promise<SentPush[]> {
    const deadline = Date.now() + 10_000;
    while (this.to(token).length < count) {
      if (Date.now() > deadline) throw new Error(`no push to ${token}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.to(token);
  }

  private async handle(path: string, authorization: string | undefined, raw: string): Promise<Answer> {
    if (path === '/token') return this.grant(raw);
    if (path === `/v1/projects/${FCM_PROJECT}/messages:send`) {
      const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      if (!bearer || !this.accessTokens.has(bearer)) {
        this.refusals.push('unknown access token');
        return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED' } } };
      }
      const { message } = JSON.parse(raw) as {
        message: { token: string; notification: { title: string; body: string }; data: Record<string, string> };
      };
      const answer = this.script.get(message.token)?.shift();
      if (answer) return answer;
      this.sent.push({
        token: message.token,
        title: message.notification.title,
        body: message.notification.body,
        data: message.data,
      });
      return { status: 200, body: { name: `projects/${FCM_PROJECT}/messages/${randomUUID()}` } };
    }
    return { status: 404, body: { error: 'not found' } };
  }

  private async grant(raw: string): Promise<Answer> {
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      this.refusals.push('grant_type');
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    try {
      const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', this.publicKey!, {
        issuer: FCM_CLIENT_EMAIL,
        audience: this.tokenUrl,
        algorithms: ['RS256'],
        requiredClaims: ['iat', 'exp'],
      });
      if (protectedHeader.alg !== 'RS256' || payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging')
        throw new Error('scope');
      if ((payload.exp ?? 0) - (payload.iat ?? 0) > 3600) throw new Error('lifetime over an hour');
    } catch (err) {
      this.refusals.push(`assertion: ${(err as Error).message}`);
      return { status: 400, body: { error: 'invalid_grant' } };
    }
    this.tokenRequests += 1;
    const accessToken = `ya29.${randomUUID()}`;
    this.accessTokens.add(accessToken);
    return { status: 200, body: { access_token: accessToken, expires_in: this.expiresIn, token_type: 'Bearer' } };
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
