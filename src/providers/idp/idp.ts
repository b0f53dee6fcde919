import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';

export interface IdpIdentity {
  provider: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  givenName?: string;
  familyName?: string;
}

export interface IdentityProvider {
  verify(idToken: string): Promise<IdpIdentity>;
}

export class InvalidIdToken extends Error {}
export class IdpUnavailable extends Error {}

/** OpenID Connect ID tokens checked against the provider's published keys (JWKS). */
export class JwksIdentityProvider implements IdentityProvider {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  constructor(
    jwksUrl: string,
    private readonly issuer: string,
    private readonly audience: string,
    private readonly clock: Clock,
  ) {
    this.keys = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
  }

  async verify(idToken: string): Promise<IdpIdentity> {
    try {
      const { payload } = await jwtVerify(idToken, this.keys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: ['RS256', 'ES256'],
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
      return {
        provider: this.issuer,
        subject: payload.sub!,
        email: str(payload.email)?.toLowerCase(),
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
        givenName: str(payload.given_name),
        familyName: str(payload.family_name),
      };
    } catch (err) {
      // A token we can judge is invalid; a key set we cannot reach is the provider's outage.
      if (err instanceof errors.JOSEError && !(err instanceof errors.JWKSTimeout))
        throw new InvalidIdToken(err.message);
      throw new IdpUnavailable(err instanceof Error ? err.message : 'identity provider unreachable');
    }
  }
}

export function createIdentityProvider(config: Config, clock: Clock): IdentityProvider | null {
  if (!config.IDP_JWKS_URL || !config.IDP_ISSUER || !config.IDP_AUDIENCE) return null;
  return new JwksIdentityProvider(config.IDP_JWKS_URL, config.IDP_ISSUER, config.IDP_AUDIENCE, clock);
}
