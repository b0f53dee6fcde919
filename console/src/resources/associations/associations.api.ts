import { api, unwrap, unwrapPage, type Query } from '../../api';
import { given, page, type ListQuery, type ResourceApi } from '../resource-api';

const filters = ({ filter }: ListQuery) => ({ search: given<string>(filter.q), city: given<string>(filter.city) });

export const associationsApis: Record<string, ResourceApi> = {
  associations: {
    list: async (q) => {
      const sort = q.sort as Query<'/api/v1/admin/associations'>['sort'];
      const query: Query<'/api/v1/admin/associations'> = {
        page: q.page,
        limit: q.perPage,
        sort,
        ...filters(q),
        status: given(q.filter.status),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/associations', { params: { query } })));
    },
  },
  // The verification queue: oldest submission first (it takes no sort).
  'associations-pending': {
    list: async (q) => {
      const query: Query<'/api/v1/admin/associations/pending'> = { page: q.page, limit: q.perPage, ...filters(q) };
      return page(await unwrapPage(api.GET('/api/v1/admin/associations/pending', { params: { query } })));
    },
  },
};

export const verifyAssociation = (associationId: string, reason?: string) =>
  unwrap(
    api.POST('/api/v1/admin/associations/{associationId}/verify', {
      params: { path: { associationId } },
      body: reason ? { reason } : {},
    }),
  );

export const rejectAssociation = (associationId: string, reason: string) =>
  unwrap(
    api.POST('/api/v1/admin/associations/{associationId}/reject', {
      params: { path: { associationId } },
      body: { reason },
    }),
  );

export const associationStats = () => unwrap(api.GET('/api/v1/admin/associations/stats'));
