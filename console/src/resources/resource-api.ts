import type { RaRecord } from 'react-admin';

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
export const given = <T>(value: unknown): T | undefined => (value === '' || value === null || value === undefined ? undefined : (value as T));

/** A page of rows as react-admin records (each needs an `id`) with the envelope's total. */
export function page<T extends object>(result: { data: T[]; meta: { total: number } }, id: (row: T) => string = (row) => (row as { id: string }).id) {
  return { data: result.data.map((row) => ({ ...row, id: id(row) })), total: result.meta.total };
}
