import { Type, type Static } from 'typebox';
import {
  AD_PLACEMENTS,
  AD_TARGET_TYPES,
  CAMPAIGN_STATUSES,
  PRICING_MODELS,
  STOP_REASONS,
} from '../../db/schema/advertising.js';
import {
  EmailSchema,
  IdSchema,
  Nullable,
  PageQuerySchema,
  PhoneSchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { PRODUCT_CATEGORIES } from '../products/index.js';

const HttpsUrl = Type.String({ format: 'uri', pattern: '^https://', maxLength: 2000, description: 'An https:// URL' });
const Money = (description: string) =>
  Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: `${description} (whole XOF)` });
const Placement = StringEnum(AD_PLACEMENTS, { description: 'HOME_BANNER, SEARCH_RESULTS or PRODUCT_PAGE' });
const Category = StringEnum(PRODUCT_CATEGORIES);
const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

// ---- advertiser profile

const profileFields = {
  companyName: Type.String({ minLength: 2, maxLength: 200 }),
  contactName: Type.String({ minLength: 2, maxLength: 200 }),
  contactEmail: EmailSchema,
  contactPhone: PhoneSchema,
  website: Nullable(HttpsUrl),
  billingAddress: Type.String({ minLength: 5, maxLength: 500 }),
  billingTaxId: Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'Tax number (NINEA in Senegal)' })),
};
export const CreateProfileBodySchema = Type.Object(
  {
    ...profileFields,
    website: Type.Optional(profileFields.website),
    billingTaxId: Type.Optional(profileFields.billingTaxId),
  },
  { additionalProperties: false },
);
export type CreateProfileBody = Static<typeof CreateProfileBodySchema>;
export const UpdateProfileBodySchema = Type.Partial(Type.Object(profileFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateProfileBody = Static<typeof UpdateProfileBodySchema>;

export const AdvertiserSchema = Type.Object(
  {
    id: IdSchema,
    userId: IdSchema,
    companyName: Type.String(),
    contactName: Type.String(),
    contactEmail: Type.String(),
    contactPhone: Type.String(),
    website: Nullable(Type.String()),
    billingAddress: Type.String(),
    billingTaxId: Nullable(Type.String()),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'Advertiser' },
);
export type AdvertiserView = Static<typeof AdvertiserSchema>;

// ---- campaigns

const TargetSchema = Type.Object(
  {
    type: StringEnum(AD_TARGET_TYPES, {
      description: 'PRODUCT, STORE or SUPPLIER (with id, public) or URL (with url)',
    }),
    id: Type.Optional(IdSchema),
    url: Type.Optional(HttpsUrl),
  },
  { additionalProperties: false },
);
const TargetingSchema = Type.Object(
  {
    cities: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true }),
    ),
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    radiusKm: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 500 })),
    categories: Type.Optional(Type.Array(Category, { maxItems: PRODUCT_CATEGORIES.length, uniqueItems: true })),
  },
  {
    additionalProperties: false,
    description: 'Empty or absent: shown everywhere. A point needs latitude, longitude and radiusKm together.',
  },
);
// base64 of a 5 MB file is under 7,000,000 characters.
const ImageData = Type.String({
  minLength: 1,
  maxLength: 7_000_000,
  description: 'The picture as base64 (or a data: URL): JPEG, PNG or WebP, 5 MB at most',
});
const creativeFields = {
  title: Type.String({ minLength: 2, maxLength: 80 }),
  text: Type.String({ maxLength: 300 }),
};
const campaignFields = {
  name: Type.String({ minLength: 2, maxLength: 120 }),
  target: TargetSchema,
  placement: Placement,
  targeting: TargetingSchema,
  startsAt: TimestampSchema,
  endsAt: TimestampSchema,
  totalBudget: Money('Total budget'),
  dailyBudget: Money('Daily budget, at most the total'),
  pricingModel: StringEnum(PRICING_MODELS, {
    description: 'CPC (bid per click) or CPM (bid per thousand impressions)',
  }),
  bid: Money('Price of a click (CPC) or of a thousand impressions (CPM)'),
};
export const CreateCampaignBodySchema = Type.Object(
  {
    ...campaignFields,
    creative: Type.Object(
      { ...creativeFields, text: Type.Optional(creativeFields.text), image: Type.Optional(ImageData) },
      { additionalProperties: false },
    ),
    targeting: Type.Optional(TargetingSchema),
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = Static<typeof CreateCampaignBodySchema>;
export const UpdateCampaignBodySchema = Type.Object(
  {
    ...Type.Partial(Type.Object(campaignFields)).properties,
    creative: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(creativeFields.title),
          text: Type.Optional(creativeFields.text),
          image: Type.Optional(Nullable(ImageData)),
        },
        { additionalProperties: false, description: 'image: null removes the picture' },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCampaignBody = Static<typeof UpdateCampaignBodySchema>;

const TargetViewSchema = Type.Object(
  {
    type: StringEnum(AD_TARGET_TYPES),
    id: Nullable(IdSchema),
    url: Type.String({
      description: 'Where a click leads: an https URL or the API path of the product, store or supplier',
    }),
  },
  { title: 'AdTarget' },
);
export type TargetView = Static<typeof TargetViewSchema>;

export const CampaignSchema = Type.Object(
  {
    id: IdSchema,
    advertiserId: IdSchema,
    name: Type.String(),
    status: StringEnum(CAMPAIGN_STATUSES),
    creative: Type.Object({ title: Type.String(), text: Type.String(), imageUrl: Nullable(Type.String()) }),
    target: TargetViewSchema,
    placement: Placement,
    targeting: Type.Object({
      cities: Type.Array(Type.String()),
      latitude: Nullable(Type.Number()),
      longitude: Nullable(Type.Number()),
      radiusKm: Nullable(Type.Number()),
      categories: Type.Array(Type.String()),
    }),
    startsAt: TimestampSchema,
    endsAt: TimestampSchema,
    totalBudget: Type.Integer(),
    dailyBudget: Type.Integer(),
    currency: Type.String(),
    pricingModel: StringEnum(PRICING_MODELS),
    bid: Type.Integer(),
    spent: Type.Integer(),
    impressions: Type.Integer(),
    clicks: Type.Integer(),
    rejectionReason: Nullable(Type.String()),
    stopReason: Nullable(
      StringEnum(STOP_REASONS, {
        description:
          'why the platform stopped it: END_DATE or BUDGET_SPENT (COMPLETED), BALANCE_SPENT (PAUSED until a top-up)',
      }),
    ),
    submittedAt: Nullable(TimestampSchema),
    approvedAt: Nullable(TimestampSchema),
    completedAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  { title: 'Campaign' },
);
export type CampaignView = Static<typeof CampaignSchema>;

export const CampaignParamsSchema = Type.Object({ id: IdSchema }, { additionalProperties: false });
export const OwnCampaignsQuerySchema = Type.Object(
  { ...PageQuerySchema.properties, status: Type.Optional(StringEnum(CAMPAIGN_STATUSES)) },
  { additionalProperties: false },
);
export type OwnCampaignsQuery = Static<typeof OwnCampaignsQuerySchema>;
export const CAMPAIGN_SORT_FIELDS = [
  'createdAt',
  'submittedAt',
  'approvedAt',
  'startsAt',
  'endsAt',
  'name',
  'status',
  'totalBudget',
  'dailyBudget',
  'bid',
  'spent',
  'impressions',
  'clicks',
] as const;
export type CampaignSortField = (typeof CAMPAIGN_SORT_FIELDS)[number];
export const AdminCampaignsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: Type.Optional(StringEnum(CAMPAIGN_STATUSES)),
    advertiserId: Type.Optional(IdSchema),
    sort: SortQuerySchema(
      'AdminCampaignSort',
      CAMPAIGN_SORT_FIELDS,
      '-createdAt (newest first); with status=PENDING_REVIEW, submittedAt (the review queue)',
    ),
  },
  { additionalProperties: false },
);
export type AdminCampaignsQuery = Static<typeof AdminCampaignsQuerySchema>;
export const AdvertisersQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Part of the company name or contact email' }),
    ),
  },
  { additionalProperties: false },
);
export type AdvertisersQuery = Static<typeof AdvertisersQuerySchema>;
export const PendingQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export const RejectBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 500 }) },
  { additionalProperties: false },
);

