import type { VerificationStatus } from '../../db/schema/suppliers.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * Verification of a supplier profile.
 * - PENDING -> VERIFIED | REJECTED: an administrator's decision (verifying needs approved KYC).
 * - VERIFIED -> REJECTED: an administrator withdraws the verification (reason required); the
 *   supplier disappears from public listings at once.
 * - REJECTED -> PENDING: the supplier edits its profile, which submits it again. The ordinary
 *   verification cannot verify a rejected profile directly: the supplier fixes it first (the
 *   forced verification below is the administrator's way around that).
 */
export const VERIFICATION_TRANSITIONS: TransitionTable<VerificationStatus> = {
  PENDING: ['VERIFIED', 'REJECTED'],
  VERIFIED: ['REJECTED'],
  REJECTED: ['PENDING'],
};

/**
 * The KYC force-verify override: an administrator verifies a PENDING or a REJECTED profile at
 * once, without waiting for the supplier to edit it. It is a deliberate decision with a reason in
 * the administrators' log, hence its own table rather than an exception to the one above. An
 * already VERIFIED profile is left as it is (its verifiedAt keeps the first verification).
 */
export const FORCED_VERIFICATION_TRANSITIONS: TransitionTable<VerificationStatus> = {
  PENDING: ['VERIFIED'],
  REJECTED: ['VERIFIED'],
  VERIFIED: [],
};
