import type { AuthUser } from '../http/access.js';
import type { App } from '../http/types.js';
import type { AdminCreateUserBody, UserRecord } from '../modules/users/index.js';

// What every seeder is given, apart from the list of seeders (seed.ts), so that the seeders and the list do not
// import each other.

/** A demo account: what an administrator creates, and the password to sign in with. */
export type DemoAccount = AdminCreateUserBody & { password: string };

export interface SeedEntry {
  kind: 'account' | 'supplier' | 'store' | (string & {});
  /** What a person recognises it by: a name, with a phone number and password for accounts. */
  label: string;
  id: string;
  created: boolean;
}

export interface SeedContext {
  app: App;
  /**
   * Signs in as the account for the seed's own calls, once per account and only when something
   * is to be done (a run with nothing to create opens no session); the sessions end with the seed.
   */
  actAs(user: UserRecord): Promise<AuthUser>;
  /** The demo super administrator, signed in: the actor of every administrative step. */
  asAdmin(): Promise<AuthUser>;
  /** The account with this phone number, created by the administrator (as POST /admin/users) when missing. */
  ensureAccount(account: DemoAccount): Promise<{ user: UserRecord; created: boolean }>;
  record(entry: SeedEntry): void;
}

/** One domain's demo data; SEEDERS in seed.ts lists them in order. */
export type Seeder = (s: SeedContext) => Promise<void>;
