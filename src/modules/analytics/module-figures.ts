import { together } from '../../db/client.js';
import type { AdvertisingApi } from '../advertising/index.js';
import type { AssociationsApi } from '../associations/index.js';
import type { DealsApi } from '../deals/index.js';
import type { DonationsApi } from '../donations/index.js';
import type { ReviewsApi } from '../reviews/index.js';
import type { AnalyticsService } from './analytics.service.js';

export interface ModuleFigureModules {
  reviews: ReviewsApi;
  deals: DealsApi;
  associations: AssociationsApi;
  donations: DonationsApi;
  advertising: AdvertisingApi;
}

/**
 * Plugs the figures of reviews, deals and bookings, associations, donations and advertising
 * into the dashboard, impact report and supplier performance, as registerPlatformFigures does for
 * the earlier modules: each read by its own module's `figures` (its own tables).
 */
export function registerModuleFigures(analytics: AnalyticsService, m: ModuleFigureModules): void {
  analytics.registerFigures('reviews', async (ex) => ({
    moderation: { reportedReviews: await m.reviews.figures.reportedCount(ex) },
  }));
  analytics.registerFigures('deals', async (ex, s) => {
    const [active, pending] = await together(ex, [
      () => m.deals.figures.activeCount(ex, s.now),
      () => m.deals.figures.pendingCount(ex),
    ]);
    return { catalog: { activeDeals: active }, moderation: { deals: pending } };
  });
  analytics.registerFigures('associations', async (ex) => ({
    moderation: { associations: await m.associations.figures.pendingCount(ex) },
  }));
  analytics.registerFigures('advertising', async (ex) => ({
    moderation: { campaigns: await m.advertising.figures.pendingReviewCount(ex) },
  }));
  analytics.registerImpactSource('bookings', (ex, r) => m.deals.figures.collectedFoodByPeriod(ex, r));
  analytics.registerImpactSource('foodDonations', (ex, r) => m.donations.figures.collectedFoodByPeriod(ex, r));
  analytics.registerImpactSource('financialDonations', (ex, r) => m.donations.figures.paidMoneyByPeriod(ex, r));
  analytics.registerSupplierRating((ex, supplierId) => m.reviews.figures.supplierRating(ex, supplierId));
}
