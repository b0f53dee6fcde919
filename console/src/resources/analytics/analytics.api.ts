import { api, unwrap, type Query } from '../../api';

export type TopPeriod = 'day' | 'week' | 'month';
/** A period of the page: the last day, 7 or 30 days, or UTC days from and to (both included). */
export type TopRange = { period: TopPeriod } | { from: string; to: string };

const DAY = 86_400_000;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString();

export function topSearches(range: TopRange, limit: number) {
  const query: Query<'/api/v1/admin/analytics/top-searches'> = { ...range, limit };
  return unwrap(api.GET('/api/v1/admin/analytics/top-searches', { params: { query } }));
}

/** The products' route takes times with an excluded end: the same days as the searches'. */
export function topProducts(range: TopRange, limit: number) {
  const query: Query<'/api/v1/admin/analytics/top-products'> =
    'period' in range
      ? { period: range.period, limit }
      : { from: `${range.from}T00:00:00.000Z`, to: nextDay(range.to), limit };
  return unwrap(api.GET('/api/v1/admin/analytics/top-products', { params: { query } }));
}
