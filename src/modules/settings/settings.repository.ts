import { and, count, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { platformSettingChanges, platformSettings, type StoredSettingValue } from '../../db/schema/settings.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import type { SortOf } from '../../shared/schemas.js';
import type { SettingChangeSortField } from './settings.schemas.js';

export type SettingChangeRecord = typeof platformSettingChanges.$inferSelect;
export type NewSettingChange = typeof platformSettingChanges.$inferInsert;

// Any fixed number: serialises changes of settings, so each audit row's old value is the value
// the change really replaced, even when two administrators save at the same time.
const SETTINGS_LOCK = 727_274_015;

export async function lockSettings(ex: Executor): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(${SETTINGS_LOCK})`);
}

/** The values administrators set (keys without a row have their default). */
export function listValues(ex: Executor): Promise<{ key: string; value: StoredSettingValue }[]> {
  return ex.select({ key: platformSettings.key, value: platformSettings.value }).from(platformSettings);
}

export async function saveValues(
  ex: Executor,
  values: { key: string; value: StoredSettingValue }[],
  by: string,
  at: Date,
): Promise<void> {
  if (values.length === 0) return;
  await ex
    .insert(platformSettings)
    .values(values.map((v) => ({ ...v, updatedBy: by, updatedAt: at })))
    .onConflictDoUpdate({
      target: platformSettings.key,
      set: { value: sql`excluded.value`, updatedBy: sql`excluded.updated_by`, updatedAt: sql`excluded.updated_at` },
    });
}

export async function insertChanges(ex: Executor, changes: NewSettingChange[]): Promise<void> {
  if (changes.length) await ex.insert(platformSettingChanges).values(changes);
}

export interface ChangeFilter {
  keys?: string[];
  actorId?: string;
  from?: string;
  to?: string;
}

const CHANGE_SORT_KEYS: Record<SettingChangeSortField, SortKey> = {
  createdAt: platformSettingChanges.createdAt,
  key: byteOrderKey(platformSettingChanges.key),
};

export async function listChanges(
  ex: Executor,
  f: ChangeFilter,
  page: { limit: number; offset: number; sort?: SortOf<SettingChangeSortField> },
) {
  const c = platformSettingChanges;
  const where = and(
    f.keys ? inArray(c.key, f.keys) : undefined,
    f.actorId ? eq(c.actorId, f.actorId) : undefined,
    f.from ? gte(c.createdAt, new Date(f.from)) : undefined,
    f.to ? lt(c.createdAt, new Date(f.to)) : undefined,
  );
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(c)
      .where(where)
      .orderBy(...toOrderBy(page.sort ?? '-createdAt', CHANGE_SORT_KEYS, c.id))
      .limit(page.limit)
      .offset(page.offset),
    ex.select({ n: count() }).from(c).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}
