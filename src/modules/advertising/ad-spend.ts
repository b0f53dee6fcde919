import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { advertiserBalance, platformAdvertising, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import * as repo from './billing.repository.js';

export const AD_CURRENCY = 'XOF';

/** Whether `left` pays a campaign's next unit: a CPC click's bid, anything for CPM (as billing.repository's SQL). */
export const isFunded = (c: { pricingModel: string; bid: number }, left: number) =>
  c.pricingModel === 'CPC' ? c.bid <= left : left > 0;

export interface AdSpendDeps {
  ledger: LedgerApi;
  notifications: NotificationsApi;
}

/**
 * Spend paid from an advertiser's prepaid balance, the ledger account advertiser_balance:<id>
 * (negative: money held for the advertiser). Every path that spends locks the advertiser's profile
 * row first, then reads the balance and locks the campaigns it charges: the fixed lock order
 * (advertiser, then campaigns) under which two spends of one balance wait for each other, so the
 * balance never pays more than it holds.
 */
export function createAdSpend(ctx: AppContext, deps: AdSpendDeps) {
  /** What the advertiser may still spend (the balance as a positive amount); the caller holds its lock. */
  const available = async (tx: Executor, advertiserId: string) =>
    -(await deps.ledger.balance(tx, advertiserBalance(advertiserId)));

  return {
    available,

    /** Locks the advertisers (in id order) and answers what each may spend. */
    async lock(tx: Executor, advertiserIds: string[]): Promise<Map<string, number>> {
      const out = new Map<string, number>();
      for (const id of [...new Set(advertiserIds)].sort()) {
        await repo.lockAdvertiser(tx, id);
        out.set(id, await available(tx, id));
      }
      return out;
    },

    /** One spend on the ledger: advertiser_balance -> platform_advertising, once per key. */
    async post(
      tx: Executor,
      s: { advertiserId: string; campaignId: string; amount: number; key: string; memo: string },
    ): Promise<void> {
      await deps.ledger.post(tx, {
        kind: 'ad_spend',
        reference: { type: 'ad_campaign', id: s.campaignId },
        idempotencyKey: s.key,
        currency: AD_CURRENCY,
        memo: s.memo,
        lines: [
          { account: advertiserBalance(s.advertiserId), amount: s.amount },
          { account: platformAdvertising, amount: -s.amount },
        ],
      });
    },

    /**
     * Pauses the advertiser's ACTIVE campaigns the balance left can no longer pay (a CPC campaign
     * its next click, a CPM one anything), with the reason BALANCE_SPENT, and tells the advertiser.
     * Answers how many stopped; the caller drops the served set after commit.
     */
    async pauseUnfunded(tx: Executor, advertiserId: string, left: number): Promise<number> {
      const at = ctx.clock.now();
      const stopped = await repo.pauseUnfunded(tx, advertiserId, left, at);
      if (!stopped.length) return 0;
      const userId = await repo.userOfAdvertiser(tx, advertiserId);
      for (const c of stopped)
        await deps.notifications.notify(
          tx,
          userId,
          'ad_campaign_paused',
          { campaignId: c.id, campaignName: c.name, reason: 'BALANCE_SPENT', balance: left },
          { sourceKey: `ad_campaign_paused:${c.id}:${at.getTime()}` },
        );
      return stopped.length;
    },
  };
}
export type AdSpend = ReturnType<typeof createAdSpend>;
