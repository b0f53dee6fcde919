import { count, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { kycAttempts } from '../../db/schema/kyc.js';

/** KYC attempts waiting for an administrator's decision (the dashboard's moderation queue). */
export async function pendingAttempts(ex: Executor): Promise<number> {
  const [r] = await ex.select({ n: count() }).from(kycAttempts).where(eq(kycAttempts.status, 'PENDING'));
  return r?.n ?? 0;
}
