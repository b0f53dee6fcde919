import type { AuthProvider } from 'react-admin';
import { ApiError, refresh, session, signIn, signOut } from './api';

/** Raised when a signed-in account is not an administrator: the login page shows the refusal page. */
export const NOT_AN_ADMIN = 'CONSOLE_ADMINS_ONLY';

let restoring: Promise<string | undefined> | undefined;
/** After a reload the page has no token, the cookie may still hold a session: one refresh serves every caller. */
const restore = () => (restoring ??= refresh().finally(() => (restoring = undefined)));

export const authProvider: AuthProvider = {
  async login({ username, password }: { username: string; password: string }) {
    await signIn(username, password);
  },
  async logout() {
    await signOut().catch(() => undefined);
  },
  async checkAuth() {
    if (session.user) return;
    // A reload: the page has no token, the cookie may still hold a session.
    if (!(await restore())) throw new Error('console.auth.signed_out');
  },
  async checkError(error: unknown) {
    if (error instanceof ApiError && error.status === 401) throw error;
  },
  async getIdentity() {
    const user = session.user;
    if (!user) throw new Error('console.auth.signed_out');
    const fullName =
      [user.profile.firstName, user.profile.lastName].filter(Boolean).join(' ') || user.phoneNumber || user.id;
    return { id: user.id, fullName, role: user.role };
  },
  async getPermissions() {
    // Asked beside checkAuth on a reload: wait for the same restore rather than answer "no role".
    if (!session.user) await restore().catch(() => undefined);
    return session.user?.role ?? null;
  },
};

export const isSuperAdmin = (permissions: unknown) => permissions === 'SUPER_ADMIN';
export const isRefusal = (error: unknown) => error instanceof ApiError && error.code === NOT_AN_ADMIN;
