import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, forbidden, notFound, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { normalizePhone } from '../../shared/phone.js';
import { JsonItems, RANKED_CANDIDATES_CAP, assertListingPage, type ListingMeta } from '../../listings/index.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { assertRoleCan, type StoreCapability, type StoreRole } from './store-permissions.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { checkOpeningHours, isWithinOpeningHours, normalizeOpeningHours } from '../../shared/opening-hours.js';
import { resolveTimezone, unknownTimezone } from '../../shared/time-zones.js';
import * as repo from './stores.repository.js';
import type { ListedStore, StoreRecord } from './stores.repository.js';
import type {
  ClosureBody,
  CreateStoreBody,
  NearbyQuery,
  OwnStoresQuery,
  SearchStoresQuery,
  StoreStatistics,
  StoreView,
  UpdateStoreBody,
} from './stores.schemas.js';

const DAY_MS = 86_400_000;
const MAX_CLOSURE_DAYS = 366;

/** Runs inside the transaction that deletes a store, after the work-in-progress check: other modules retire what lives in it. */
export type StoreDeletedHook = (tx: Executor, storeId: string, at: Date) => Promise<void>;

/** Adds a section of numbers to the store statistics (e.g. `orders`, `products`). */
export type StatisticsCollector = (ex: Executor, storeId: string) => Promise<Record<string, number>>;

const closureInEffect = (s: ListedStore, at: Date) =>
  s.closureStartsAt !== null && s.closureEndsAt !== null && s.closureStartsAt <= at && at < s.closureEndsAt;

