import { defineModule } from '../module.js';
import { createReviewsModerationService } from './reviews-moderation.service.js';
import { reviewsRoutes } from './reviews.routes.js';
import { createReviewsService, type ReviewsService } from './reviews.service.js';

/** Reviews of products and suppliers by clients who bought, their replies, reports and moderation. */
export interface ReviewsApi {
  figures: ReviewsService['figures'];
}

declare module '../module.js' {
  interface ModuleApis {
    reviews: ReviewsApi;
  }
}

export const reviewsModule = defineModule({
  name: 'reviews',
  needs: ['settings', 'products', 'suppliers', 'orders', 'notifications', 'auth'],
  build(ctx, { settings, products, suppliers, orders, notifications, auth }) {
    const reviews = createReviewsService(ctx, { settings, products, suppliers, orders, notifications });
    const moderation = createReviewsModerationService(ctx, reviews);
    return {
      api: Object.assign(reviews, { moderation }),
      routes: reviewsRoutes(reviews, moderation, auth.sessions.authenticate),
    };
  },
});
