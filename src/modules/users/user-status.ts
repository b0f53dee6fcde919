import type { UserStatus } from '../../db/schema/users.js';
import type { TransitionTable } from '../../shared/state-machine.js';

// A deleted account is kept for the records that point at it but never comes back.
export const USER_STATUS_TRANSITIONS: TransitionTable<UserStatus> = {
  ACTIVE: ['SUSPENDED', 'DELETED'],
  SUSPENDED: ['ACTIVE', 'DELETED'],
  DELETED: [],
};
