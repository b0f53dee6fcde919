import type { InvitationStatus } from '../../db/schema/staff.js';
import type { TransitionTable } from '../../shared/state-machine.js';

// An invitation is answered once: every state but PENDING is final. EXPIRED is set lazily, when
// an expired invitation is answered or the same person is invited again; REVOKED when the store goes.
export const INVITATION_TRANSITIONS: TransitionTable<InvitationStatus> = {
  PENDING: ['ACCEPTED', 'REJECTED', 'EXPIRED', 'REVOKED'],
  ACCEPTED: [],
  REJECTED: [],
  EXPIRED: [],
  REVOKED: [],
};
