import { Value } from 'typebox/value';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { StoredSettingValue } from '../../db/schema/settings.js';
import type { AuthUser } from '../../http/access.js';
import { CachedValue } from '../../shared/cached-value.js';
import { validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import {
  flatten,
  keysUnder,
  SETTING_KEYS,
  settingDefaults,
  withValues,
  type Settings,
  type SettingsGroup,
  type SettingsPatchBody,
} from './settings.definition.js';
import * as repo from './settings.repository.js';
import type { AuditQuery, SettingChangeView } from './settings.schemas.js';

export const SETTINGS_CACHE = 'settings';
// How long an instance keeps the settings. Alone (no Redis) this bounds how late a change made on
// another instance shows here; with Redis changes show at once and this only covers a lost message.
export const SETTINGS_TTL_MS = 5_000;
const SETTINGS_TTL_WITH_REDIS_MS = 60_000;

/** How other services read settings: one group, typed, from memory. */
export interface SettingsReader {
  /** Inside a transaction pass it as `ex` (a read on the pool would wait for it on the embedded database). */
  get<G extends SettingsGroup>(group: G, ex?: Executor): Promise<Readonly<Settings[G]>>;
}

export type SettingsService = ReturnType<typeof createSettingsService>;

const toChangeView = (c: repo.SettingChangeRecord): SettingChangeView => ({
  id: c.id,
  key: c.key,
  oldValue: c.oldValue,
  newValue: c.newValue,
  reason: c.reason,
  actorId: c.actorId,
  createdAt: c.createdAt.toISOString(),
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

export function createSettingsService(ctx: AppContext) {
  const defaults = settingDefaults(ctx.config.DEFAULT_COMMISSION_BPS);

  async function load(ex: Executor): Promise<Settings> {
    const stored: [string, StoredSettingValue][] = [];
    for (const { key, value } of await repo.listValues(ex)) {
      const schema = SETTING_KEYS.get(key);
      // A key since removed from the definition is ignored; a value outside bounds tightened since
      // gives way to the default until an administrator sets the key again.
      if (schema && Value.Check(schema, value)) stored.push([key, value]);
      else if (schema) ctx.log.warn({ key }, 'stored setting no longer valid; its default applies');
    }
    // Frozen: every reader shares this object.
    return deepFreeze(withValues(defaults, stored));
  }

  const ttl = ctx.caches.sharedAcrossInstances ? SETTINGS_TTL_WITH_REDIS_MS : SETTINGS_TTL_MS;
  const cache = new CachedValue(ctx.clock, ttl, ctx.db, load);
  ctx.caches.register(SETTINGS_CACHE, () => cache.drop());

  return {
    get: async <G extends SettingsGroup>(group: G, ex?: Executor): Promise<Readonly<Settings[G]>> =>
      (await cache.get(ex))[group],

    getAll: (ex?: Executor): Promise<Settings> => cache.get(ex),

    /**
     * All of the patch or nothing (the route validated every key): one audit row per key whose
     * value changes, in the transaction that changes it; keys sent with their current value are
     * left alone.
     */
    async update(actor: AuthUser, body: SettingsPatchBody) {
      const { reason, ...patch } = body;
      const sent = new Map(flatten(patch));
      const now = ctx.clock.now();
      const result = await ctx.db.transaction(async (tx) => {
        await repo.lockSettings(tx);
        const current = await load(tx);
        const before = new Map(flatten(current));
        const changed = [...SETTING_KEYS.keys()].filter((key) => sent.has(key) && sent.get(key) !== before.get(key));
        const changes = changed.map((key) => ({
          id: uuidv7(now.getTime()),
          key,
          oldValue: before.get(key)!,
          newValue: sent.get(key)!,
          actorId: actor.id,
          reason: reason ?? null,
          createdAt: now,
        }));
        await repo.saveValues(
          tx,
          changes.map((c) => ({ key: c.key, value: c.newValue })),
          actor.id,
          now,
        );
        await repo.insertChanges(tx, changes);
        return {
          settings: withValues(
            current,
            changes.map((c) => [c.key, c.newValue]),
          ),
          changes,
        };
      });
      // After the commit, so that no instance reloads before the new values are there to read.
      if (result.changes.length) ctx.caches.changed(SETTINGS_CACHE);
      return { settings: result.settings, changes: result.changes.map(toChangeView) };
    },

    /** Newest first. */
    async audit(q: AuditQuery) {
      if (q.from && q.to && Date.parse(q.to) <= Date.parse(q.from))
        throw validationError('query.to', 'must be later than from');
      const filter = { keys: q.key ? keysUnder(q.key) : undefined, actorId: q.actorId, from: q.from, to: q.to };
      const { items, total } = await repo.listChanges(ctx.db, filter, {
        limit: q.limit,
        offset: pageOffset(q),
        sort: q.sort,
      });
      return { items: items.map(toChangeView), meta: pageMeta(q, total) };
    },

    /** Every cache of the platform, on every instance (with Redis). */
    dropCaches(actor: AuthUser) {
      const caches = ctx.caches.dropAll();
      ctx.log.info({ actorId: actor.id, caches }, 'caches dropped by an administrator');
      return { caches, allInstances: ctx.caches.sharedAcrossInstances };
    },
  };
}
