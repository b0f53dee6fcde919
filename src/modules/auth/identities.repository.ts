import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { identities } from '../../db/schema/users.js';

export async function findIdentity(ex: Executor, provider: string, subject: string) {
  const [row] = await ex
    .select()
    .from(identities)
    .where(and(eq(identities.provider, provider), eq(identities.subject, subject)))
    .limit(1);
  return row;
}

export async function findUserIdentity(ex: Executor, userId: string, provider: string) {
  const [row] = await ex
    .select()
    .from(identities)
    .where(and(eq(identities.userId, userId), eq(identities.provider, provider)))
    .limit(1);
  return row;
}

export async function insertIdentity(ex: Executor, identity: typeof identities.$inferInsert): Promise<void> {
  await ex.insert(identities).values(identity);
}

export async function deleteIdentity(ex: Executor, id: string): Promise<void> {
  await ex.delete(identities).where(eq(identities.id, id));
}
