import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema/users.js';
import type { AuthUser } from '../../http/access.js';
import { IdpUnavailable, InvalidIdToken, type IdpIdentity } from '../../providers/idp/idp.js';
import { AppError, conflict, forbidden, notFound, serviceUnavailable, unauthenticated } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import type { UserRecord, UsersApi } from '../users/index.js';
import type { AuthService } from './auth.service.js';
import * as repo from './identities.repository.js';
import type { ClientInfo } from './sessions.service.js';

export type IdpService = ReturnType<typeof createIdpService>;

export function createIdpService(ctx: AppContext, deps: { users: UsersApi; auth: AuthService }) {
  const { users, auth } = deps;

  async function verify(idToken: string): Promise<IdpIdentity> {
    if (!ctx.idp) throw serviceUnavailable('Sign-in with an identity provider is not configured');
    try {
      return await ctx.idp.verify(idToken);
    } catch (err) {
      if (err instanceof InvalidIdToken) throw unauthenticated('The identity token is invalid or has expired');
      if (err instanceof IdpUnavailable) throw serviceUnavailable('The identity provider cannot be reached; try again');
      throw err;
    }
  }

  return {
    /**
     * Signs in the account linked to the provider's subject, or creates one. An existing account
     * with the same email is never taken over: its owner signs in and links the provider instead.
     */
    async login(idToken: string, role: Role | undefined, client: ClientInfo) {
      const id = await verify(idToken);
      // The session and the event commit together: the owner hears of every provider sign-in.
      const signIn = (user: UserRecord, isNewUser: boolean) =>
        ctx.db.transaction(async (tx) => {
          const result = await auth.signIn(user, client, tx);
          await ctx.events.publish(tx, 'users.signed_in_with_provider', { userId: user.id, provider: id.provider });
          return { ...result, isNewUser };
        });
      const linked = await repo.findIdentity(ctx.db, id.provider, id.subject);
      if (linked) {
        const user = await users.findById(linked.userId);
        if (!user || user.status === 'DELETED') throw unauthenticated('This account no longer exists');
        if (user.status === 'SUSPENDED') throw forbidden('ACCOUNT_SUSPENDED', 'This account is suspended');
        return signIn(user, false);
      }
      const email = id.email && id.emailVerified ? id.email : null;
      const user = await ctx.db.transaction(async (tx) => {
        await users.claimEmail(tx, email, {
          conflictMessage: 'An account already uses this email; sign in and link the provider from it',
        });
        const created = await users.create(tx, {
          email,
          role: role ?? 'CLIENT',
          firstName: id.givenName?.slice(0, 80),
          lastName: id.familyName?.slice(0, 80),
          verified: true,
          emailVerified: email !== null,
        });
        await repo.insertIdentity(tx, {
          id: uuidv7(),
          userId: created.id,
          provider: id.provider,
          subject: id.subject,
          email: id.email,
          createdAt: ctx.clock.now(),
        });
        return created;
      });
      return signIn(user, true);
    },

    async link(actor: AuthUser, idToken: string) {
      const id = await verify(idToken);
      return ctx.db.transaction(async (tx) => {
        const owner = await repo.findIdentity(tx, id.provider, id.subject);
        if (owner && owner.userId !== actor.id)
          throw conflict('ALREADY_EXISTS', 'This provider account is linked to another user');
        if (!owner) {
          if (await repo.findUserIdentity(tx, actor.id, id.provider)) {
            throw conflict('CONFLICT', 'Another account of this provider is already linked; unlink it first');
          }
          await repo.insertIdentity(tx, {
            id: uuidv7(),
            userId: actor.id,
            provider: id.provider,
            subject: id.subject,
            email: id.email,
            createdAt: ctx.clock.now(),
          });
        }
        return { provider: id.provider, subject: id.subject, email: id.email ?? null };
      });
    },

    async unlink(actor: AuthUser) {
      const provider = ctx.config.IDP_ISSUER;
      if (!provider) throw serviceUnavailable('Sign-in with an identity provider is not configured');
      const identity = await repo.findUserIdentity(ctx.db, actor.id, provider);
      if (!identity) throw notFound('Linked identity');
      if (!actor.account.passwordHash) {
        throw new AppError(
          409,
          'CONFLICT',
          'Set a password (forgot-password) before unlinking your only way to sign in',
        );
      }
      await repo.deleteIdentity(ctx.db, identity.id);
      return { message: 'Identity provider unlinked' };
    },
  };
}
