import { defineModule } from '../module.js';
import { productSearchRoutes } from './product-search.routes.js';
import { createProductSearchService } from './product-search.service.js';

/** Searching products by words, place and filters; the searches people type (top searches). */
export type ProductSearchApi = Record<never, never>;

declare module '../module.js' {
  interface ModuleApis {
    productSearch: ProductSearchApi;
  }
}

export const productSearchModule = defineModule({
  name: 'productSearch',
  needs: [],
  build(ctx) {
    const search = createProductSearchService(ctx);
    return { api: search, routes: productSearchRoutes(search), close: () => search.close() };
  },
});
