import { api, unwrap, unwrapPage, type Query, type Schema } from '../../api';
import { given, page, type ResourceApi } from '../resource-api';

export type AdminProduct = Schema<'AdminProduct'>;
export type Deal = Schema<'Deal'>;
export type Campaign = Schema<'Campaign'>;
export type ReportedReview = Schema<'ReportedReview'>;

/** The moderation queues and the lists they come from, by react-admin resource name. */
export const moderationApis: Record<string, ResourceApi> = {
  'moderation-products': {
    list: async ({ page: p, perPage }) =>
      page(
        await unwrapPage(
          api.GET('/api/v1/admin/products/moderation', { params: { query: { page: p, limit: perPage } } }),
        ),
      ),
  },
  products: {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/products'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/products'>['sort'],
        q: given(filter.q),
        status: given(filter.status),
        category: given(filter.category),
        supplierId: given(filter.supplierId),
        storeId: given(filter.storeId),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/products', { params: { query } })));
    },
  },
  'moderation-deals': {
    list: async ({ page: p, perPage }) =>
      page(
        await unwrapPage(api.GET('/api/v1/admin/deals/pending', { params: { query: { page: p, limit: perPage } } })),
      ),
  },
  'moderation-campaigns': {
    list: async ({ page: p, perPage }) =>
      page(
        await unwrapPage(
          api.GET('/api/v1/admin/advertising/campaigns/pending', { params: { query: { page: p, limit: perPage } } }),
        ),
      ),
  },
  campaigns: {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/advertising/campaigns'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/advertising/campaigns'>['sort'],
        status: given(filter.status),
        advertiserId: given(filter.advertiserId),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/advertising/campaigns', { params: { query } })));
    },
  },
  'reported-reviews': {
    list: async ({ page: p, perPage }) =>
      page(
        await unwrapPage(api.GET('/api/v1/admin/reviews/reported', { params: { query: { page: p, limit: perPage } } })),
      ),
  },
};

/** The decisions the queues' buttons take: each answers the changed row, or throws the API's refusal. */
export const decide = {
  approveProduct: (id: string) =>
    unwrap(api.PATCH('/api/v1/admin/products/{id}/approve', { params: { path: { id } } })),
  rejectProduct: (id: string, reason: string) =>
    unwrap(api.PATCH('/api/v1/admin/products/{id}/reject', { params: { path: { id } }, body: { reason } })),
  approveProducts: (ids: string[]) => unwrap(api.POST('/api/v1/admin/products/bulk-approve', { body: { ids } })),
  approveDeal: (dealId: string) =>
    unwrap(api.POST('/api/v1/admin/deals/{dealId}/approve', { params: { path: { dealId } } })),
  rejectDeal: (dealId: string, reason: string) =>
    unwrap(api.POST('/api/v1/admin/deals/{dealId}/reject', { params: { path: { dealId } }, body: { reason } })),
  approveCampaign: (id: string) =>
    unwrap(api.PATCH('/api/v1/admin/advertising/campaigns/{id}/approve', { params: { path: { id } } })),
  rejectCampaign: (id: string, reason: string) =>
    unwrap(
      api.PATCH('/api/v1/admin/advertising/campaigns/{id}/reject', { params: { path: { id } }, body: { reason } }),
    ),
  clearReport: (id: string, reason?: string) =>
    unwrap(
      api.PATCH('/api/v1/admin/reviews/{id}/clear-report', {
        params: { path: { id } },
        body: reason ? { reason } : {},
      }),
    ),
  deleteReview: (id: string, reason?: string) =>
    unwrap(api.DELETE('/api/v1/admin/reviews/{id}', { params: { path: { id }, query: { reason } } })),
};
