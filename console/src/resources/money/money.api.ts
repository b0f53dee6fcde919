import { api, unwrap, unwrapPage, type Query } from '../../api';
import { given, page, type ResourceApi } from '../resource-api';

const DAY = 86_400_000;

/** A date input's day (`YYYY-MM-DD`, Dakar's days are UTC's) as the instant it starts. */
export const dayStart = (day: unknown): string | undefined =>
  typeof day === 'string' && day ? new Date(`${day.slice(0, 10)}T00:00:00.000Z`).toISOString() : undefined;
/** The instant after a day, so a range "to" that day includes it (the API's `to` is excluded). */
export const dayAfter = (day: unknown): string | undefined => {
  const start = dayStart(day);
  return start && new Date(Date.parse(start) + DAY).toISOString();
};

export const moneyApis: Record<string, ResourceApi> = {
  escrows: {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/payments/escrow'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/payments/escrow'>['sort'],
        state: given(filter.state),
        supplierId: given(filter.supplierId),
        storeId: given(filter.storeId),
        payout: given(filter.payout),
        from: dayStart(filter.from),
        to: dayAfter(filter.to),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/payments/escrow', { params: { query } })), (e) => e.orderId);
    },
    one: async (orderId) => {
      const detail = await unwrap(
        api.GET('/api/v1/admin/payments/escrow/{orderId}', { params: { path: { orderId } } }),
      );
      return { ...detail, id: orderId };
    },
  },
  payouts: {
    list: async ({ page: p, perPage, filter }) => {
      const query: Query<'/api/v1/admin/payments/payouts'> = {
        page: p,
        limit: perPage,
        state: given(filter.state),
        payee: given(filter.payee),
        supplierId: given(filter.supplierId),
        // The switch off means any payout, not only those that are not waiting.
        waiting: filter.waiting === true ? true : undefined,
        from: dayStart(filter.from),
        to: dayAfter(filter.to),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/payments/payouts', { params: { query } })));
    },
  },
  // Choices of the filters: suppliers by name (every status), stores by name (public ones, of the chosen supplier).
  'money-suppliers': {
    list: async ({ perPage, filter }) => {
      const query: Query<'/api/v1/admin/suppliers'> = {
        page: 1,
        limit: Math.min(perPage, 25),
        search: given(filter.q),
        includeDeleted: true,
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/suppliers', { params: { query } })));
    },
    one: async (id) => unwrap(api.GET('/api/v1/suppliers/{id}', { params: { path: { id } } })),
  },
  'money-stores': {
    list: async ({ perPage, filter }) => {
      const query: Query<'/api/v1/stores'> = {
        page: 1,
        limit: Math.min(perPage, 25),
        q: given(filter.q),
        supplierId: given(filter.supplierId),
      };
      return page(await unwrapPage(api.GET('/api/v1/stores', { params: { query } })));
    },
    one: async (storeId) => unwrap(api.GET('/api/v1/stores/{storeId}', { params: { path: { storeId } } })),
  },
};
