import type { FileLinks } from '../../providers/storage/storage.js';
import { targetOf } from './ad-serving.js';
import type { AdvertiserRecord, CampaignRecord } from './advertising.repository.js';
import type { AdvertiserView, CampaignView } from './advertising.schemas.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const toAdvertiserView = (p: AdvertiserRecord): AdvertiserView => ({
  id: p.id,
  userId: p.userId,
  companyName: p.companyName,
  contactName: p.contactName,
  contactEmail: p.contactEmail,
  contactPhone: p.contactPhone,
  website: p.website,
  billingAddress: p.billingAddress,
  billingTaxId: p.billingTaxId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

export const toCampaignView = (c: CampaignRecord, links: FileLinks, apiPrefix: string): CampaignView => ({
  id: c.id,
  advertiserId: c.advertiserId,
  name: c.name,
  status: c.status,
  creative: { title: c.title, text: c.text, imageUrl: c.imageKey ? links.publicUrl(c.imageKey) : null },
  target: targetOf(c, apiPrefix),
  placement: c.placement,
  targeting: {
    cities: c.cities,
    latitude: c.latitude,
    longitude: c.longitude,
    radiusKm: c.radiusKm,
    categories: c.categories,
  },
  startsAt: c.startsAt.toISOString(),
  endsAt: c.endsAt.toISOString(),
  totalBudget: c.totalBudget,
  dailyBudget: c.dailyBudget,
  currency: c.currency,
  pricingModel: c.pricingModel,
  bid: c.bid,
  spent: c.spent,
  impressions: c.impressions,
  clicks: c.clicks,
  rejectionReason: c.rejectionReason,
  stopReason: c.stopReason,
  submittedAt: iso(c.submittedAt),
  approvedAt: iso(c.approvedAt),
  completedAt: iso(c.completedAt),
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});
