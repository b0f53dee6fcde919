import { api, unwrap, unwrapPage, type Query } from '../../api';
import { given, page, type ListQuery, type ResourceApi } from '../resource-api';

function filters({ filter }: ListQuery) {
  return {
    search: given<string>(filter.q),
    kycStatus: given<Query<'/api/v1/admin/suppliers'>['kycStatus']>(filter.kycStatus),
    category: given<Query<'/api/v1/admin/suppliers'>['category']>(filter.category),
    city: given<string>(filter.city),
  };
}

const one = (id: string) => unwrap(api.GET('/api/v1/admin/suppliers/{id}', { params: { path: { id } } }));

export const suppliersApis: Record<string, ResourceApi> = {
  suppliers: {
    list: async (q) => {
      const sort = q.sort as Query<'/api/v1/admin/suppliers'>['sort'];
      const query: Query<'/api/v1/admin/suppliers'> = {
        page: q.page,
        limit: q.perPage,
        sort,
        ...filters(q),
        status: given(q.filter.status),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/suppliers', { params: { query } })));
    },
    one,
  },
  // The review queue: pending profiles, oldest first unless sorted otherwise.
  'suppliers-pending': {
    list: async (q) => {
      const sort = q.sort as Query<'/api/v1/admin/suppliers/pending'>['sort'];
      const query: Query<'/api/v1/admin/suppliers/pending'> = { page: q.page, limit: q.perPage, sort, ...filters(q) };
      return page(await unwrapPage(api.GET('/api/v1/admin/suppliers/pending', { params: { query } })));
    },
    one,
  },
  // A supplier's stores in every state (the supplier's page lists them by `supplierId`).
  'supplier-stores': {
    list: async ({ page: p, perPage, filter }) => {
      const id = String(filter.supplierId);
      const query: Query<'/api/v1/admin/suppliers/{id}/stores'> = {
        page: p,
        limit: perPage,
        isActive: given(filter.isActive),
      };
      return page(
        await unwrapPage(api.GET('/api/v1/admin/suppliers/{id}/stores', { params: { path: { id }, query } })),
      );
    },
  },
};

export const setCommission = (id: string, commissionRateBps: number, reason?: string) =>
  unwrap(
    api.PATCH('/api/v1/admin/suppliers/{id}/commission', {
      params: { path: { id } },
      body: { commissionRateBps, reason },
    }),
  );

export const verifySupplier = (id: string, reason?: string) =>
  unwrap(
    api.PATCH('/api/v1/admin/suppliers/{id}/verify', { params: { path: { id } }, body: reason ? { reason } : {} }),
  );

export const rejectSupplier = (id: string, reason: string) =>
  unwrap(api.PATCH('/api/v1/admin/suppliers/{id}/reject', { params: { path: { id } }, body: { reason } }));
