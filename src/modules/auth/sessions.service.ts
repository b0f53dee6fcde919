import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { unauthenticated } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import * as repo from './sessions.repository.js';
import { Tokens } from './tokens.js';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export type SessionsService = ReturnType<typeof createSessionsService>;

/** What ended: one session, or every session of a user except one. */
export type RevokedSessions = { sessionId: string } | { userId: string; exceptSessionId?: string };
/** Runs with the revocation, on the same executor (e.g. the notifications module drops those sessions' device tokens). */
export type SessionsRevokedHook = (ex: Executor, revoked: RevokedSessions) => Promise<void>;

export function createSessionsService(ctx: AppContext) {
  const tokens = new Tokens(ctx.config, ctx.clock);
  const revokedHooks: SessionsRevokedHook[] = [];
  const revoke = async (ex: Executor, sessionId: string, reason: string) => {
    await repo.revokeSession(ex, sessionId, ctx.clock.now(), reason);
    await afterRevoke(ex, { sessionId });
  };
  const afterRevoke = async (ex: Executor, revoked: RevokedSessions) => {
    for (const hook of revokedHooks) await hook(ex, revoked);
  };
  const refreshExpiry = (now: Date) => new Date(now.getTime() + tokens.ttlSeconds('refresh') * 1000);

  function newSession(userId: string, client: ClientInfo) {
    const now = ctx.clock.now();
    return {
      id: uuidv7(),
      userId,
      refreshJti: uuidv7(),
      ip: client.ip?.slice(0, 64),
      userAgent: client.userAgent?.slice(0, 300),
      createdAt: now,
      lastUsedAt: now,
      expiresAt: refreshExpiry(now),
    };
  }

  const pair = (userId: string, sessionId: string, jti: string): TokenPair => ({
    accessToken: tokens.sign({ sub: userId, sid: sessionId, typ: 'access' }),
    refreshToken: tokens.sign({ sub: userId, sid: sessionId, typ: 'refresh', jti }),
  });

  return {
    /** Starts a session inside the caller's transaction and returns its first token pair. */
    async open(ex: Executor, userId: string, client: ClientInfo = {}): Promise<TokenPair> {
      const row = newSession(userId, client);
      await repo.insertSession(ex, row);
      return pair(userId, row.id, row.refreshJti);
    },

    /** A session opened at sign-in, stamping the user's last sign-in in the same statement. */
    async openAtSignIn(
      userId: string,
      client: ClientInfo = {},
      ex: Executor = ctx.db,
    ): Promise<TokenPair & { at: Date }> {
      const row = newSession(userId, client);
      await repo.insertSessionStampingUser(ex, row);
      return { ...pair(userId, row.id, row.refreshJti), at: row.createdAt };
    },

    async authenticate(accessToken: string): Promise<AuthUser> {
      const claims = tokens.verify(accessToken, 'access');
      const account = await repo.findActiveSessionUser(ctx.db, claims.sid, claims.sub, ctx.clock.now());
      if (!account || account.status !== 'ACTIVE') throw unauthenticated('The session has ended; sign in again');
      return { id: account.id, role: account.role, sessionId: claims.sid, account };
    },

    /**
     * Rotates the pair. A refresh token is good once: presenting one that was already exchanged
     * means it was copied, so the whole session is revoked and its newer tokens stop working too.
     */
    async refresh(refreshToken: string): Promise<TokenPair> {
      const claims = tokens.verify(refreshToken, 'refresh');
      const now = ctx.clock.now();
      const outcome = await ctx.db.transaction(async (tx) => {
        const session = await repo.lockSession(tx, claims.sid);
        if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt <= now) return 'dead';
        if (session.refreshJti !== claims.jti) {
          await repo.revokeSession(tx, session.id, now, 'refresh_token_reuse');
          return 'reused';
        }
        const active = await repo.findActiveSessionUser(tx, session.id, session.userId, now);
        if (!active || active.status !== 'ACTIVE') return 'dead';
        const jti = uuidv7();
        await repo.rotateSession(tx, session.id, jti, now, refreshExpiry(now));
        return pair(session.userId, session.id, jti);
      });
      if (outcome === 'reused') {
        ctx.log.warn({ sessionId: claims.sid }, 'refresh token reused; session revoked');
        throw unauthenticated('This refresh token was already used; the session has been ended');
      }
      if (outcome === 'dead') throw unauthenticated('The session has ended; sign in again');
      return outcome;
    },

    /** Ends the session a refresh token belongs to; a token that is not ours or expired ends nothing. */
    async endByRefreshToken(refreshToken: string): Promise<void> {
      let claims: ReturnType<typeof tokens.verify>;
      try {
        claims = tokens.verify(refreshToken, 'refresh');
      } catch {
        return;
      }
      await revoke(ctx.db, claims.sid, 'logout');
    },

    onRevoked(hook: SessionsRevokedHook): void {
      revokedHooks.push(hook);
    },

    revoke,

    async revokeAllForUser(ex: Executor, userId: string, reason: string, exceptSessionId?: string) {
      await repo.revokeUserSessions(ex, userId, ctx.clock.now(), reason, exceptSessionId);
      await afterRevoke(ex, { userId, exceptSessionId });
    },
  };
}
