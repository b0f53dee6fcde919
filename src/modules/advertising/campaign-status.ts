import type { CampaignStatus, TopUpStatus } from '../../db/schema/advertising.js';
import type { TransitionTable } from '../../shared/state-machine.js';

/**
 * A campaign's life. Editing a REJECTED or ACTIVE (or PAUSED) campaign sends it back to
 * PENDING_REVIEW (what moderators approved is what is served); COMPLETED is reached at the end
 * date or when the budget is spent, and is final.
 */
export const CAMPAIGN_TRANSITIONS: TransitionTable<CampaignStatus> = {
  DRAFT: ['PENDING_REVIEW'],
  PENDING_REVIEW: ['ACTIVE', 'REJECTED'],
  ACTIVE: ['PAUSED', 'COMPLETED', 'PENDING_REVIEW'],
  PAUSED: ['ACTIVE', 'COMPLETED', 'PENDING_REVIEW'],
  REJECTED: ['PENDING_REVIEW'],
  COMPLETED: [],
};

/** States whose campaign may still be edited (COMPLETED is a record). */
export const EDITABLE: readonly CampaignStatus[] = ['DRAFT', 'PENDING_REVIEW', 'REJECTED', 'ACTIVE', 'PAUSED'];
/** Edits of these send the campaign back to review. */
export const BACK_TO_REVIEW: readonly CampaignStatus[] = ['REJECTED', 'ACTIVE', 'PAUSED'];

/** What the advertiser's own actions (submit, pause, resume) may do: a part of the table above. */
export const ADVERTISER_TRANSITIONS: TransitionTable<CampaignStatus> = {
  DRAFT: ['PENDING_REVIEW'],
  PENDING_REVIEW: [],
  ACTIVE: ['PAUSED'],
  PAUSED: ['ACTIVE'],
  REJECTED: ['PENDING_REVIEW'],
  COMPLETED: [],
};

/**
 * A top-up: PAID when its payment succeeds, EXPIRED when it was not paid in time; a payment that
 * comes after the deadline is still credited (the money is the advertiser's), so EXPIRED -> PAID.
 */
export const TOPUP_TRANSITIONS: TransitionTable<TopUpStatus> = {
  PENDING: ['PAID', 'EXPIRED'],
  EXPIRED: ['PAID'],
  PAID: [],
};
