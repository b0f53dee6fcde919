import type { DemoAccount, SeedContext } from './seed-context.js';

export type { DemoAccount } from './seed-context.js';

// Demo accounts. Their numbers are in the +221 77 000 xx xx block so they are easy to tell apart
// (and the README's walkthrough registers numbers outside it). The passwords are printed by the
// seed and written in the README: the seed refuses to run in production.

export const DEMO_PASSWORD = 'Teranga-Demo-2024';

export const DEMO_ADMIN = {
  role: 'SUPER_ADMIN',
  phoneNumber: '+221770000001',
  password: 'Teranga-Admin-2024',
  // ensureSuperAdmin names the first administrator; the label repeats its name.
  firstName: 'Super',
  lastName: 'Admin',
} as const satisfies DemoAccount;

export const DEMO_CLIENTS: DemoAccount[] = [
  {
    role: 'CLIENT',
    phoneNumber: '+221770000101',
    password: DEMO_PASSWORD,
    firstName: 'Mariama',
    lastName: 'Ba',
    email: 'mariama.ba@foodsave.test',
  },
  {
    role: 'CLIENT',
    phoneNumber: '+221770000102',
    password: DEMO_PASSWORD,
    firstName: 'Ousmane',
    lastName: 'Sarr',
    email: 'ousmane.sarr@foodsave.test',
  },
  { role: 'CLIENT', phoneNumber: '+221770000103', password: DEMO_PASSWORD, firstName: 'Khady', lastName: 'Fall' },
];

export const accountLabel = (a: DemoAccount) =>
  `${a.role} ${a.firstName} ${a.lastName}, phone ${a.phoneNumber}, password ${a.password}`;

export async function seedClients(s: SeedContext): Promise<void> {
  for (const client of DEMO_CLIENTS) {
    const { user, created } = await s.ensureAccount(client);
    s.record({ kind: 'account', label: accountLabel(client), id: user.id, created });
  }
}
