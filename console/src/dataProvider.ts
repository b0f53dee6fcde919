import type { DataProvider, RaRecord } from 'react-admin';
import { RESOURCE_APIS, type ListQuery } from './resources/apis';

function resourceApi(resource: string) {
  const api = RESOURCE_APIS[resource];
  if (!api) throw new Error(`No API for the resource ${resource}`);
  return api;
}

function missing(resource: string, what: string): never {
  throw new Error(`The resource ${resource} cannot ${what}`);
}

/**
 * react-admin's calls mapped onto the API, resource by resource (resources/apis.ts): paging,
 * sorting and filtering all happen on the server.
 */
export const dataProvider: DataProvider = {
  async getList(resource, params) {
    const api = resourceApi(resource);
    if (!api.list) missing(resource, 'be listed');
    const { page = 1, perPage = 25 } = params.pagination ?? {};
    const { field, order } = params.sort ?? { field: '', order: 'ASC' };
    const query: ListQuery = {
      page,
      perPage,
      filter: params.filter ?? {},
      sort: field && field !== 'id' ? `${order === 'DESC' ? '-' : ''}${field}` : undefined,
    };
    const { data, total } = await api.list(query);
    return { data: data as never[], total };
  },
  async getOne(resource, params) {
    const api = resourceApi(resource);
    if (!api.one) missing(resource, 'be read');
    return { data: (await api.one(String(params.id))) as never };
  },
  async getMany(resource, params) {
    const api = resourceApi(resource);
    if (!api.one) missing(resource, 'be read');
    const one = api.one;
    return { data: (await Promise.all(params.ids.map((id) => one(String(id))))) as never[] };
  },
  async getManyReference(resource, params) {
    return dataProvider.getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } });
  },
  async create(resource, params) {
    const api = resourceApi(resource);
    if (!api.create) missing(resource, 'be created');
    return { data: (await api.create(params.data)) as never };
  },
  async update(resource, params) {
    const api = resourceApi(resource);
    if (!api.update) missing(resource, 'be changed');
    return { data: (await api.update(String(params.id), params.data, params.previousData as RaRecord)) as never };
  },
  async updateMany() {
    throw new Error('Bulk changes go through the pages’ own actions');
  },
  async delete(resource, params) {
    const api = resourceApi(resource);
    if (!api.remove) missing(resource, 'be deleted');
    await api.remove(String(params.id));
    return { data: params.previousData as never };
  },
  async deleteMany(resource, params) {
    const api = resourceApi(resource);
    if (!api.remove) missing(resource, 'be deleted');
    for (const id of params.ids) await api.remove(String(id));
    return { data: params.ids };
  },
};
