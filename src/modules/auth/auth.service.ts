import type { Executor } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { OtpChannel, OtpPurpose } from '../../db/schema/users.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, badRequest, conflict, forbidden, validationError } from '../../shared/errors.js';
import { assertPasswordPolicy } from '../../shared/password-policy.js';
import { hashPassword, verifyPassword } from '../../shared/passwords.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { type UserRecord, type RegisterBody, toUserView, type UsersApi } from '../users/index.js';
import type { AuthResult, ForgotPasswordBody, ResetPasswordBody, VerifyResult } from './auth.schemas.js';
import type { OtpService } from './otp.service.js';
import type { ClientInfo, SessionsService } from './sessions.service.js';

const invalidCredentials = () =>
  new AppError(401, 'INVALID_CREDENTIALS', 'The phone number, email or password is wrong');
const SENT = { message: 'If an account matches, a code has been sent' };

/** Who may receive a code for each purpose; anyone else gets the same answer and no code. */
const MAY_RECEIVE: Record<OtpPurpose, (u: UserRecord, channel: OtpChannel) => boolean> = {
  registration: (u, ch) => u.status === 'ACTIVE' && (ch === 'sms' ? !u.verifiedAt : !u.emailVerifiedAt),
  login: (u) => u.status === 'ACTIVE' && u.verifiedAt !== null,
  password_reset: (u) => u.status !== 'DELETED',
};

/**
 * Purposes a resend may start a code for. A login code is a second step after the password
 * (`/auth/login/email`); a resend only replaces one that step opened, or it would be a way to
 * sign in without the password. Phone sign-in takes the password alone, so no SMS login code
 * is ever opened.
 */
