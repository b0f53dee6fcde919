import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const IDP_ISSUER = 'https://idp.test';
export const IDP_AUDIENCE = 'foodsave-mobile';

/** An identity provider: publishes a JWKS on 127.0.0.1 and signs ID tokens with its key. */
export class FakeIdp {
  private server?: Server;
  private key?: CryptoKey;
  private jwk?: JWK;

  async start(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.key = privateKey;
    this.jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    this.server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [this.jwk] }));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  /** An ID token; `overrides` can change any claim, `key` signs with another (unpublished) key. */
  async token(
    claims: Record<string, unknown>,
    opts: { key?: CryptoKey; expiresIn?: string; issuer?: string; audience?: string } = {},
  ) {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(opts.issuer ?? IDP_ISSUER)
      .setAudience(opts.audience ?? IDP_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(opts.expiresIn ?? '10m')
      .sign(opts.key ?? this.key!);
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
