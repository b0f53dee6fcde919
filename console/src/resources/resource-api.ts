import type { RaRecord } from 'react-admin';
import { ApiError } from '../api';

/** What a list page asks: the page, the sort (`field` or `-field`) and the filter form's values. */
export interface ListQuery {
  page: number;
  perPage: number;
  sort?: string;
  filter: Record<string, unknown>;
}

/** How one react-admin resource reads and writes through the typed client. */
export interface ResourceApi {
  list?(query: ListQuery): Promise<{ data: RaRecord[]; total: number }>;
  one?(id: string): Promise<RaRecord>;
  create?(data: Record<string, unknown>): Promise<RaRecord>;
  update?(id: string, data: Record<string, unknown>, previous: RaRecord): Promise<RaRecord>;
  remove?(id: string): Promise<void>;
}

/** A filter form's value, or undefined when empty (the API refuses empty strings). */
export const given = <T>(value: unknown): T | undefined =>
  value === '' || value === null || value === undefined ? undefined : (value as T);

/** A page of rows as react-admin records (each needs an `id`) with the envelope's total. */
export function page<T extends object>(
  result: { data: T[]; meta: { total: number } },
  id: (row: T) => string = (row) => (row as { id: string }).id,
) {
  return { data: result.data.map((row) => ({ ...row, id: id(row) })), total: result.meta.total };
}

/**
 * A refusal naming fields of the body (`body.priceAmount`) as react-admin's server-side validation
 * errors (`body.errors`), so each message shows under its input instead of in a notification.
 */
export async function withFieldErrors<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const details =
      err instanceof ApiError && err.status === 400 ? err.details.filter((d) => d.field.startsWith('body.')) : [];
    if (details.length)
      Object.assign(err as object, {
        body: { errors: Object.fromEntries(details.map((d) => [d.field.slice(5), d.message])) },
      });
    throw err;
  }
}
