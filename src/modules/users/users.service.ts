import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { Role, UserStatus } from '../../db/schema/users.js';
import type { AuthUser } from '../../http/access.js';
import { conflict, forbidden, notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { assertPasswordPolicy } from '../../shared/password-policy.js';
import { hashPassword } from '../../shared/passwords.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import * as repo from './users.repository.js';
import * as figures from './users.figures.js';
import type { UserRecord } from './users.repository.js';
import type { AdminCreateUserBody, AdminUserQuery, UserView } from './users.schemas.js';
import { USER_STATUS_TRANSITIONS } from './user-status.js';

const PRIVILEGED: Role[] = ['ADMIN', 'SUPER_ADMIN'];

export function toUserView(u: UserRecord): UserView {
  return {
    id: u.id,
    role: u.role,
    status: u.status,
    phoneNumber: u.phoneNumber,
    email: u.email,
    isVerified: u.verifiedAt !== null,
    isEmailVerified: u.emailVerifiedAt !== null,
    profile: { firstName: u.firstName, lastName: u.lastName, avatarUrl: u.avatarUrl },
    preferences: u.preferences,
    hasPassword: u.passwordHash !== null,
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}

export interface NewAccount {
  phoneNumber?: string | null;
  email?: string | null;
  passwordHash?: string | null;
  role: Role;
  firstName?: string;
  lastName?: string;
  verified: boolean;
  emailVerified?: boolean;
}

export type UsersService = ReturnType<typeof createUsersService>;

/**
 * What the sign-in side registers on users (it is built after them): ending an account's sessions
 * when it stops being active, and whether a registration code is still open.
 */
export interface AccountHooks {
  endSessions(tx: Executor, userId: string, reason: string): Promise<void>;
  hasOpenRegistrationCode(ex: Executor, phoneNumber: string, userId: string): Promise<boolean>;
}

export function createUsersService(ctx: AppContext) {
  const now = () => ctx.clock.now();
  let hooks: AccountHooks | undefined;
  const account = (): AccountHooks => {
    if (!hooks) throw new Error('users: the account hooks are not registered');
    return hooks;
  };

  async function load(ex: Executor, id: string): Promise<UserRecord> {
    const user = await repo.lockUser(ex, id);
    if (!user) throw notFound('User');
    return user;
  }

  /**
   * An administrator may not act on his own account here (no locking oneself out, no
   * self-promotion); only a SUPER_ADMIN acts on an administrator account or grants one, or one
   * ADMIN could suspend or delete the others.
   */
  function assertMayManage(actor: AuthUser, target: UserRecord, grantRole?: Role): void {
    if (actor.id === target.id) throw forbidden('FORBIDDEN', 'Administrators cannot change their own account here');
    if (
      actor.role !== 'SUPER_ADMIN' &&
      (PRIVILEGED.includes(target.role) || (grantRole && PRIVILEGED.includes(grantRole)))
    ) {
      throw forbidden('FORBIDDEN', 'Only a super administrator can change an administrator account');
    }
  }

  /** Who did what to which account, when and why, in the transaction of the change. */
  const audit = (
    tx: Executor,
    actor: AuthUser,
    action: string,
    targetId: string,
    data: Record<string, unknown>,
    reason?: string,
  ) => recordAdminAction(tx, { actorId: actor.id, action, targetType: 'user', targetId, reason, data, at: now() });

  /** Registered, never verified, and its registration code is gone: nobody will finish it. */
  async function isAbandoned(ex: Executor, u: UserRecord): Promise<boolean> {
    if (u.verifiedAt || u.status !== 'ACTIVE' || !u.phoneNumber) return false;
    return !(await account().hasOpenRegistrationCode(ex, u.phoneNumber, u.id));
  }

  /**
   * Makes `email` free for the account `exceptId` (or a new one) in the caller's transaction.
   * An abandoned registration gives its email up, or anyone could block an address by
   * registering it with some phone and walking away; any other holder keeps it (409).
   */
  async function claimEmail(
    ex: Executor,
    email: string | null | undefined,
    opts: { exceptId?: string; conflictMessage?: string } = {},
  ) {
    if (!email) return;
    const other = await repo.findUserByEmail(ex, email);
    if (!other || other.id === opts.exceptId) return;
    if (!(await isAbandoned(ex, other))) {
      throw conflict('ALREADY_EXISTS', opts.conflictMessage ?? 'An account with this email already exists');
    }
    await repo.updateUser(ex, other.id, { email: null, emailVerifiedAt: null, updatedAt: now() });
  }

  async function create(ex: Executor, a: NewAccount): Promise<UserRecord> {
    const t = now();
    return repo.insertUser(ex, {
      id: uuidv7(t.getTime()),
      phoneNumber: a.phoneNumber ?? null,
      email: a.email ?? null,
      passwordHash: a.passwordHash ?? null,
      role: a.role,
      firstName: a.firstName ?? '',
      lastName: a.lastName ?? '',
      verifiedAt: a.verified ? t : null,
      emailVerifiedAt: a.emailVerified ? t : null,
      createdAt: t,
      updatedAt: t,
    });
  }

  return {
    /** Registered once by the auth module. */
    registerAccountHooks(h: AccountHooks): void {
      hooks = h;
    },
    /** Counts and growth for the administrators' dashboard (analytics module). */
    figures,
    findById: (id: string, ex: Executor = ctx.db) => repo.findUserById(ex, id),
    findByPhone: (phone: string, ex: Executor = ctx.db) => repo.findUserByPhone(ex, phone),
    findByEmail: (email: string, ex: Executor = ctx.db) => repo.findUserByEmail(ex, email),
    claimEmail,

    create,
    update: (ex: Executor, id: string, patch: Partial<repo.NewUser>) =>
      repo.updateUser(ex, id, { ...patch, updatedAt: now() }),

    /** Accounts a platform-wide message reaches (active, phone verified), of one role or all: how many, the last id. */
    countReachable: (ex: Executor, role?: Role) => repo.countReachable(ex, role),
    /** The next reachable ids in id order after `after`, up to `through` included. */
    reachableIdsAfter: (ex: Executor, q: { role?: Role; after: string | null; through: string; limit: number }) =>
      repo.reachableIdsAfter(ex, q),

    async list(q: AdminUserQuery) {
      const { items, total } = await repo.listUsers(ctx.db, q, q.limit, pageOffset(q), q.sort);
      return { items: items.map(toUserView), meta: pageMeta(q, total) };
    },

    async get(id: string): Promise<UserView> {
      const user = await repo.findUserById(ctx.db, id);
      if (!user) throw notFound('User');
      return toUserView(user);
    },

    async adminCreate(actor: AuthUser, body: AdminCreateUserBody): Promise<UserView> {
      if (PRIVILEGED.includes(body.role) && actor.role !== 'SUPER_ADMIN') {
        throw forbidden('FORBIDDEN', 'Only a super administrator can create administrators');
      }
      const phoneNumber = normalizePhone(body.phoneNumber);
      const email = body.email ? normalizeEmail(body.email) : null;
      assertPasswordPolicy(body.password, { phoneNumber, email });
      const passwordHash = await hashPassword(body.password);
      const user = await ctx.db.transaction(async (tx) => {
        if (await repo.findUserByPhone(tx, phoneNumber)) {
          throw conflict('ALREADY_EXISTS', 'An account with this phone number already exists');
        }
        await claimEmail(tx, email);
        const created = await create(tx, { ...body, phoneNumber, email, passwordHash, verified: true });
        await audit(tx, actor, 'user.created', created.id, { role: created.role });
        return created;
      });
      return toUserView(user);
    },

    async setStatus(actor: AuthUser, id: string, status: UserStatus, reason?: string): Promise<UserView> {
      const user = await ctx.db.transaction(async (tx) => {
        const target = await load(tx, id);
        assertMayManage(actor, target);
        if (target.status === status) return target;
        assertTransition(USER_STATUS_TRANSITIONS, target.status, status, 'User status');
        if (status !== 'ACTIVE') await account().endSessions(tx, id, `status_${status.toLowerCase()}`);
        const patch: Partial<repo.NewUser> = { status, updatedAt: now() };
        if (status === 'DELETED') patch.deletedAt = now();
        await audit(tx, actor, 'user.status_changed', id, { from: target.status, to: status }, reason);
        return repo.updateUser(tx, id, patch);
      });
      return toUserView(user);
    },

    async setRole(actor: AuthUser, id: string, role: Role): Promise<UserView> {
      const user = await ctx.db.transaction(async (tx) => {
        const target = await load(tx, id);
        assertMayManage(actor, target, role);
        if (target.status === 'DELETED') throw conflict('INVALID_TRANSITION', 'A deleted account cannot be changed');
        await audit(tx, actor, 'user.role_changed', id, { from: target.role, to: role });
        return repo.updateUser(tx, id, { role, updatedAt: now() });
      });
      return toUserView(user);
    },

    async forceVerify(actor: AuthUser, id: string): Promise<UserView> {
      const user = await ctx.db.transaction(async (tx) => {
        const target = await load(tx, id);
        assertMayManage(actor, target);
        if (target.status === 'DELETED') throw conflict('INVALID_TRANSITION', 'A deleted account cannot be changed');
        if (target.verifiedAt) return target;
        await audit(tx, actor, 'user.verified', id, {});
        return repo.updateUser(tx, id, { verifiedAt: now(), updatedAt: now() });
      });
      return toUserView(user);
    },

    /** First administrator from the environment, created once when no account has that phone. */
    async ensureSuperAdmin(phone: string, password: string): Promise<void> {
      const phoneNumber = normalizePhone(phone, 'SUPER_ADMIN_PHONE');
      if (await repo.findUserByPhone(ctx.db, phoneNumber)) return;
      const passwordHash = await hashPassword(password);
      await create(ctx.db, {
        phoneNumber,
        passwordHash,
        role: 'SUPER_ADMIN',
        firstName: 'Super',
        lastName: 'Admin',
        verified: true,
      });
      ctx.log.info({ phoneNumber }, 'super administrator created');
    },
  };
}