export const StatsQuerySchema = Type.Object(
  { from: Type.Optional(Day), to: Type.Optional(Day) },
  {
    additionalProperties: false,
    description: 'Days in the platform time zone, both included; default the last 30 days',
  },
);
export type StatsQuery = Static<typeof StatsQuerySchema>;
const figures = {
  impressions: Type.Integer(),
  clicks: Type.Integer(),
  ctrBps: Type.Integer({ description: 'Clicks per impression in basis points (100 = 1%)' }),
  spend: Type.Integer(),
};
export const CampaignStatsSchema = Type.Object(
  {
    campaignId: IdSchema,
    status: StringEnum(CAMPAIGN_STATUSES),
    currency: Type.String(),
    totals: Type.Object(figures, { description: 'Since the campaign began' }),
    budget: Type.Object({ total: Type.Integer(), daily: Type.Integer(), remaining: Type.Integer() }),
    from: Day,
    to: Day,
    days: Type.Array(Type.Object({ day: Day, ...figures })),
  },
  { title: 'CampaignStats' },
);
export type CampaignStatsView = Static<typeof CampaignStatsSchema>;

// ---- serving

export const AdsQuerySchema = Type.Object(
  {
    placement: Placement,
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    category: Type.Optional(Category),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    limit: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
  },
  { additionalProperties: false },
);
export type AdsQuery = Static<typeof AdsQuerySchema>;
// Served on the hottest public route: `type: [..., 'null']` serialises without trying each branch
// of a union.
const StringOrNull = Type.Unsafe<string | null>({ type: ['string', 'null'] });
export const AdSchema = Type.Object(
  {
    id: IdSchema,
    placement: Placement,
    title: Type.String(),
    text: Type.String(),
    imageUrl: StringOrNull,
    target: Type.Object({ type: StringEnum(AD_TARGET_TYPES), id: StringOrNull, url: Type.String() }),
    clickToken: Type.String({
      description: 'Send it to POST /advertising/ads/:id/click (one token covers the ads of one answer)',
    }),
    clickTokenExpiresAt: TimestampSchema,
  },
  { title: 'Ad' },
);
export type AdView = Static<typeof AdSchema>;
export const ClickBodySchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 600 }) },
  { additionalProperties: false },
);
export const ClickResultSchema = Type.Object(
  {
    counted: Type.Boolean({ description: 'False for a repeat within 30 minutes or a campaign no longer served' }),
    target: TargetViewSchema,
  },
  { title: 'AdClick' },
);
export type ClickResult = Static<typeof ClickResultSchema>;
export const AdListSchema = Type.Array(AdSchema);
