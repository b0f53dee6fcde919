import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { KycStatus } from '../../db/schema/suppliers.js';
import type { Role } from '../users/index.js';
import type { AuthUser } from '../../http/access.js';
import { loadSharp, type UploadedFile } from '../../http/uploads.js';
import { AppError, conflict, notFound, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { assertTransition } from '../../shared/state-machine.js';
import type { SettingsReader } from '../settings/index.js';
import type { SubscriptionsApi } from '../subscriptions/index.js';
import { checkOpeningHours } from '../../shared/opening-hours.js';
import { resolveTimezone, unknownTimezone } from '../../shared/time-zones.js';
import * as search from './suppliers-search.repository.js';
import { JsonItems, RANKED_CANDIDATES_CAP, assertListingPage } from '../../listings/index.js';
import * as repo from './suppliers.repository.js';
import * as figures from './suppliers.figures.js';
import type { NewSupplier, SupplierRecord } from './suppliers.repository.js';
import type {
  CreateProfileBody,
  NearbyQuery,
  SearchQuery,
  StatisticsView,
  UpdateProfileBody,
} from './suppliers.schemas.js';
import { FORCED_VERIFICATION_TRANSITIONS, VERIFICATION_TRANSITIONS } from './supplier-status.js';
import { toOwnView, toPublicView } from './suppliers.views.js';

export { isPublicSupplier } from './supplier-visibility.js';

/** Store counts of a supplier, provided by the stores module. */
export interface StoreCounter {
  countBySupplier(ex: Executor, supplierId: string): Promise<{ total: number; active: number }>;
}

/**
 * Runs inside the transaction that deletes a supplier profile, after its row is locked: other
 * modules close what the supplier leaves open (invitations, KYC attempts) in the same commit.
 */
export type ProfileDeletedHook = (tx: Executor, supplierId: string, at: Date) => Promise<void>;

export interface SuppliersDeps {
  subscriptions: SubscriptionsApi;
  settings: SettingsReader;
  /**
   * Read at call time, not at construction: the stores service is built after this one (it
   * needs it), so app.ts sets this once the stores service exists.
   */
  stores?: StoreCounter;
}

const CATEGORY_OF_ROLE: Partial<Record<Role, SupplierRecord['category']>> = {
  SUPPLIER_FOOD: 'FOOD',
  SUPPLIER_DEALS: 'DEALS',
};
const LOGO_MAX_SIDE = 512;

export type SuppliersService = ReturnType<typeof createSuppliersService>;

export function createSuppliersService(ctx: AppContext, deps: SuppliersDeps) {
  const view = (p: SupplierRecord) => toOwnView(p, ctx.links, ctx.clock.now());
  const deletionHooks: ProfileDeletedHook[] = [];

  async function requireOwnProfile(userId: string, ex: Executor = ctx.db) {
    const profile = await repo.findLiveProfileByUser(ex, userId);
    if (!profile) throw profileRequired();
    return profile;
  }

  /** Checks what the schema cannot and puts contact fields in their stored form. */
  async function checkInput(body: UpdateProfileBody, role: Role): Promise<Partial<NewSupplier>> {
    const problems: ErrorDetail[] = [];
    const category = CATEGORY_OF_ROLE[role];
    if (body.category !== undefined && body.category !== category) {
      problems.push({ field: 'body.category', message: `must be ${category} for a ${role} account` });
    }
    if (body.openingHours) problems.push(...checkOpeningHours(body.openingHours, 'body.openingHours'));
    const timezone = body.timezone === undefined ? undefined : await resolveTimezone(ctx.db, body.timezone);
    if (body.timezone !== undefined && !timezone) problems.push(unknownTimezone('body.timezone'));
    if (problems.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', problems);
    const { category: _category, ...rest } = body;
    const out: Partial<NewSupplier> = { ...rest, ...(timezone && { timezone }) };
    const phone = (v: string | null | undefined, field: string) => (v ? normalizePhone(v, field) : v);
    if (body.contactPhone !== undefined) out.contactPhone = phone(body.contactPhone, 'body.contactPhone');
    if (body.payoutPhone !== undefined) out.payoutPhone = phone(body.payoutPhone, 'body.payoutPhone');
    if (body.contactEmail) out.contactEmail = normalizeEmail(body.contactEmail);
    return out;
  }

  /** An edit by the supplier; a rejected profile is submitted again for review. */
  function editPatch(p: SupplierRecord, patch: Partial<NewSupplier>): Partial<NewSupplier> {
    const out = { ...patch, updatedAt: ctx.clock.now() };
    if (p.verificationStatus === 'REJECTED') {
      assertTransition(VERIFICATION_TRANSITIONS, p.verificationStatus, 'PENDING', 'Supplier verification');
      Object.assign(out, { verificationStatus: 'PENDING', rejectionReason: null });
    }
    return out;
  }

  async function lockOwn(ex: Executor, userId: string) {
    const p = await repo.lockLiveProfile(ex, { userId });
    if (!p) throw profileRequired();
    return p;
  }

  return {
    /** Figures for the administrators' dashboard and reports (analytics module), from this module's tables. */
    figures,
    /** Registers what another module does when a supplier deletes its profile (see ProfileDeletedHook). */
    onProfileDeleted(hook: ProfileDeletedHook): void {
      deletionHooks.push(hook);
    },

    /** The signed-in supplier's own profile, in any verification state. */
    findOwnProfile: (userId: string, ex: Executor = ctx.db) => repo.findLiveProfileByUser(ex, userId),
    requireOwnProfile,
    findProfile: (id: string, ex: Executor = ctx.db) => repo.findLiveProfile(ex, id),
    /** Name and verification of each given supplier, by id (deleted ones too), for administrators' lists. */
    async summariesByIds(ex: Executor, ids: string[]) {
      return new Map((await repo.findSummariesByIds(ex, [...new Set(ids)])).map((s) => [s.id, s]));
    },
    /**
     * The live profile, row-locked until the transaction ends; undefined once deleted. Taking it
     * before changing anything of the supplier queues the change behind a deletion, and after it.
     */
    lockProfile: (ex: Executor, by: { id: string } | { userId: string }) => repo.lockLiveProfile(ex, by),
    /** Stores a supplier's rating summary, in the transaction of the review that changed it. */
    setRating: async (ex: Executor, id: string, r: { average: number; count: number }) => {
      await repo.updateProfile(ex, id, { ratingAverage: r.average, ratingCount: r.count });
    },

    /** Moves the supplier's KYC state (owned by the KYC module's decisions). */
    async setKycStatus(ex: Executor, supplierId: string, status: KycStatus) {
      const row = await repo.updateProfile(ex, supplierId, { kycStatus: status, updatedAt: ctx.clock.now() });
      if (!row) throw notFound('Supplier');
      return row;
    },

    /**
     * An administrator's forced verification (KYC force-verify), inside the caller's transaction:
     * PENDING or REJECTED becomes VERIFIED (see FORCED_VERIFICATION_TRANSITIONS); VERIFIED stays
     * as it is. Returns the profile before and after, so the caller can log what it replaced.
     */
    async forceVerification(ex: Executor, supplierId: string) {
      const before = await repo.lockLiveProfile(ex, { id: supplierId });
      if (!before) throw notFound('Supplier');
      if (before.verificationStatus === 'VERIFIED') return { before, after: before };
      assertTransition(FORCED_VERIFICATION_TRANSITIONS, before.verificationStatus, 'VERIFIED', 'Supplier verification');
      const now = ctx.clock.now();
      const after = (await repo.updateProfile(ex, supplierId, {
        verificationStatus: 'VERIFIED',
        verifiedAt: now,
        rejectionReason: null,
        updatedAt: now,
      }))!;
      return { before, after };
    },

    getOwn: async (user: AuthUser) => view(await requireOwnProfile(user.id)),

    async create(user: AuthUser, body: CreateProfileBody) {
      const input = await checkInput(body, user.role);
      const { defaultCommissionBps } = await deps.settings.get('business');
      const now = ctx.clock.now();
      const row = await ctx.db.transaction(async (tx) => {
        if (await repo.findLiveProfileByUser(tx, user.id)) {
          throw conflict(
            'ALREADY_EXISTS',
            'You already have a supplier profile; change it with PUT /suppliers/profile',
          );
        }
        return repo.insertProfile(tx, {
          ...(input as Omit<NewSupplier, 'id'>),
          id: uuidv7(now.getTime()),
          userId: user.id,
          category: CATEGORY_OF_ROLE[user.role]!,
          commissionRateBps: defaultCommissionBps,
          createdAt: now,
          updatedAt: now,
        });
      });
      return view(row);
    },

    async update(user: AuthUser, body: UpdateProfileBody) {
      const input = await checkInput(body, user.role);
      const row = await ctx.db.transaction(async (tx) => {
        const p = await lockOwn(tx, user.id);
        const row = (await repo.updateProfile(tx, p.id, editPatch(p, input)))!;
        // Payouts waiting for a number, or refused for the old one, leave again to the new one.
        if (row.payoutPhone && row.payoutPhone !== p.payoutPhone) {
          await ctx.events.publish(tx, 'suppliers.payout_phone_changed', { supplierId: p.id, userId: p.userId });
        }
        return row;
      });
      return view(row);
    },

    /** Replaces the logo with a copy at most 512 px a side; the old file goes by a job once the change is saved. */
    async setLogo(user: AuthUser, upload: { files: UploadedFile[]; fields: Record<string, string> }) {
      const extra = Object.keys(upload.fields)[0] ?? upload.files.find((f) => f.field !== 'logo')?.field;
      if (extra)
        throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', [
          { field: `body.${extra}`, message: 'is not an allowed property' },
        ]);
      const file = upload.files[0];
      if (!file)
        throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', [
          { field: 'body.logo', message: 'is required (an image file)' },
        ]);
      const current = await requireOwnProfile(user.id);
      const sharp = await loadSharp();
      const body = await ctx.images.run(() =>
        sharp(file.body).resize(LOGO_MAX_SIDE, LOGO_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).toBuffer(),
      );
      const key = `suppliers/${current.id}/logo-${uuidv7()}.${file.ext}`;
      await ctx.storage.put('public', key, body, file.contentType);
      const row = await ctx.db
        .transaction(async (tx) => {
          const p = await lockOwn(tx, user.id);
          if (p.logoKey) await ctx.storage.deleteLater(tx, 'public', [p.logoKey]);
          return (await repo.updateProfile(tx, p.id, editPatch(p, { logoKey: key })))!;
        })
        .catch(async (err: unknown) => {
          await ctx.storage.discard('public', [key]);
          throw err;
        });
      return view(row);
    },

    async removeLogo(user: AuthUser) {
      const row = await ctx.db.transaction(async (tx) => {
        const p = await lockOwn(tx, user.id);
        if (!p.logoKey) return p;
        await ctx.storage.deleteLater(tx, 'public', [p.logoKey]);
        return (await repo.updateProfile(tx, p.id, editPatch(p, { logoKey: null })))!;
      });
      return view(row);
    },

    /** Soft delete: the row stays for the records (orders, payouts) and is hidden everywhere. */
    async remove(user: AuthUser) {
      const now = ctx.clock.now();
      const row = await ctx.db.transaction(async (tx) => {
        const p = await lockOwn(tx, user.id);
        await ctx.workInProgress.assertNone(tx, { supplierId: p.id }, 'The supplier profile');
        await deps.subscriptions.cancelAll(tx, p.id);
        for (const hook of deletionHooks) await hook(tx, p.id, now);
        return (await repo.updateProfile(tx, p.id, { deletedAt: now, updatedAt: now }))!;
      });
      return { message: 'Supplier profile deleted', id: row.id, deletedAt: now.toISOString() };
    },

    /** Whether the public may see the supplier (for other modules pointing at it). */
    isPublic: async (ex: Executor, id: string) => (await repo.findPublicProfile(ex, id)) !== undefined,

    async getPublic(id: string) {
      const p = await repo.findPublicProfile(ctx.db, id);
      if (!p) throw notFound('Supplier');
      return toPublicView(p, ctx.links, ctx.clock.now());
    },

    search: (q: SearchQuery) => {
      assertListingPage(q, q.q && (q.sort ?? 'relevance') === 'relevance' ? RANKED_CANDIDATES_CAP : undefined);
      return ctx.listings.get('suppliers.search', q, async () => {
        const now = ctx.clock.now();
        const sort = q.sort ?? (q.q ? 'relevance' : 'name');
        const { items, meta } = await search.searchPublic(ctx.db, { ...q, sort, now }, q);
        return { items: items.map((p) => toPublicView(p, ctx.links, now)), meta };
      });
    },

    /** Items as `NearbySupplierSchema`, written by the database (see search.nearbyPublic). */
    nearby: (q: NearbyQuery) => {
      assertListingPage(q);
      return ctx.listings.get('suppliers.nearby', q, async () => {
        const filter = {
          latitude: q.latitude,
          longitude: q.longitude,
          radiusM: q.radiusKm * 1000,
          category: q.category,
        };
        const { items, meta } = await search.nearbyPublic(ctx.db, filter, q, ctx.clock.now(), ctx.links.publicPrefix);
        return { items: JsonItems.of(items), meta };
      });
    },

    async statistics(user: AuthUser): Promise<StatisticsView> {
      const p = await requireOwnProfile(user.id);
      // Until the stores module provides its counter there are no stores to count.
      const stores = deps.stores ? deps.stores.countBySupplier(ctx.db, p.id) : Promise.resolve({ total: 0, active: 0 });
      const [subscription, storeCounts, ownerStatus] = await Promise.all([
        deps.subscriptions.getLimits(ctx.db, p.id),
        stores,
        repo.ownerStatus(ctx.db, p.userId),
      ]);
      return {
        supplierId: p.id,
        verification: {
          status: p.verificationStatus,
          verifiedAt: p.verifiedAt?.toISOString() ?? null,
          rejectionReason: p.rejectionReason,
          isPublic: p.verificationStatus === 'VERIFIED' && ownerStatus === 'ACTIVE',
        },
        kyc: { status: p.kycStatus },
        commission: { rateBps: p.commissionRateBps },
        subscription,
        stores: storeCounts,
        generatedAt: ctx.clock.now().toISOString(),
      };
    },

    changeSubscription: (user: AuthUser, planCode: string) =>
      ctx.db.transaction(async (tx) => deps.subscriptions.changePlan(tx, (await lockOwn(tx, user.id)).id, planCode)),

    canCreateProducts: async (user: AuthUser) =>
      deps.subscriptions.getLimits(ctx.db, (await requireOwnProfile(user.id)).id),
  };
}

const profileRequired = () =>
  new AppError(404, 'SUPPLIER_PROFILE_REQUIRED', 'Create your supplier profile first (POST /suppliers/profile)');
