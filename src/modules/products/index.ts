import { defineModule } from '../module.js';
import { createProductsAdminService, type ProductsAdminService } from './products-admin.service.js';
import { productsRoutes } from './products.routes.js';
import { createProductsService, type ProductsService } from './products.service.js';

export { DEFAULT_UNIT_WEIGHT_GRAMS, DIETARY_TAGS, PRODUCT_CATEGORIES } from './product-catalog.js';
export type { Allergen, DietaryTag, ProductCategory } from './product-catalog.js';
export { isPublicAt, isPublicProduct } from './product-visibility.js';
export { recomputePopularity, utcDay } from './products.repository.js';
export { viewerOf } from './products.routes.js';
export { RatingDetailSchema, productCardFields } from './products.schemas.js';
export type { CreateProductBody, RatingDetail } from './products.schemas.js';
export type { SalesFigures } from './products.views.js';

/** The catalogue: suppliers' products, stock, pictures, moderation, public pages and lists. */
export interface ProductsApi {
  create: ProductsService['create'];
  figures: ProductsService['figures'];
  findForOrder: ProductsService['findForOrder'];
  findLive: ProductsService['findLive'];
  flushViews: ProductsService['flushViews'];
  followersOf: ProductsService['followersOf'];
  getPublic: ProductsService['getPublic'];
  isPublic: ProductsService['isPublic'];
  listOfSupplier: ProductsService['listOfSupplier'];
  markDonated: ProductsService['markDonated'];
  markSold: ProductsService['markSold'];
  registerReviews: ProductsService['registerReviews'];
  registerSalesFigures: ProductsService['registerSalesFigures'];
  releaseStock: ProductsService['releaseStock'];
  reserveStock: ProductsService['reserveStock'];
  setRating: ProductsService['setRating'];
  admin: Pick<ProductsAdminService, 'approve'>;
}

declare module '../module.js' {
  interface ModuleApis {
    products: ProductsApi;
  }
}

export const productsModule = defineModule({
  name: 'products',
  needs: ['settings', 'suppliers', 'stores', 'subscriptions', 'notifications', 'auth'],
  build(ctx, { settings, suppliers, stores, subscriptions, notifications, auth }) {
    const products = createProductsService(ctx, { settings, suppliers, stores, subscriptions });
    const admin = createProductsAdminService(ctx, products, { suppliers, stores });
    return {
      api: Object.assign(products, { admin }),
      routes: productsRoutes(products, admin, auth.sessions.authenticate),
      // Suppliers hear of moderation, followers of new products: told through notifications.
      connect: () =>
        notifications.subscribeToCatalogEvents({ product: products.announcementOf, followersOf: products.followersOf }),
      close: () => products.close(),
    };
  },
});