export function toStoreView(s: ListedStore, at: Date): StoreView {
  const inEffect = closureInEffect(s, at);
  const closure =
    s.closureStartsAt && s.closureEndsAt && s.closureEndsAt > at
      ? {
          startsAt: s.closureStartsAt.toISOString(),
          endsAt: s.closureEndsAt.toISOString(),
          reason: s.closureReason,
          inEffect,
        }
      : null;
  return {
    id: s.id,
    supplierId: s.supplierId,
    name: s.name,
    description: s.description,
    address: s.address,
    city: s.city,
    latitude: s.latitude,
    longitude: s.longitude,
    phone: s.phone,
    openingHours: s.openingHours,
    timezone: s.timezone,
    pickupInstructions: s.pickupInstructions,
    isActive: s.isActive,
    isOpenNow: s.isActive && !inEffect && isWithinOpeningHours(s.openingHours, s.timezone, at),
    closure,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/**
 * A store an order or a booking is made at: publicly visible (404), active (409 STORE_INACTIVE) and
 * not in a temporary closure at `at` (409 STORE_CLOSED). `row`: the store (share-locked by the
 * caller's read) and whether its supplier is public; undefined or deleted: not found.
 */
function acceptingOrders(row: { store: ListedStore; visible: boolean } | undefined, at: Date): StoreView {
  if (!row?.visible || row.store.deletedAt) throw notFound('Store');
  if (!row.store.isActive) throw conflict('STORE_INACTIVE', 'The store is not taking orders at the moment');
  if (closureInEffect(row.store, at)) {
    throw conflict('STORE_CLOSED', `The store is temporarily closed until ${row.store.closureEndsAt!.toISOString()}`);
  }
  return toStoreView(row.store, at);
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', details);
}

/**
 * Checks what the schema cannot (hours that make sense, a known time zone) and normalises the
 * rest. Reads the database (time zones): call it before opening a transaction.
 */
async function storeFields(
  ex: Executor,
  body: Partial<CreateStoreBody> | UpdateStoreBody,
): Promise<Partial<repo.NewStore>> {
  const problems: ErrorDetail[] = [];
  if (body.openingHours) problems.push(...checkOpeningHours(body.openingHours, 'body.openingHours'));
  const timezone = body.timezone === undefined ? undefined : await resolveTimezone(ex, body.timezone);
  if (body.timezone !== undefined && !timezone) problems.push(unknownTimezone('body.timezone'));
  if (problems.length) throw invalid(problems);
  const out: Partial<repo.NewStore> = {};
  for (const key of [
    'name',
    'description',
    'address',
    'city',
    'latitude',
    'longitude',
    'pickupInstructions',
  ] as const) {
    if (body[key] !== undefined) (out as Record<string, unknown>)[key] = body[key];
  }
  if (timezone) out.timezone = timezone;
  if (body.phone !== undefined) out.phone = body.phone === null ? null : normalizePhone(body.phone, 'body.phone');
  if (body.openingHours) out.openingHours = normalizeOpeningHours(body.openingHours);
  return out;
}

export type StoresService = ReturnType<typeof createStoresService>;

/** A member's role on a store (null: none); registered by the staff module. */
export type MemberRole = (ex: Executor, storeId: string, userId: string) => Promise<StoreRole | null>;

export function createStoresService(ctx: AppContext, deps: { suppliers: SuppliersApi }) {
  const now = () => ctx.clock.now();
  // The staff module (built after stores) answers the roles of invited members.
  let memberRole: MemberRole = async () => null;
  const collectors = new Map<string, StatisticsCollector>();
  const deletionHooks: StoreDeletedHook[] = [];

  /** The user's role on a live store: OWNER for the supplier who owns it, else the membership's, else null. */
  async function roleOn(ex: Executor, userId: string, store: StoreRecord): Promise<StoreRole | null> {
    const own = await deps.suppliers.findOwnProfile(userId, ex);
    if (own?.id === store.supplierId) return 'OWNER';
    return memberRole(ex, store.id, userId);
  }

  /**
   * Loads a live store for a user who must hold `capability` on it. Someone with no role on it
   * gets 404, except when changing a store the public can see: 403 NOT_OWNER (it exists for
   * everyone, so saying so reveals nothing). A member whose role lacks the capability gets
   * 403 FORBIDDEN. `lock` takes the row for update (inside a transaction).
   */
  async function resolveRole(ex: Executor, userId: string, storeId: string, opts: { lock?: boolean } = {}) {
    const store = await repo.findStore(ex, storeId, { lock: opts.lock });
    if (!store) throw notFound('Store');
    return { store, role: await roleOn(ex, userId, store) };
  }

  async function authorize(
    ex: Executor,
    userId: string,
    storeId: string,
    capability: StoreCapability,
    opts: { change?: boolean; lock?: boolean } = {},
  ): Promise<{ store: StoreRecord; role: StoreRole }> {
    const { store, role } = await resolveRole(ex, userId, storeId, opts);
    if (!role) {
      // An inactive store, or one of a supplier the public cannot see, must not be revealed.
      if (opts.change && (await repo.isPublicStore(ex, storeId)))
        throw forbidden('NOT_OWNER', 'This store belongs to another supplier');
      throw notFound('Store');
    }
    assertRoleCan(role, capability);
    return { store, role };
  }

  async function storesPage(supplierId: string, q: OwnStoresQuery) {
    const { items, total } = await repo.listSupplierStores(ctx.db, supplierId, q, q.limit, pageOffset(q));
    const at = now();
    return { items: items.map((s) => toStoreView(s, at)), meta: pageMeta(q, total) };
  }

  async function change(
    user: AuthUser,
    storeId: string,
    capability: StoreCapability,
    patch: (s: StoreRecord) => Partial<repo.NewStore>,
  ) {
    const store = await ctx.db.transaction(async (tx) => {
      const { store: current } = await authorize(tx, user.id, storeId, capability, { change: true, lock: true });
      return repo.updateStore(tx, storeId, { ...patch(current), updatedAt: now() });
    });
    return toStoreView(store, now());
  }

  return {
    authorize,
    /** The live store (404 otherwise) and the user's role on it, null when none. */
    resolveRole,

    /** A store that is not deleted (any state), for other modules; undefined otherwise. */
    findStore: (ex: Executor, storeId: string) => repo.findStore(ex, storeId),

    /** Views of the given stores (deleted ones included: callers filter), in no particular order. */
    async viewsByIds(ex: Executor, ids: string[]): Promise<Map<string, StoreView>> {
      const at = now();
      return new Map((await repo.findStoresByIds(ex, ids)).map((s) => [s.id, toStoreView(s, at)]));
    },

    /** Number of live stores of a supplier, and how many of them are active. */
    countBySupplier: (ex: Executor, supplierId: string) => repo.countBySupplier(ex, supplierId),

    /**
     * For orders and bookings, inside their transaction: the store must be publicly visible
     * (404), active (409 STORE_INACTIVE) and not in a temporary closure at `at` (409 STORE_CLOSED).
     * Opening hours do not matter here: orders are collected later, during them.
     */
    async assertAcceptingOrders(ex: Executor, storeId: string, at: Date = now()): Promise<StoreView> {
      return acceptingOrders(await repo.findStoreForOrder(ex, storeId), at);
    },

    /** assertAcceptingOrders on a store already read (and share-locked), with whether its supplier is public. */
    acceptingOrders,

    onStoreDeleted(hook: StoreDeletedHook): void {
      deletionHooks.push(hook);
    },

    /** The staff module's answer to "which role does this member hold on this store". */
    registerMemberRoles(roleOf: MemberRole): void {
      memberRole = roleOf;
    },

    registerStatistics(section: string, collect: StatisticsCollector): void {
      if (section === 'store' || collectors.has(section))
        throw new Error(`statistics section ${section} already exists`);
      collectors.set(section, collect);
    },

    // ---- public

    search: (q: SearchStoresQuery) => {
      assertListingPage(q, q.q && (q.sort ?? 'relevance') === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get('stores.search', q, async () => {
        const sort = q.sort ?? (q.q ? 'relevance' : 'newest');
        const at = now();
        const { items, meta } = await repo.searchPublicStores(ctx.db, { ...q, sort }, at, q);
        return { items: items.map((s) => toStoreView(s, at)), meta };
      });
    },

    /** Items as `NearbyStoreSchema`, written by the database (see repo.nearbyStores). */
    nearby: (q: NearbyQuery): Promise<{ items: JsonItems; meta: ListingMeta }> => {
      assertListingPage(q);
      return ctx.listings.get('stores.nearby', q, async () => {
        const { items, meta } = await repo.nearbyStores(ctx.db, q, now(), q);
        return { items: JsonItems.of(items), meta };
      });
    },

    /** Whether the public may see the store (for other modules pointing at it). */
    isPublic: (ex: Executor, storeId: string) => repo.isPublicStore(ex, storeId),

    async getPublic(storeId: string): Promise<StoreView> {
      const store = await repo.findPublicStore(ctx.db, storeId);
      if (!store) throw notFound('Store');
      return toStoreView(store, now());
    },

    // ---- the owner's

    async listOwn(user: AuthUser, q: OwnStoresQuery) {
      const profile = await deps.suppliers.requireOwnProfile(user.id);
      return storesPage(profile.id, q);
    },

    /** For administrators: any live supplier's stores, pending or not, active or not. */
    async listOfSupplier(supplierId: string, q: OwnStoresQuery) {
      if (!(await deps.suppliers.findProfile(supplierId))) throw notFound('Supplier');
      return storesPage(supplierId, q);
    },

    async create(user: AuthUser, body: CreateStoreBody): Promise<StoreView> {
      const profile = await deps.suppliers.requireOwnProfile(user.id);
      const fields = await storeFields(ctx.db, body);
      const t = now();
      const store = await repo.insertStore(ctx.db, {
        ...fields,
        id: uuidv7(t.getTime()),
        supplierId: profile.id,
        name: body.name,
        address: body.address,
        city: body.city,
        latitude: body.latitude,
        longitude: body.longitude,
        createdAt: t,
        updatedAt: t,
      });
      return toStoreView(store, t);
    },

    async update(user: AuthUser, storeId: string, body: UpdateStoreBody): Promise<StoreView> {
      const fields = await storeFields(ctx.db, body);
      return change(user, storeId, 'store.update', () => fields);
    },

    toggleActive: (user: AuthUser, storeId: string) =>
      change(user, storeId, 'store.toggle_active', (s) => ({ isActive: !s.isActive })),

    setClosure(user: AuthUser, storeId: string, body: ClosureBody): Promise<StoreView> {
      if (body.clear) {
        const extra = (['startsAt', 'endsAt', 'reason'] as const).filter((k) => body[k] !== undefined);
        if (extra.length)
          throw invalid(extra.map((k) => ({ field: `body.${k}`, message: 'must not be given with clear' })));
        return change(user, storeId, 'store.manage_closure', () => ({
          closureStartsAt: null,
          closureEndsAt: null,
          closureReason: null,
        }));
      }
      if (body.clear === false) throw invalid([{ field: 'body.clear', message: 'must be true when given' }]);
      if (!body.endsAt)
        throw invalid([{ field: 'body.endsAt', message: 'is required (or send {"clear": true} to reopen)' }]);
      const at = now();
      const startsAt = body.startsAt ? new Date(body.startsAt) : at;
      const endsAt = new Date(body.endsAt);
      if (endsAt <= startsAt) throw invalid([{ field: 'body.endsAt', message: 'must be after startsAt' }]);
      if (endsAt <= at) throw invalid([{ field: 'body.endsAt', message: 'must be in the future' }]);
      if (endsAt.getTime() - startsAt.getTime() > MAX_CLOSURE_DAYS * DAY_MS) {
        throw invalid([
          {
            field: 'body.endsAt',
            message: `a temporary closure lasts at most ${MAX_CLOSURE_DAYS} days; deactivate the store instead`,
          },
        ]);
      }
      return change(user, storeId, 'store.manage_closure', () => ({
        closureStartsAt: startsAt,
        closureEndsAt: endsAt,
        closureReason: body.reason ?? null,
      }));
    },

    async remove(user: AuthUser, storeId: string): Promise<{ message: string }> {
      await ctx.db.transaction(async (tx) => {
        await authorize(tx, user.id, storeId, 'store.delete', { change: true, lock: true });
        await ctx.workInProgress.assertNone(tx, { storeId }, 'The store');
        const t = now();
        for (const hook of deletionHooks) await hook(tx, storeId, t);
        await repo.updateStore(tx, storeId, { deletedAt: t, updatedAt: t });
      });
      return { message: 'Store deleted' };
    },

    async statistics(user: AuthUser, storeId: string): Promise<StoreStatistics> {
      const { store } = await authorize(ctx.db, user.id, storeId, 'store.view_statistics');
      const at = now();
      const view = toStoreView(store, at);
      const stats: StoreStatistics = {
        storeId,
        generatedAt: at.toISOString(),
        store: {
          isActive: store.isActive,
          isOpenNow: view.isOpenNow,
          closure: view.closure,
          createdAt: view.createdAt,
          daysActive: Math.max(0, Math.floor((at.getTime() - store.createdAt.getTime()) / DAY_MS)),
        },
      } as StoreStatistics;
      for (const [section, collect] of collectors)
        (stats as Record<string, unknown>)[section] = await collect(ctx.db, storeId);
      return stats;
    },
  };
}
