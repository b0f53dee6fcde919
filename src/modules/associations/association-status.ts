import type { AssociationStatus } from '../../db/schema/associations.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * Verification of an association.
 * - PENDING -> VERIFIED | REJECTED: an administrator's decision, with a reason for a rejection.
 * - VERIFIED -> REJECTED: an administrator withdraws the verification; the association leaves the
 *   public lists at once.
 * - REJECTED -> PENDING: the association changes its profile or adds a document, which submits it
 *   again (its place in the review queue is the time of that change). A rejected association is
 *   never verified without being submitted again.
 */
export const ASSOCIATION_TRANSITIONS: TransitionTable<AssociationStatus> = {
  PENDING: ['VERIFIED', 'REJECTED'],
  VERIFIED: ['REJECTED'],
  REJECTED: ['PENDING'],
};
