import { jwtVerify, SignJWT } from 'jose';
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

/**
 * HS256 only, each token type with its own secret and a `typ` claim, so neither a token of the
 * other type nor one signed with another algorithm (`none` included) is ever accepted.
 */
export class Tokens {
  private readonly keys: Record<TokenType, Uint8Array>;
  private readonly ttl: Record<TokenType, number>;

  constructor(
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    const enc = new TextEncoder();
    this.keys = { access: enc.encode(config.JWT_ACCESS_SECRET), refresh: enc.encode(config.JWT_REFRESH_SECRET) };
    this.ttl = { access: config.ACCESS_TOKEN_TTL_SECONDS, refresh: config.REFRESH_TOKEN_TTL_SECONDS };
  }

  ttlSeconds(typ: TokenType): number {
    return this.ttl[typ];
  }

  sign(claims: TokenClaims): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const jwt = new SignJWT({ sid: claims.sid, typ: claims.typ })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer(this.config.JWT_ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttl[claims.typ]);
    if (claims.jti) jwt.setJti(claims.jti);
    return jwt.sign(this.keys[claims.typ]);
  }

  async verify(token: string, typ: TokenType): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.keys[typ], {
        algorithms: ['HS256'],
        issuer: this.config.JWT_ISSUER,
        audience: AUDIENCE,
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      if (payload.typ !== typ || typeof payload.sid !== 'string') throw new Error('wrong token type');
      return { sub: payload.sub!, sid: payload.sid, typ, jti: payload.jti };
    } catch {
      throw unauthenticated('The token is invalid or has expired');
    }
  }
}
