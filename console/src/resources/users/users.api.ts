import { api, unwrap, unwrapPage, type Query } from '../../api';
import { given, page, type ResourceApi } from '../resource-api';

export const usersApis: Record<string, ResourceApi> = {
  users: {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/users'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/users'>['sort'],
        search: given(filter.q),
        role: given(filter.role),
        status: given(filter.status),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/users', { params: { query } })));
    },
    one: async (id) => unwrap(api.GET('/api/v1/admin/users/{id}', { params: { path: { id } } })),
  },
};
