import { sql } from 'drizzle-orm';
import {
  check,
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import type { PaymentMethod } from '../../shared/payment-methods.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const CAMPAIGN_STATUSES = ['DRAFT', 'PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'PAUSED', 'COMPLETED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const AD_PLACEMENTS = ['HOME_BANNER', 'SEARCH_RESULTS', 'PRODUCT_PAGE'] as const;
export type AdPlacement = (typeof AD_PLACEMENTS)[number];
export const AD_TARGET_TYPES = ['PRODUCT', 'STORE', 'SUPPLIER', 'URL'] as const;
export type AdTargetType = (typeof AD_TARGET_TYPES)[number];
export const PRICING_MODELS = ['CPC', 'CPM'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];
/** Why the platform stopped a campaign (null: running, or stopped by its advertiser or a moderator). */
export const STOP_REASONS = ['END_DATE', 'BUDGET_SPENT', 'BALANCE_SPENT'] as const;
export type StopReason = (typeof STOP_REASONS)[number];
export const TOPUP_STATUSES = ['PENDING', 'PAID', 'EXPIRED'] as const;
export type TopUpStatus = (typeof TOPUP_STATUSES)[number];

/** One per user: who pays for the campaigns and how to reach them. */
export const advertiserProfiles = pgTable('advertiser_profiles', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .unique()
    .references(() => users.id),
  companyName: text('company_name').notNull(),
  contactName: text('contact_name').notNull(),
  contactEmail: text('contact_email').notNull(),
  contactPhone: text('contact_phone').notNull(),
  website: text('website'),
  billingAddress: text('billing_address').notNull(),
  billingTaxId: text('billing_tax_id'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const adCampaigns = pgTable(
  'ad_campaigns',
  {
    id: uuid('id').primaryKey(),
    advertiserId: uuid('advertiser_id')
      .notNull()
      .references(() => advertiserProfiles.id),
    name: text('name').notNull(),
    status: text('status').$type<CampaignStatus>().notNull().default('DRAFT'),
    title: text('title').notNull(),
    text: text('text').notNull().default(''),
    imageKey: text('image_key'),
    targetType: text('target_type').$type<AdTargetType>().notNull(),
    targetId: uuid('target_id'),
    targetUrl: text('target_url'),
    placement: text('placement').$type<AdPlacement>().notNull(),
    cities: text('cities').array().notNull().default(sql`'{}'::text[]`),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    radiusKm: doublePrecision('radius_km'),
    categories: text('categories').array().notNull().default(sql`'{}'::text[]`),
    startsAt: ts('starts_at').notNull(),
    endsAt: ts('ends_at').notNull(),
    // Whole XOF. `spent` is paid from the advertiser's prepaid balance (ledger `ad_spend` postings).
    totalBudget: integer('total_budget').notNull(),
    dailyBudget: integer('daily_budget').notNull(),
    currency: text('currency').notNull().default('XOF'),
    pricingModel: text('pricing_model').$type<PricingModel>().notNull(),
    // Per click (CPC) or per thousand impressions (CPM).
    bid: integer('bid').notNull(),
    spent: integer('spent').notNull().default(0),
    // What was spent before spend was billed (migration 0042): never posted to the ledger.
    spentUnbilled: integer('spent_unbilled').notNull().default(0),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    rejectionReason: text('rejection_reason'),
    stopReason: text('stop_reason').$type<StopReason>(),
    submittedAt: ts('submitted_at'),
    approvedAt: ts('approved_at'),
    completedAt: ts('completed_at'),
    deletedAt: ts('deleted_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('ad_campaigns_advertiser_idx').on(t.advertiserId, t.createdAt),
    index('ad_campaigns_status_idx').on(t.status, t.submittedAt),
    check('ad_campaigns_spent_within_budget', sql`${t.spent} >= 0 AND ${t.spent} <= ${t.totalBudget}`),
    check('ad_campaigns_budgets', sql`${t.dailyBudget} > 0 AND ${t.dailyBudget} <= ${t.totalBudget} AND ${t.bid} > 0`),
  ],
);

/** Figures per campaign and day (the platform's time zone): what stats read and pacing checks. */
export const adCampaignDaily = pgTable(
  'ad_campaign_daily',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => adCampaigns.id),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    spend: integer('spend').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.day] })],
);

/** The last counted click of a viewer on a campaign: a click counts once per viewer per 30 minutes. */
export const adClickViewers = pgTable(
  'ad_click_viewers',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => adCampaigns.id),
    viewerKey: text('viewer_key').notNull(),
    countedAt: ts('counted_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.viewerKey] })],
);

/**
 * Money an advertiser adds to its prepaid balance: the subject of a payment (`advertising_topup`).
 * The balance itself is the ledger account `advertiser_balance:<advertiserId>`, never a column.
 */
export const adTopUps = pgTable(
  'ad_topups',
  {
    id: uuid('id').primaryKey(),
    advertiserId: uuid('advertiser_id')
      .notNull()
      .references(() => advertiserProfiles.id),
    // Who pays and is told.
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    status: text('status').$type<TopUpStatus>().notNull().default('PENDING'),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull().default('XOF'),
    method: text('method').$type<PaymentMethod>().notNull(),
    expiresAt: ts('expires_at').notNull(),
    paidAt: ts('paid_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('ad_topups_advertiser_idx').on(t.advertiserId, t.createdAt),
    check('ad_topups_amount', sql`${t.amount} > 0`),
  ],
);

/** Impression batches already applied (and billed): a batch retried after an unclear failure applies once. */
export const adImpressionBatches = pgTable('ad_impression_batches', {
  id: uuid('id').primaryKey(),
  appliedAt: ts('applied_at').notNull(),
});
