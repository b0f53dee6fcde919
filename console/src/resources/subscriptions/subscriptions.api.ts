import type { RaRecord } from 'react-admin';
import { api, unwrap, unwrapPage, type Body, type Query, type Schema } from '../../api';
import { given, page, withFieldErrors, type ResourceApi } from '../resource-api';

export type Plan = Schema<'AdminPlan'>;
export type PromoCode = Schema<'PromoCode'>;
type PlanBody = Body<'/api/v1/admin/subscriptions/plans/{planId}', 'put'>;
type NewPlan = Body<'/api/v1/admin/subscriptions/plans', 'post'>;
type PromoBody = Body<'/api/v1/admin/subscriptions/promo-codes/{promoCodeId}', 'put'>;
type NewPromo = Body<'/api/v1/admin/subscriptions/promo-codes', 'post'>;
export type PromoBatchBody = Body<'/api/v1/admin/subscriptions/promo-codes/bulk', 'post'>;

const PLAN_FIELDS = [
  'name',
  'description',
  'priceAmount',
  'periodDays',
  'maxProducts',
  'commissionDiscountBps',
  'features',
  'isPublic',
  'sortOrder',
  'isActive',
] as const;
const PROMO_FIELDS = [
  'description',
  'discountBps',
  'discountAmount',
  'planIds',
  'validFrom',
  'validUntil',
  'maxUses',
  'maxUsesPerSupplier',
  'firstSubscriptionOnly',
  'isPublic',
] as const;

const TEXTS = new Set(['name', 'description']);

/** The fields of `data` the API takes, and on a change only those that differ from `previous` (its bodies are strict). */
export function bodyOf(fields: readonly string[], data: Record<string, unknown>, previous?: Record<string, unknown>) {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    // An emptied text input may answer null; the API's texts are strings, its empty numbers null.
    const value = TEXTS.has(field) && data[field] === null ? '' : data[field];
    if (value === undefined) continue;
    if (previous && JSON.stringify(value) === JSON.stringify(previous[field] ?? null)) continue;
    body[field] = value;
  }
  return body;
}

const isoOrNull = (value: unknown) =>
  value === null || value === undefined || value === '' ? null : new Date(String(value)).toISOString();

/**
 * A promo code's form values as the API takes them: the discount the form's `discountKind` chose
 * (a code has a percentage or an amount, never both) and times in RFC 3339.
 */
export function promoValues(data: Record<string, unknown>): Record<string, unknown> {
  const kind =
    data.discountKind ?? (data.discountAmount !== null && data.discountAmount !== undefined ? 'amount' : 'percent');
  return {
    ...data,
    discountBps: kind === 'percent' ? data.discountBps : undefined,
    discountAmount: kind === 'amount' ? data.discountAmount : undefined,
    validFrom: isoOrNull(data.validFrom),
    validUntil: isoOrNull(data.validUntil),
  };
}

/** Every plan (the API answers them all at once, a few dozen at most). */
const allPlans = () => unwrap(api.GET('/api/v1/admin/subscriptions/plans'));

export const listPlans = allPlans;

export const enablePromoCode = (id: string) =>
  unwrap(
    api.PUT('/api/v1/admin/subscriptions/promo-codes/{promoCodeId}', {
      params: { path: { promoCodeId: id } },
      body: { disabled: false },
    }),
  );

export const disablePromoCode = (id: string) =>
  unwrap(
    api.POST('/api/v1/admin/subscriptions/promo-codes/{promoCodeId}/disable', {
      params: { path: { promoCodeId: id } },
    }),
  );

export const deletePlan = (id: string) =>
  unwrap(api.DELETE('/api/v1/admin/subscriptions/plans/{planId}', { params: { path: { planId: id } } }));

export const deletePromoCode = (id: string) =>
  unwrap(
    api.DELETE('/api/v1/admin/subscriptions/promo-codes/{promoCodeId}', { params: { path: { promoCodeId: id } } }),
  );

export function createPromoBatch(data: Record<string, unknown>) {
  const body = {
    ...bodyOf(PROMO_FIELDS, promoValues(data)),
    count: Number(data.count),
    prefix: given<string>(data.prefix),
  } as PromoBatchBody;
  return withFieldErrors(unwrap(api.POST('/api/v1/admin/subscriptions/promo-codes/bulk', { body })));
}

export const subscriptionsApis: Record<string, ResourceApi> = {
  plans: {
    list: async () => {
      const plans = await allPlans();
      return { data: plans, total: plans.length };
    },
    one: async (id) => {
      const plan = (await allPlans()).find((p) => p.id === id);
      if (!plan) throw new Error('ra.notification.item_doesnt_exist');
      return plan;
    },
    create: async (data) =>
      withFieldErrors(
        unwrap(
          api.POST('/api/v1/admin/subscriptions/plans', {
            body: { ...bodyOf(PLAN_FIELDS, data), code: String(data.code ?? '') } as NewPlan,
          }),
        ),
      ),
    update: async (id, data, previous: RaRecord) => {
      const body = bodyOf(PLAN_FIELDS, data, previous) as PlanBody;
      if (Object.keys(body).length === 0) return previous;
      return withFieldErrors(
        unwrap(api.PUT('/api/v1/admin/subscriptions/plans/{planId}', { params: { path: { planId: id } }, body })),
      );
    },
    remove: async (id) => {
      await deletePlan(id);
    },
  },
  'promo-codes': {
    list: async ({ page: p, perPage, filter, sort }) => {
      const query: Query<'/api/v1/admin/subscriptions/promo-codes'> = {
        page: p,
        limit: perPage,
        sort: sort as Query<'/api/v1/admin/subscriptions/promo-codes'>['sort'],
        search: given(filter.q),
        batchId: given(filter.batchId),
        status: given(filter.status),
      };
      return page(await unwrapPage(api.GET('/api/v1/admin/subscriptions/promo-codes', { params: { query } })));
    },
    create: async (data) =>
      withFieldErrors(
        unwrap(
          api.POST('/api/v1/admin/subscriptions/promo-codes', {
            body: { ...bodyOf(PROMO_FIELDS, promoValues(data)), code: String(data.code ?? '') } as NewPromo,
          }),
        ),
      ),
    update: async (id, data, previous) => {
      const body = bodyOf([...PROMO_FIELDS, 'disabled'], promoValues(data), previous) as PromoBody;
      if (Object.keys(body).length === 0) return previous;
      return withFieldErrors(
        unwrap(
          api.PUT('/api/v1/admin/subscriptions/promo-codes/{promoCodeId}', {
            params: { path: { promoCodeId: id } },
            body,
          }),
        ),
      );
    },
    remove: async (id) => {
      await deletePromoCode(id);
    },
  },
};
