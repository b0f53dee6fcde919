import type { App } from '../../http/types.js';
import { defineModule } from '../module.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService, type AuthService } from './auth.service.js';
import { consoleSessionRoutes } from './console-session.routes.js';
import { createIdpService } from './idp.service.js';
import { createOtpService } from './otp.service.js';
import { createSessionsService, type SessionsService } from './sessions.service.js';

/** Sign-in, tokens and sessions, one-time codes, the identity provider, the console's session. */
export interface AuthApi {
  signIn: AuthService['signIn'];
  sessions: Pick<SessionsService, 'authenticate' | 'onRevoked' | 'open' | 'revoke'>;
}

declare module '../module.js' {
  interface ModuleApis {
    auth: AuthApi;
  }
}

export const authModule = defineModule({
  name: 'auth',
  needs: ['users'],
  build(ctx, { users }) {
    const sessions = createSessionsService(ctx);
    const otp = createOtpService(ctx);
    const auth = createAuthService(ctx, { users, otp, sessions });
    const idp = createIdpService(ctx, { users, auth });
    users.registerAccountHooks({
      endSessions: (tx, userId, reason) => sessions.revokeAllForUser(tx, userId, reason),
      hasOpenRegistrationCode: (ex, phoneNumber, userId) =>
        otp.hasOpenCode(ex, { channel: 'sms', destination: phoneNumber, purpose: 'registration' }, userId),
    });
    const routes = async (app: App) => {
      await app.register(authRoutes(auth, idp, ctx.config.AUTH_RATE_LIMIT_MAX));
      await app.register(consoleSessionRoutes(auth, ctx.config));
    };
    return { api: Object.assign(auth, { sessions, otp, idp }), routes };
  },
});
