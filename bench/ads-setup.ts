// Campaigns for the GET /advertising/ads scenario: 200 ACTIVE campaigns over the three placements,
// half targeting cities, some a point around Dakar or a category, with budgets the run cannot spend.
import { adCampaigns, advertiserProfiles } from '../src/db/schema/advertising.js';
import type { App } from '../src/http/types.js';
import { PRODUCT_CATEGORIES } from '../src/modules/products/product-catalog.js';
import { uuidv7 } from '../src/shared/ids.js';

const CITIES = ['Dakar', 'Thies', 'Saint-Louis', 'Kaolack', 'Ziguinchor', 'Touba', 'Mbour', 'Rufisque'];
const PLACEMENTS = ['HOME_BANNER', 'SEARCH_RESULTS', 'PRODUCT_PAGE'] as const;

export async function prepareAds(app: App, userId: string): Promise<void> {
  const now = app.ctx.clock.now();
  const advertiserId = uuidv7();
  await app.ctx.db.insert(advertiserProfiles).values({
    id: advertiserId,
    userId,
    companyName: 'Bench Ads',
    contactName: 'Bench',
    contactEmail: 'bench-ads@example.test',
    contactPhone: '+221771234567',
    billingAddress: 'Dakar',
    createdAt: now,
    updatedAt: now,
  });
  await app.ctx.db.insert(adCampaigns).values(
    Array.from({ length: 200 }, (_, i) => ({
      id: uuidv7(),
      advertiserId,
      name: `Campagne ${i}`,
      status: 'ACTIVE' as const,
      title: `Offre ${i}`,
      text: 'Paniers anti-gaspi près de chez vous',
      targetType: 'URL' as const,
      targetUrl: `https://ads.example.test/${i}`,
      placement: PLACEMENTS[i % PLACEMENTS.length]!,
      cities: i % 2 === 0 ? [CITIES[i % CITIES.length]!] : [],
      ...(i % 5 === 0 && { latitude: 14.6928, longitude: -17.4467, radiusKm: 10 + (i % 20) }),
      categories: i % 7 === 0 ? [PRODUCT_CATEGORIES[i % PRODUCT_CATEGORIES.length]!] : [],
      startsAt: new Date(now.getTime() - 3600_000),
      endsAt: new Date(now.getTime() + 30 * 86_400_000),
      totalBudget: 1_000_000_000,
      dailyBudget: 1_000_000_000,
      pricingModel: i % 3 === 0 ? ('CPM' as const) : ('CPC' as const),
      bid: 50 + (i % 10) * 25,
      createdAt: now,
      updatedAt: now,
    })),
  );
  app.services.advertising.serving.changed();
}
