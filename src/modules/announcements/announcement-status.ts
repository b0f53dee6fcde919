import type { AnnouncementStatus } from '../../db/schema/announcements.js';
import type { TransitionTable } from '../../shared/state-machine.js';

// An audience that fits in the first batch goes from QUEUED to SENT at once.
export const ANNOUNCEMENT_TRANSITIONS: TransitionTable<AnnouncementStatus> = {
  QUEUED: ['SENDING', 'SENT'],
  SENDING: ['SENT'],
  SENT: [],
};
