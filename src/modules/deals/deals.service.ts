import type { AppContext } from '../../context.js';
import { together, type Executor } from '../../db/client.js';
import type { DealImage, DealStatus } from '../../db/schema/deals.js';
import type { AuthUser } from '../../http/access.js';
import { storeImageSizes, type UploadedFile } from '../../http/uploads.js';
import { AppError, conflict, forbidden, notFound, validationError, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { isWithinOpeningHours } from '../../shared/opening-hours.js';
import { pageMeta } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { SettingsApi } from '../settings/index.js';
import type { StaffApi } from '../staff/index.js';
import { assertRoleCan, type StoresApi } from '../stores/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { DEAL_TRANSITIONS, MODERATION_TRANSITIONS, PAUSE_TRANSITIONS, effectiveStatus } from './deal-status.js';
import * as figures from './deals.figures.js';
import * as repo from './deals.repository.js';
import type { DealRecord } from './deals.repository.js';
import type {
  CreateDealBody,
  DealDetailView,
  DealView,
  OwnDealsQuery,
  PendingDealsQuery,
  UpdateDealBody,
} from './deals.schemas.js';
import { MAX_DEAL_IMAGES } from './deals.schemas.js';
import { toDealView } from './deals.views.js';

export interface DealsDeps {
  settings: SettingsApi;
  suppliers: SuppliersApi;
  stores: StoresApi;
  members: StaffApi['members'];
  notifications: NotificationsApi;
}

type Priced = Pick<
  DealRecord,
  | 'kind'
  | 'price'
  | 'originalValue'
  | 'discountPercent'
  | 'totalPlaces'
  | 'placesPerClient'
  | 'placesTaken'
  | 'validFrom'
  | 'validUntil'
  | 'pickupStart'
  | 'pickupEnd'
>;

/**
 * Completes and checks a deal as it will be saved: the price of a PERCENTAGE_OFF deal comes from
 * its discount, the discount of the others from their price; 400 naming each wrong field.
 */
function priced(
  d: Priced,
  given: { price?: number; discountPercent?: number },
  now: Date,
  validityChanged: boolean,
): Priced {
  const errors: ErrorDetail[] = [];
  const out = { ...d };
  if (d.kind === 'PERCENTAGE_OFF') {
    if (given.price !== undefined)
      errors.push({ field: 'body.price', message: 'is computed from discountPercent for PERCENTAGE_OFF' });
    const pct = given.discountPercent ?? d.discountPercent;
    if (!pct) errors.push({ field: 'body.discountPercent', message: 'is required for PERCENTAGE_OFF' });
    out.discountPercent = pct;
    out.price = Math.round((d.originalValue * (100 - pct)) / 100);
  } else {
    if (given.discountPercent !== undefined)
      errors.push({ field: 'body.discountPercent', message: `is only for PERCENTAGE_OFF; give price for ${d.kind}` });
    const price = given.price ?? d.price;
    if (price === undefined || price === null || Number.isNaN(price))
      errors.push({ field: 'body.price', message: `is required for ${d.kind}` });
    out.price = price;
    out.discountPercent = Math.floor(((d.originalValue - price) * 100) / d.originalValue);
  }
  if (!errors.length && out.price >= d.originalValue)
    errors.push({
      field: d.kind === 'PERCENTAGE_OFF' ? 'body.discountPercent' : 'body.price',
      message: 'must make the price lower than originalValue',
    });
  if (d.validUntil <= d.validFrom) errors.push({ field: 'body.validUntil', message: 'must be later than validFrom' });
  else if (validityChanged && d.validUntil <= now)
    errors.push({ field: 'body.validUntil', message: 'must be in the future' });
  if (d.pickupStart >= d.pickupEnd) errors.push({ field: 'body.pickupEnd', message: 'must be later than pickupStart' });
  if (d.placesPerClient > d.totalPlaces)
    errors.push({ field: 'body.placesPerClient', message: 'must be at most totalPlaces' });
  if (d.totalPlaces < d.placesTaken)
    errors.push({ field: 'body.totalPlaces', message: `must be at least the ${d.placesTaken} places already booked` });
  if (errors.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', errors);
  return out;
}

export type DealsService = ReturnType<typeof createDealsService>;

export function createDealsService(ctx: AppContext, deps: DealsDeps) {
  const now = () => ctx.clock.now();
  const view = (d: DealRecord) => toDealView(d, now(), ctx.links);

  const deleteFilesLater = (tx: Executor, images: DealImage[]) =>
    ctx.storage.deleteLater(
      tx,
      'public',
      images.flatMap((i) => [i.thumbnailKey, i.largeKey]),
    );

  // Bookings still to be collected block deleting their deal's store and supplier.
  ctx.workInProgress.register(async (ex, scope) => {
    const n = await repo.openBookings(ex, scope, now());
    return n ? `${n} deal booking${n > 1 ? 's' : ''} to be collected` : null;
  });
  deps.stores.onStoreDeleted((tx, storeId, at) => repo.deleteAllOf(tx, { storeId }, at));
  deps.suppliers.onProfileDeleted((tx, supplierId, at) => repo.deleteAllOf(tx, { supplierId }, at));

  /** Auto-approval (the products' flag): ACTIVE at once for a verified supplier. */
  async function autoApproves(ex: Executor, supplierId: string): Promise<boolean> {
    const [supplier, flags] = await together(ex, [
      () => deps.suppliers.findProfile(supplierId, ex),
      () => deps.settings.get('features', ex),
    ]);
    return supplier?.verificationStatus === 'VERIFIED' && flags.autoApproveVerifiedSupplierProducts;
  }

  /**
   * A deal for a user who manages it: the supplier owning its store or a member whose role has
   * `deals.manage`. Someone else: 404, or 403 NOT_OWNER when the deal is public.
   */
  /** The deal, whatever its state but deleted, when the viewer holds places on it. */
  async function heldDeal(id: string, viewerId: string): Promise<DealRecord | undefined> {
    const deal = await repo.findDeal(ctx.db, id);
    return deal && deal.status !== 'DELETED' && (await repo.placesOfClient(ctx.db, id, viewerId)) > 0
      ? deal
      : undefined;
  }

  async function manage(ex: Executor, user: AuthUser, id: string, opts: { lock?: boolean } = {}): Promise<DealRecord> {
    const deal = await repo.findDeal(ex, id, opts);
    if (!deal) throw notFound('Deal');
    const { role } = await deps.stores.resolveRole(ex, user.id, deal.storeId).catch((err: unknown) => {
      if (err instanceof AppError && err.statusCode === 404) throw notFound('Deal');
      throw err;
    });
    if (!role) {
      if (await repo.findPublicDeal(ex, id, now()))
        throw forbidden('NOT_OWNER', 'This deal belongs to another supplier');
      throw notFound('Deal');
    }
    assertRoleCan(role, 'deals.manage');
    return deal;
  }

  async function supplierUser(ex: Executor, supplierId: string) {
    return (await deps.suppliers.findProfile(supplierId, ex))?.userId;
  }

  async function decide(
    admin: AuthUser,
    id: string,
    to: 'ACTIVE' | 'REJECTED',
    reason: string | null,
  ): Promise<DealView> {
    const t = now();
    return ctx.db.transaction(async (tx) => {
      const before = await repo.findDeal(tx, id, { lock: true });
      if (!before) throw notFound('Deal');
      assertTransition(MODERATION_TRANSITIONS, before.status, to, 'Deal status');
      const row = await repo.updateDeal(tx, id, { status: to, rejectionReason: reason, updatedAt: t });
      await recordAdminAction(tx, {
        actorId: admin.id,
        action: to === 'ACTIVE' ? 'deal.approve' : 'deal.reject',
        targetType: 'deal',
        targetId: id,
        reason,
        data: { from: before.status, to },
        at: t,
      });
      const owner = await supplierUser(tx, row.supplierId);
      if (owner) {
        await deps.notifications.notify(
          tx,
          owner,
          to === 'ACTIVE' ? 'deal_approved' : 'deal_rejected',
          { dealId: id, dealTitle: row.title, reason },
          { sourceKey: `deal:${id}:${to}:${t.getTime()}` },
        );
      }
      return view(row);
    });
  }

  return {
    /** Dashboard and impact figures from this module's own tables (docs/analytics.md). */
    figures,
    manage,
    view,

    // ---- public

    /**
     * A public deal; to a client holding places on it (a booking not cancelled), also once paused,
     * expired or back in review: the deal of a booking stays readable to its holder until deleted.
     */
    async getPublic(id: string, viewerId: string | null = null): Promise<DealDetailView> {
      const t = now();
      const deal = (await repo.findPublicDeal(ctx.db, id, t)) ?? (viewerId ? await heldDeal(id, viewerId) : undefined);
      const store = deal && (await deps.stores.findStore(ctx.db, deal.storeId));
      if (!deal || !store) throw notFound('Deal');
      return {
        ...toDealView(deal, t, ctx.links),
        store: {
          id: store.id,
          name: store.name,
          address: store.address,
          city: store.city,
          latitude: store.latitude,
          longitude: store.longitude,
          timezone: store.timezone,
          openNow: isWithinOpeningHours(store.openingHours, store.timezone, t),
        },
      };
    },

    // ---- the supplier's

    async listOwn(user: AuthUser, q: OwnDealsQuery) {
      const own = await deps.suppliers.findOwnProfile(user.id);
      const storeIds = await deps.members.storesWhere(ctx.db, user.id, 'deals.manage');
      if (!own && !storeIds.length) return { items: [], meta: pageMeta(q, 0) };
      const { items, total } = await repo.listDeals(
        ctx.db,
        { supplierId: own?.id, storeIds, storeId: q.storeId, status: q.status },
        q,
        now(),
      );
      return { items: items.map(view), meta: pageMeta(q, total) };
    },

    /** A supplier's deals in every state but deleted (the seed looks there before creating). */
    async listOfSupplier(supplierId: string, q: OwnDealsQuery) {
      const { items, total } = await repo.listDeals(
        ctx.db,
        { supplierId, storeId: q.storeId, status: q.status },
        q,
        now(),
      );
      return { items: items.map(view), meta: pageMeta(q, total) };
    },

    async create(user: AuthUser, body: CreateDealBody): Promise<DealView> {
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const { store } = await deps.stores.authorize(tx, user.id, body.storeId, 'deals.manage');
        if (!store.isActive) throw conflict('STORE_INACTIVE', 'Deals can only be published in an active store');
        const fields = priced(
          {
            kind: body.kind,
            price: body.price ?? Number.NaN,
            originalValue: body.originalValue,
            discountPercent: body.discountPercent ?? 0,
            totalPlaces: body.totalPlaces,
            placesPerClient: body.placesPerClient ?? 1,
            placesTaken: 0,
            validFrom: body.validFrom ? new Date(body.validFrom) : t,
            validUntil: new Date(body.validUntil),
            pickupStart: body.pickupStart,
            pickupEnd: body.pickupEnd,
          },
          body,
          t,
          true,
        );
        const status: DealStatus = (await autoApproves(tx, store.supplierId)) ? 'ACTIVE' : 'PENDING_REVIEW';
        const paymentMode =
          body.paymentMode ??
          ((await deps.settings.get('business', tx)).dealsPaidInAppByDefault ? 'IN_APP' : 'AT_COUNTER');
        const deal = await repo.insertDeal(tx, {
          ...fields,
          id: uuidv7(t.getTime()),
          supplierId: store.supplierId,
          storeId: store.id,
          title: body.title,
          description: body.description ?? '',
          category: body.category,
          terms: body.terms ?? '',
          currency: 'XOF',
          paymentMode,
          status,
          createdAt: t,
          updatedAt: t,
        });
        return view(deal);
      });
    },

    async update(user: AuthUser, id: string, body: UpdateDealBody): Promise<DealView> {
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const before = await manage(tx, user, id, { lock: true });
        const { price, discountPercent, validFrom, validUntil, ...rest } = body;
        const merged = {
          ...before,
          ...rest,
          ...(validFrom && { validFrom: new Date(validFrom) }),
          ...(validUntil && { validUntil: new Date(validUntil) }),
        };
        // A change of kind starts from the given price or discount only.
        const kindChanged = body.kind !== undefined && body.kind !== before.kind;
        const fields = priced(
          kindChanged ? { ...merged, price: Number.NaN, discountPercent: 0 } : merged,
          { price, discountPercent },
          t,
          Boolean(validFrom || validUntil),
        );
        // Any edit is judged again, unless auto-approval applies (a paused deal stays paused then).
        let status = before.status;
        if (status !== 'PENDING_REVIEW') {
          const auto = await autoApproves(tx, before.supplierId);
          status = auto ? (status === 'REJECTED' ? 'ACTIVE' : status) : 'PENDING_REVIEW';
          if (status !== before.status) assertTransition(DEAL_TRANSITIONS, before.status, status, 'Deal status');
        }
        const row = await repo.updateDeal(tx, id, {
          ...rest,
          price: fields.price,
          discountPercent: fields.discountPercent,
          validFrom: fields.validFrom,
          validUntil: fields.validUntil,
          status,
          rejectionReason: status === 'PENDING_REVIEW' || status === 'ACTIVE' ? null : before.rejectionReason,
          updatedAt: t,
        });
        return view(row);
      });
    },

    async togglePause(user: AuthUser, id: string): Promise<DealView> {
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const deal = await manage(tx, user, id, { lock: true });
        if (effectiveStatus(deal, t) === 'EXPIRED') throw conflict('DEAL_EXPIRED', 'This deal has expired');
        const to = deal.status === 'PAUSED' ? 'ACTIVE' : 'PAUSED';
        assertTransition(PAUSE_TRANSITIONS, deal.status, to, 'Deal status');
        return view(await repo.updateDeal(tx, id, { status: to, updatedAt: t }));
      });
    },

    async remove(user: AuthUser, id: string): Promise<{ message: string }> {
      const t = now();
      await ctx.db.transaction(async (tx) => {
        const deal = await manage(tx, user, id, { lock: true });
        const open = await repo.openBookings(tx, { dealId: id }, t);
        if (open)
          throw conflict(
            'DEAL_HAS_OPEN_BOOKINGS',
            `This deal cannot be deleted while ${open} booking${open > 1 ? 's are' : ' is'} to be collected`,
          );
        assertTransition(DEAL_TRANSITIONS, deal.status, 'DELETED', 'Deal status');
        await repo.updateDeal(tx, id, { status: 'DELETED', deletedAt: t, updatedAt: t, images: [] });
        await deleteFilesLater(tx, deal.images);
      });
      return { message: 'Deal deleted' };
    },

    async addImages(
      user: AuthUser,
      id: string,
      upload: { files: UploadedFile[]; fields: Record<string, string> },
    ): Promise<DealView> {
      const extra = Object.keys(upload.fields)[0] ?? upload.files.find((f) => f.field !== 'images')?.field;
      if (extra) throw validationError(`body.${extra}`, 'is not an allowed property');
      if (!upload.files.length)
        throw validationError('body.images', `is required (one to ${MAX_DEAL_IMAGES} image files)`);
      await manage(ctx.db, user, id);
      const t = now();
      const made: DealImage[] = await storeImageSizes(ctx, `deals/${id}`, upload.files, t);
      try {
        return await ctx.db.transaction(async (tx) => {
          // The deal's row lock orders parallel uploads: each counts what the previous added.
          const deal = await manage(tx, user, id, { lock: true });
          if (deal.images.length + made.length > MAX_DEAL_IMAGES) {
            throw new AppError(
              422,
              'TOO_MANY_IMAGES',
              `A deal has at most ${MAX_DEAL_IMAGES} pictures; it has ${deal.images.length} and ${made.length} were sent`,
            );
          }
          // New pictures are judged like any edit.
          const auto = deal.status === 'PENDING_REVIEW' || (await autoApproves(tx, deal.supplierId));
          const status = auto ? (deal.status === 'REJECTED' ? 'ACTIVE' : deal.status) : 'PENDING_REVIEW';
          return view(await repo.updateDeal(tx, id, { images: [...deal.images, ...made], status, updatedAt: t }));
        });
      } catch (err) {
        await ctx.storage.discard(
          'public',
          made.flatMap((m) => [m.thumbnailKey, m.largeKey]),
        );
        throw err;
      }
    },

    async removeImage(user: AuthUser, id: string, imageId: string): Promise<DealView> {
      return ctx.db.transaction(async (tx) => {
        const deal = await manage(tx, user, id, { lock: true });
        const image = deal.images.find((i) => i.id === imageId);
        if (!image) throw notFound('Picture');
        await deleteFilesLater(tx, [image]);
        return view(
          await repo.updateDeal(tx, id, { images: deal.images.filter((i) => i.id !== imageId), updatedAt: now() }),
        );
      });
    },

    // ---- administrators

    async pending(q: PendingDealsQuery) {
      const { items, total } = await repo.listDeals(ctx.db, { pending: true }, q, now());
      return { items: items.map(view), meta: pageMeta(q, total) };
    },
    approve: (admin: AuthUser, id: string) => decide(admin, id, 'ACTIVE', null),
    reject: (admin: AuthUser, id: string, reason: string) => decide(admin, id, 'REJECTED', reason),
  };
}
