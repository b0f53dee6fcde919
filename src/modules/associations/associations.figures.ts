import { count, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { associations } from '../../db/schema/associations.js';

/** Associations waiting for verification (the dashboard's moderation queue, associations_status_idx). */
export async function pendingCount(ex: Executor): Promise<number> {
  const [r] = await ex.select({ n: count() }).from(associations).where(eq(associations.status, 'PENDING'));
  return r?.n ?? 0;
}
