import type { KycAttemptStatus } from '../../db/schema/kyc.js';
import type { KycStatus } from '../suppliers/index.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * An attempt is decided once. The only later change is asking for new documents after an
 * approval (an expired or doubtful document found afterwards); a rejected attempt or one already
 * sent back stays as it is and the supplier submits a new attempt. A pending attempt is
 * WITHDRAWN when its supplier deletes its profile: nothing is left to decide on.
 */
export const KYC_ATTEMPT_TRANSITIONS: TransitionTable<KycAttemptStatus> = {
  PENDING: ['APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED', 'WITHDRAWN'],
  APPROVED: ['RESUBMISSION_REQUESTED'],
  REJECTED: [],
  RESUBMISSION_REQUESTED: [],
  WITHDRAWN: [],
};

/**
 * The supplier's KYC state (`supplier_profiles.kyc_status`). Submitting moves it to PENDING;
 * decisions on the pending attempt move it on; an administrator may force APPROVED from any
 * state but APPROVED, and ask for new documents while it is PENDING or APPROVED.
 */
export const SUPPLIER_KYC_TRANSITIONS: TransitionTable<KycStatus> = {
  NOT_SUBMITTED: ['PENDING', 'APPROVED'],
  PENDING: ['APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED'],
  APPROVED: ['RESUBMISSION_REQUESTED'],
  REJECTED: ['PENDING', 'APPROVED'],
  RESUBMISSION_REQUESTED: ['PENDING', 'APPROVED'],
};
