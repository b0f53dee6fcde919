import { count, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { KYC_STATUSES, supplierProfiles, VERIFICATION_STATUSES } from '../../db/schema/suppliers.js';

const zeroes = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** Live supplier profiles by verification and KYC state (the dashboard's `suppliers` section and verification queue). */
export async function supplierCounts(ex: Executor) {
  const found = await ex
    .select({ verification: supplierProfiles.verificationStatus, kyc: supplierProfiles.kycStatus, n: count() })
    .from(supplierProfiles)
    .where(isNull(supplierProfiles.deletedAt))
    .groupBy(supplierProfiles.verificationStatus, supplierProfiles.kycStatus);
  const byVerification = zeroes(VERIFICATION_STATUSES);
  const byKyc = zeroes(KYC_STATUSES);
  let total = 0;
  for (const r of found) {
    total += r.n;
    byVerification[r.verification] += r.n;
    byKyc[r.kyc] += r.n;
  }
  return { total, byVerification, byKyc };
}
