import type { VerificationStatus } from '../../db/schema/suppliers.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * Verification of a supplier profile.
 * - PENDING -> VERIFIED | REJECTED: an administrator's decision (verifying needs approved KYC).
 * - VERIFIED -> REJECTED: an administrator withdraws the verification (reason required); the
 *   supplier disappears from public listings at once.
 * - REJECTED -> PENDING: the supplier edits its profile, which submits it again. An administrator
 *   cannot verify a rejected profile directly: the supplier fixes it first.
 */
export const VERIFICATION_TRANSITIONS: TransitionTable<VerificationStatus> = {
  PENDING: ['VERIFIED', 'REJECTED'],
  VERIFIED: ['REJECTED'],
  REJECTED: ['PENDING'],
};
