import type { AuthUser } from '../http/access.js';
import type { App } from '../http/types.js';
import type { UserRecord } from '../modules/users/index.js';
import { normalizePhone } from '../shared/phone.js';
import { accountLabel, DEMO_ADMIN, seedClients } from './accounts.seed.js';
import { seedDeals } from './deals.seed.js';
import { seedProducts } from './products.seed.js';
import { seedSuppliers } from './suppliers.seed.js';
import type { SeedContext, SeedEntry, Seeder } from './seed-context.js';

export type { SeedContext, SeedEntry, Seeder } from './seed-context.js';

// Demo data for a new installation: what the docs page and the README's walkthroughs show.
// Everything goes through the services, so the same rules hold as for data made through the API,
// and every step first looks for what it would create, so running the seed again adds nothing.

/** One domain's demo data. A new domain adds its function here, after the ones it builds on. */
export const SEEDERS: Seeder[] = [seedClients, seedSuppliers, seedProducts, seedDeals];

export interface SeedReport {
  entries: SeedEntry[];
  created: number;
}

export async function runSeed(app: App, seeders: Seeder[] = SEEDERS): Promise<SeedReport> {
  const { users } = app.services;
  const { sessions } = app.services.auth;
  const entries: SeedEntry[] = [];
  const actors = new Map<string, Promise<AuthUser>>();

  function actAs(user: UserRecord): Promise<AuthUser> {
    let actor = actors.get(user.id);
    if (!actor) {
      actor = sessions
        .open(app.ctx.db, user.id, { userAgent: 'foodsave-seed' })
        .then((t) => sessions.authenticate(t.accessToken));
      actors.set(user.id, actor);
    }
    return actor;
  }

  const adminPhone = normalizePhone(DEMO_ADMIN.phoneNumber);
  const existingAdmin = await users.findByPhone(adminPhone);
  if (existingAdmin && existingAdmin.role !== 'SUPER_ADMIN') {
    throw new Error(
      `${adminPhone} belongs to a ${existingAdmin.role} account: the demo administrator cannot be created`,
    );
  }
  if (!existingAdmin) await users.ensureSuperAdmin(adminPhone, DEMO_ADMIN.password);
  const adminUser = (await users.findByPhone(adminPhone))!;
  entries.push({ kind: 'account', label: accountLabel(DEMO_ADMIN), id: adminUser.id, created: !existingAdmin });

  const asAdmin = () => actAs(adminUser);
  try {
    const ctx: SeedContext = {
      app,
      actAs,
      asAdmin,
      record: (e) => entries.push(e),
      async ensureAccount(account) {
        const found = await users.findByPhone(normalizePhone(account.phoneNumber));
        if (found) {
          if (found.role !== account.role)
            throw new Error(`${account.phoneNumber} belongs to a ${found.role} account, not ${account.role}`);
          return { user: found, created: false };
        }
        const view = await users.adminCreate(await asAdmin(), account);
        return { user: (await users.findById(view.id))!, created: true };
      },
    };
    for (const seeder of seeders) await seeder(ctx);
  } finally {
    const opened = await Promise.allSettled(actors.values());
    for (const r of opened)
      if (r.status === 'fulfilled') await sessions.revoke(app.ctx.db, r.value.sessionId, 'seed_finished');
  }

  const created = entries.filter((e) => e.created).length;
  // Instances sharing Redis drop their cached public listings, so new suppliers show at once.
  if (created > 0) app.ctx.listings.changed();
  return { entries, created };
}

/** The report as printed by `npm run seed`: one line per record, then what the run changed. */
export function formatReport(report: SeedReport): string {
  const width = Math.max(...report.entries.map((e) => e.kind.length));
  const lines = report.entries.map(
    (e) => `  ${e.created ? 'created' : 'exists '}  ${e.kind.padEnd(width)}  ${e.id}  ${e.label}`,
  );
  const summary =
    report.created === 0
      ? 'Nothing new was created: the demo data is already there.'
      : `Created ${report.created} of ${report.entries.length} records.`;
  return `${lines.join('\n')}\n${summary}\n`;
}