const RESEND_MAY_START: Record<OtpPurpose, boolean> = { registration: true, login: false, password_reset: true };

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(
  ctx: AppContext,
  deps: { users: UsersApi; otp: OtpService; sessions: SessionsService },
) {
  const { users, otp, sessions } = deps;
  const now = () => ctx.clock.now();

  function assertMaySignIn(u: UserRecord): void {
    if (u.status === 'SUSPENDED') throw forbidden('ACCOUNT_SUSPENDED', 'This account is suspended');
    if (!u.verifiedAt) throw forbidden('ACCOUNT_NOT_VERIFIED', 'Verify your phone number before signing in');
  }

  async function signIn(u: UserRecord, client: ClientInfo, ex?: Executor): Promise<AuthResult> {
    const { at, ...pair } = await sessions.openAtSignIn(u.id, client, ex);
    return { user: toUserView({ ...u, lastLoginAt: at }), ...pair };
  }

  /** A password check that costs the same whether or not the account exists. */
  async function checkPassword(u: UserRecord | undefined, password: string): Promise<UserRecord> {
    const okPassword = await verifyPassword(u?.passwordHash, password);
    if (!u || !okPassword || u.status === 'DELETED') throw invalidCredentials();
    return u;
  }

  async function sendCode(
    channel: OtpChannel,
    destination: string,
    purpose: OtpPurpose,
    user: UserRecord | undefined,
    resend = false,
  ) {
    const recipient = user && MAY_RECEIVE[purpose](user, channel) ? user.id : null;
    const replaceOnly = resend && !RESEND_MAY_START[purpose];
    await ctx.db.transaction((tx) => otp.issue(tx, { channel, destination, purpose }, recipient, { replaceOnly }));
    return SENT;
  }

  /** Checks the code and, for sign-in purposes, uses it up and opens a session. */
  async function verifyCode(channel: OtpChannel, destination: string, purpose: OtpPurpose, code: string) {
    const record = await otp.check({ channel, destination, purpose }, code);
    const user = record.userId ? await users.findById(record.userId) : undefined;
    if (!user || user.status === 'DELETED') throw badRequest('INVALID_OTP', 'The code is wrong or no longer valid');
    return { record, user };
  }

  return {
    /**
     * A phone that registered but never verified may register again (new password, new code)
     * once its registration code has expired; while the code is open the registration is its
     * owner's to finish, or anyone could replace the password the owner is about to verify.
     * A verified phone is taken.
     */
    async register(body: RegisterBody) {
      const phoneNumber = normalizePhone(body.phoneNumber);
      const email = body.email ? normalizeEmail(body.email) : null;
      assertPasswordPolicy(body.password, { phoneNumber, email });
      const passwordHash = await hashPassword(body.password);
      const target = { channel: 'sms', destination: phoneNumber, purpose: 'registration' } as const;
      const user = await ctx.db.transaction(async (tx) => {
        // Two registrations of one phone take turns, so the second sees the first one's code.
        await otp.lockDestination(tx, phoneNumber);
        const existing = await users.findByPhone(phoneNumber, tx);
        if (existing && (existing.verifiedAt || existing.status !== 'ACTIVE')) {
          throw conflict('ALREADY_EXISTS', 'An account with this phone number already exists; sign in instead');
        }
        if (existing && (await otp.hasOpenCode(tx, target, existing.id))) {
          throw conflict(
            'REGISTRATION_PENDING',
            'This phone number has a registration waiting for its code: verify it with /auth/verify-otp or ask for a new code with /auth/resend-otp',
          );
        }
        await users.claimEmail(tx, email, { exceptId: existing?.id });
        const fields = { email, passwordHash, role: body.role, firstName: body.firstName, lastName: body.lastName };
        const saved = existing
          ? await users.update(tx, existing.id, { ...fields, emailVerifiedAt: null })
          : await users.create(tx, { ...fields, phoneNumber, verified: false });
        await otp.issue(tx, target, saved.id);
        return saved;
      });
      return { userId: user.id, phoneNumber };
    },

    async login(phone: string, password: string, client: ClientInfo): Promise<AuthResult> {
      const user = await checkPassword(await users.findByPhone(normalizePhone(phone)), password);
      assertMaySignIn(user);
      return signIn(user, client);
    },

    async loginWithEmail(email: string, password: string) {
      const address = normalizeEmail(email);
      const user = await checkPassword(await users.findByEmail(address), password);
      assertMaySignIn(user);
      return sendCode('email', address, 'login', user);
    },

    async verifyOtp(phone: string, purpose: OtpPurpose, code: string, client: ClientInfo): Promise<VerifyResult> {
      const { record, user } = await verifyCode('sms', normalizePhone(phone), purpose, code);
      if (purpose === 'password_reset') return { verified: true };
      if (purpose === 'login') assertMaySignIn(user);
      if (user.status === 'SUSPENDED') throw forbidden('ACCOUNT_SUSPENDED', 'This account is suspended');
      return ctx.db.transaction(async (tx) => {
        await otp.consume(tx, record);
        const pair = await sessions.open(tx, user.id, client);
        const updated = await users.update(tx, user.id, { verifiedAt: user.verifiedAt ?? now(), lastLoginAt: now() });
        return { verified: true as const, user: toUserView(updated), ...pair };
      });
    },

    async verifyEmailOtp(email: string, purpose: OtpPurpose, code: string, client: ClientInfo): Promise<VerifyResult> {
      const { record, user } = await verifyCode('email', normalizeEmail(email), purpose, code);
      if (purpose === 'password_reset') return { verified: true };
      if (purpose === 'registration') {
        await ctx.db.transaction(async (tx) => {
          await otp.consume(tx, record);
          await users.update(tx, user.id, { emailVerifiedAt: user.emailVerifiedAt ?? now() });
        });
        return { verified: true };
      }
      assertMaySignIn(user);
      return ctx.db.transaction(async (tx) => {
        await otp.consume(tx, record);
        const pair = await sessions.open(tx, user.id, client);
        const updated = await users.update(tx, user.id, {
          emailVerifiedAt: user.emailVerifiedAt ?? now(),
          lastLoginAt: now(),
        });
        return { verified: true as const, user: toUserView(updated), ...pair };
      });
    },

    async resendOtp(phone: string, purpose: OtpPurpose) {
      const phoneNumber = normalizePhone(phone);
      return sendCode('sms', phoneNumber, purpose, await users.findByPhone(phoneNumber), true);
    },

    async resendEmailOtp(email: string, purpose: OtpPurpose) {
      const address = normalizeEmail(email);
      return sendCode('email', address, purpose, await users.findByEmail(address), true);
    },

    async forgotPassword(body: ForgotPasswordBody) {
      const by = pickContact(body);
      if (by.channel === 'sms')
        return sendCode('sms', by.destination, 'password_reset', await users.findByPhone(by.destination));
      return sendCode('email', by.destination, 'password_reset', await users.findByEmail(by.destination));
    },

    async resetPassword(body: ResetPasswordBody) {
      const by = pickContact(body);
      const contact = by.channel === 'sms' ? { phoneNumber: by.destination } : { email: by.destination };
      assertPasswordPolicy(body.newPassword, contact, 'body.newPassword');
      const { record, user } = await verifyCode(by.channel, by.destination, 'password_reset', body.code);
      assertPasswordPolicy(body.newPassword, user, 'body.newPassword');
      const passwordHash = await hashPassword(body.newPassword);
      await ctx.db.transaction(async (tx) => {
        await otp.consume(tx, record);
        await users.update(tx, user.id, { passwordHash });
        await sessions.revokeAllForUser(tx, user.id, 'password_reset');
        await ctx.events.publish(tx, 'users.password_changed', { userId: user.id });
      });
      return { message: 'Password changed; sign in with the new password' };
    },

    async changePassword(actor: AuthUser, currentPassword: string, newPassword: string) {
      if (!(await verifyPassword(actor.account.passwordHash, currentPassword))) {
        throw new AppError(400, 'INVALID_PASSWORD', 'The current password is wrong', [
          { field: 'body.currentPassword', message: 'is wrong' },
        ]);
      }
      if (currentPassword === newPassword)
        throw validationError('body.newPassword', 'must differ from the current password');
      assertPasswordPolicy(newPassword, actor.account, 'body.newPassword');
      const passwordHash = await hashPassword(newPassword);
      await ctx.db.transaction(async (tx) => {
        await users.update(tx, actor.id, { passwordHash });
        await sessions.revokeAllForUser(tx, actor.id, 'password_changed', actor.sessionId);
        await ctx.events.publish(tx, 'users.password_changed', { userId: actor.id });
      });
      return { message: 'Password changed; your other sessions have been signed out' };
    },

    refresh: (refreshToken: string) => sessions.refresh(refreshToken),

    async logout(actor: AuthUser) {
      await sessions.revoke(ctx.db, actor.sessionId, 'logout');
      return { message: 'Signed out' };
    },

    me: (actor: AuthUser) => toUserView(actor.account),
    signIn,

    /** The operators' console: administrators only, refused before any session is opened. */
    async consoleLogin(phone: string, password: string, client: ClientInfo): Promise<AuthResult> {
      const user = await checkPassword(await users.findByPhone(normalizePhone(phone)), password);
      assertMaySignIn(user);
      assertConsoleRole(user.role);
      return signIn(user, client);
    },

    /** Rotates the console's refresh token; a user no longer an administrator loses the session. */
    async consoleRefresh(refreshToken: string): Promise<AuthResult> {
      const pair = await sessions.refresh(refreshToken);
      const actor = await sessions.authenticate(pair.accessToken);
      if (!CONSOLE_ROLES.has(actor.role)) {
        await sessions.revoke(ctx.db, actor.sessionId, 'role_changed');
        assertConsoleRole(actor.role);
      }
      return { user: toUserView(actor.account), ...pair };
    },

    consoleLogout: (refreshToken: string) => sessions.endByRefreshToken(refreshToken),
  };
}

const CONSOLE_ROLES: ReadonlySet<string> = new Set(['ADMIN', 'SUPER_ADMIN']);

function assertConsoleRole(role: string): void {
  if (CONSOLE_ROLES.has(role)) return;
  throw forbidden('CONSOLE_ADMINS_ONLY', 'The console is for administrators; use the mobile app with this account');
}

function pickContact(body: { phoneNumber?: string; email?: string }): { channel: OtpChannel; destination: string } {
  if (Boolean(body.phoneNumber) === Boolean(body.email)) {
    throw validationError('body', 'give exactly one of phoneNumber or email');
  }
  return body.phoneNumber
    ? { channel: 'sms', destination: normalizePhone(body.phoneNumber) }
    : { channel: 'email', destination: normalizeEmail(body.email!) };
}
