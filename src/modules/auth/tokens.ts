import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';
import { unauthenticated } from '../../shared/errors.js';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  sub: string;
  sid: string;
  typ: TokenType;
  jti?: string;
}

const AUDIENCE = 'foodsave-api';
// The only header this service issues or accepts: anything else (alg "none", RS256 with our
// secret as a "public key", ...) fails the byte comparison before any signature work.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * The service's own JWTs: HS256 with a separate secret per token type and a `typ` claim, so a
 * token of the other type is never accepted. Written on node:crypto rather than a general JWT
 * library because every authenticated request verifies one, and a synchronous HMAC costs a
 * tenth of the generic WebCrypto path (see docs/benchmarks.md).
 */
export class Tokens {
  private readonly secrets: Record<TokenType, string>;
  private readonly ttl: Record<TokenType, number>;

  constructor(
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.secrets = { access: config.JWT_ACCESS_SECRET, refresh: config.JWT_REFRESH_SECRET };
    this.ttl = { access: config.ACCESS_TOKEN_TTL_SECONDS, refresh: config.REFRESH_TOKEN_TTL_SECONDS };
  }

  ttlSeconds(typ: TokenType): number {
    return this.ttl[typ];
  }

  private mac(typ: TokenType, data: string): Buffer {
    return createHmac('sha256', this.secrets[typ]).update(data).digest();
  }

  sign(claims: TokenClaims): string {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const payload = {
      sub: claims.sub,
      sid: claims.sid,
      typ: claims.typ,
      ...(claims.jti ? { jti: claims.jti } : {}),
      iss: this.config.JWT_ISSUER,
      aud: AUDIENCE,
      iat,
      exp: iat + this.ttl[claims.typ],
    };
    const data = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${data}.${this.mac(claims.typ, data).toString('base64url')}`;
  }

  verify(token: string, typ: TokenType): TokenClaims {
    const claims = this.check(token, typ);
    if (!claims) throw unauthenticated('The token is invalid or has expired');
    return claims;
  }

  private check(token: string, typ: TokenType): TokenClaims | null {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return null;
    const given = Buffer.from(parts[2]!, 'base64url');
    const expected = this.mac(typ, `${parts[0]}.${parts[1]}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let p: Record<string, unknown>;
    try {
      p = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
    const now = this.clock.now().getTime() / 1000;
    if (typeof p.exp !== 'number' || p.exp <= now || typeof p.iat !== 'number') return null;
    if (p.typ !== typ || p.iss !== this.config.JWT_ISSUER || p.aud !== AUDIENCE) return null;
    if (typeof p.sub !== 'string' || typeof p.sid !== 'string') return null;
    return { sub: p.sub, sid: p.sid, typ, jti: typeof p.jti === 'string' ? p.jti : undefined };
  }
}
