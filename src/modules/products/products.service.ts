import type { AppContext } from '../../context.js';
import { together, type Executor } from '../../db/client.js';
import type { ProductStatus } from '../../db/schema/products.js';
import type { AuthUser } from '../../http/access.js';
import { storeImageSizes, type UploadedFile } from '../../http/uploads.js';
import { AppError, conflict, forbidden, notFound, validationError, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import type { SettingsApi } from '../settings/index.js';
import { assertRoleCan, type StoresApi } from '../stores/index.js';
import type { SubscriptionsApi } from '../subscriptions/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { DEFAULT_UNIT_WEIGHT_GRAMS, MAX_PRODUCT_IMAGES } from './product-catalog.js';
import { buildSearchDocument } from './product-search-document.js';
import { PRODUCT_TRANSITIONS, STATUS_TOGGLE_TRANSITIONS } from './product-status.js';
import * as repo from './products.repository.js';
import * as figures from './products.figures.js';
import { popularityAt, type ProductRecord, type StockLine } from './products.repository.js';
import type {
  CreateProductBody,
  FavoriteProductView,
  FavoritesQuery,
  OwnProductsQuery,
  ProductView,
  StockBody,
  UpdateProductBody,
} from './products.schemas.js';
import { NO_SALES, toProductView, type SalesFigures } from './products.views.js';

export interface ProductsDeps {
  settings: SettingsApi;
  suppliers: SuppliersApi;
  stores: StoresApi;
  subscriptions: SubscriptionsApi;
}

/** Sales figures of products, by id (the orders module registers one; zero until then). */
export type SalesFiguresSource = (ex: Executor, productIds: string[]) => Promise<Map<string, SalesFigures>>;

export type ProductsService = ReturnType<typeof createProductsService>;

// Fields whose change sends an approved product back to review: what moderators judge.
const SUBSTANTIAL = ['storeId', 'name', 'description', 'category', 'dietaryTags', 'allergens'] as const;
const VIEW_FLUSH_MS = 10_000;
const MAX_PENDING_VIEWS = 10_000;
/** Marks ACTIVE, INACTIVE and pending products past their expiry EXPIRED (every minute). */
export const EXPIRE_JOB = 'products.expire';

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Prices, expiry and pickup window of the product as it will be saved. */
function checkProduct(
  p: { originalPrice: number; discountedPrice: number; pickupStart: string; pickupEnd: string },
  expiresAt: Date | undefined,
  now: Date,
) {
  const errors: ErrorDetail[] = [];
  if (p.originalPrice < 1) errors.push({ field: 'body.originalPrice', message: 'must be at least 1' });
  else if (p.discountedPrice >= p.originalPrice)
    errors.push({ field: 'body.discountedPrice', message: 'must be lower than originalPrice' });
  if (expiresAt && expiresAt <= now) errors.push({ field: 'body.expiresAt', message: 'must be in the future' });
  if (p.pickupStart >= p.pickupEnd) errors.push({ field: 'body.pickupEnd', message: 'must be later than pickupStart' });
  if (errors.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', errors);
}

export function createProductsService(ctx: AppContext, deps: ProductsDeps) {
  const now = () => ctx.clock.now();
  let salesFigures: SalesFiguresSource = async () => new Map();
  let productReviews: repo.ProductPageReviews | undefined;
  let detailStatement: ReturnType<typeof repo.publicDetailStatement> | undefined;

  // The plan limit counts the same products as /suppliers/can-create-products.
  deps.subscriptions.registerProductCounter((ex, supplierId) => repo.countCounted(ex, supplierId, now()));

  // ---- views, counted in memory and written in batches: a page view adds no write of its own.
  let pendingViews = new Map<string, number>();
  async function flushViews(): Promise<void> {
    if (!pendingViews.size) return;
    const batch = pendingViews;
    pendingViews = new Map();
    await repo
      .addViews(ctx.db, batch, now())
      .catch((err: unknown) => ctx.log.warn({ err }, 'product view counts lost'));
  }
  const timer = setInterval(() => void flushViews(), VIEW_FLUSH_MS);
  timer.unref();

  /** Queues the deletion of picture files in the transaction that forgets them. */
  const deleteFilesLater = (tx: Executor, keys: string[]) => ctx.storage.deleteLater(tx, 'public', keys);
  ctx.jobs.work(EXPIRE_JOB, async () => {
    const n = await repo.markExpired(ctx.db, now());
    if (n) ctx.log.info({ expired: n }, 'products expired');
  });
  ctx.jobs.schedule(EXPIRE_JOB, '* * * * *');

  // A deleted supplier's products go with it, in the same transaction; their files by the job.
  deps.suppliers.onProfileDeleted(async (tx, supplierId, at) => {
    await deleteFilesLater(tx, await repo.deleteAllOf(tx, { supplierId }, at));
  });
  deps.stores.onStoreDeleted(async (tx, storeId, at) => {
    await deleteFilesLater(tx, await repo.deleteAllOf(tx, { storeId }, at));
  });
  deps.stores.registerStatistics('products', (ex, storeId) => repo.storeCounts(ex, storeId, now()));

  /** Events of a product that became ACTIVE: published the first time it does. */
  async function announce(tx: Executor, before: { publishedAt: Date | null } | null, p: ProductRecord): Promise<void> {
    if (p.status === 'ACTIVE' && !before?.publishedAt) {
      await ctx.events.publish(tx, 'products.published', {
        productId: p.id,
        supplierId: p.supplierId,
        storeId: p.storeId,
      });
    }
  }

  /**
   * Loads a product for a user who manages it: the supplier who owns its store or a member whose
   * store role has `products.manage`. Someone else gets 404, or 403 NOT_OWNER when the product is
   * public (it exists for everyone, so saying so reveals nothing).
   */
  async function manage(
    ex: Executor,
    user: AuthUser,
    id: string,
    opts: { lock?: boolean } = {},
  ): Promise<ProductRecord> {
    const product = await repo.findProduct(ex, id, opts);
    if (!product) throw notFound('Product');
    let role;
    try {
      ({ role } = await deps.stores.resolveRole(ex, user.id, product.storeId));
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404) throw notFound('Product');
      throw err;
    }
    if (!role) {
      if (await repo.isPublic(ex, id, now())) throw forbidden('NOT_OWNER', 'This product belongs to another supplier');
      throw notFound('Product');
    }
    assertRoleCan(role, 'products.manage');
    return product;
  }

  /** A store the user may put products in: one it manages products of, and active. */
  async function targetStore(ex: Executor, user: AuthUser, storeId: string) {
    const { store } = await deps.stores.authorize(ex, user.id, storeId, 'products.manage');
    if (!store.isActive) throw conflict('STORE_INACTIVE', 'Products can only be added to an active store');
    return store;
  }

  async function view(ex: Executor, p: ProductRecord): Promise<ProductView> {
    const [images, sales] = await together(ex, [() => repo.imagesOf(ex, [p.id]), () => salesFigures(ex, [p.id])]);
    return toProductView(p, images.get(p.id) ?? [], ctx.links, now(), sales.get(p.id) ?? NO_SALES);
  }

  async function views(ex: Executor, rows: ProductRecord[]): Promise<ProductView[]> {
    const ids = rows.map((r) => r.id);
    const [images, sales] = await together(ex, [() => repo.imagesOf(ex, ids), () => salesFigures(ex, ids)]);
    const at = now();
    return rows.map((p) => toProductView(p, images.get(p.id) ?? [], ctx.links, at, sales.get(p.id) ?? NO_SALES));
  }

  async function listOfSupplier(supplierId: string, q: OwnProductsQuery) {
    const { items, total } = await repo.listProducts(ctx.db, { supplierId, status: q.status, storeId: q.storeId }, q);
    return { items: await views(ctx.db, items), meta: pageMeta(q, total) };
  }

  /** Where a resubmitted product goes: ACTIVE with auto-approval, else back to review. */
  const reviewTarget = (auto: boolean): ProductStatus => (auto ? 'ACTIVE' : 'PENDING_REVIEW');

  return {
    /** Figures for the administrators' dashboard and reports (analytics module), from this module's tables. */
    figures,
    flushViews,
    async close() {
      clearInterval(timer);
      await flushViews();
    },
    registerSalesFigures(source: SalesFiguresSource): void {
      salesFigures = source;
    },
    registerReviews(source: repo.ProductPageReviews): void {
      productReviews = source;
    },
    views,
    view,
    manage,
    announce,

    // ---- the supplier's

    async create(user: AuthUser, body: CreateProductBody): Promise<ProductView> {
      const t = now();
      const expiresAt = new Date(body.expiresAt);
      checkProduct(body, expiresAt, t);
      const flags = await deps.settings.get('features');
      return ctx.db.transaction(async (tx) => {
        const store = await targetStore(tx, user, body.storeId);
        // One creation at a time per supplier: the count below cannot be overtaken by another.
        const supplier = await deps.suppliers.lockProfile(tx, { id: store.supplierId });
        if (!supplier) throw notFound('Supplier profile');
        const limits = await deps.subscriptions.getLimits(tx, supplier.id);
        if (!limits.allowed) {
          throw forbidden(
            'PLAN_LIMIT_REACHED',
            `The ${limits.plan.name} plan allows ${limits.maxProducts} products and ${limits.currentProducts} are in use`,
          );
        }
        const status: ProductStatus =
          supplier.verificationStatus === 'VERIFIED' && flags.autoApproveVerifiedSupplierProducts
            ? 'ACTIVE'
            : 'PENDING_REVIEW';
        const fields = {
          name: body.name,
          description: body.description ?? '',
          category: body.category,
          dietaryTags: body.dietaryTags ?? [],
          allergens: body.allergens ?? [],
        };
        const product = await repo.insertProduct(
          tx,
          {
            ...fields,
            id: uuidv7(t.getTime()),
            supplierId: supplier.id,
            storeId: store.id,
            originalPrice: body.originalPrice,
            discountedPrice: body.discountedPrice,
            quantity: body.quantity,
            unitWeightGrams: body.unitWeightGrams ?? DEFAULT_UNIT_WEIGHT_GRAMS[body.category],
            expiresAt,
            pickupStart: body.pickupStart,
            pickupEnd: body.pickupEnd,
            status,
            searchDocument: buildSearchDocument(fields),
            publishedAt: status === 'ACTIVE' ? t : null,
            createdAt: t,
            updatedAt: t,
          },
          store,
        );
        await ctx.events.publish(tx, 'products.created', {
          productId: product.id,
          supplierId: supplier.id,
          storeId: store.id,
          status,
        });
        await announce(tx, null, product);
        return toProductView(product, [], ctx.links, now());
      });
    },

    async update(user: AuthUser, id: string, body: UpdateProductBody): Promise<ProductView> {
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const before = await manage(tx, user, id, { lock: true });
        const store =
          body.storeId && body.storeId !== before.storeId ? await targetStore(tx, user, body.storeId) : undefined;
        if (store && store.supplierId !== before.supplierId)
          throw validationError('body.storeId', 'must be a store of the same supplier');
        const { status: wanted, expiresAt: expiresText, ...fields } = body;
        const after = { ...before, ...fields, ...(expiresText && { expiresAt: new Date(expiresText) }) };
        checkProduct(after, expiresText ? after.expiresAt : undefined, t);

        const substantial = SUBSTANTIAL.some((f) => body[f] !== undefined && !sameValue(body[f], before[f]));
        let status = before.status;
        if (wanted && wanted !== status) {
          assertTransition(STATUS_TOGGLE_TRANSITIONS, status, wanted, 'Product status');
          status = wanted;
        }
        const supplier = await deps.suppliers.findProfile(before.supplierId, tx);
        const auto = supplier ? await autoApprovesWith(tx, supplier.verificationStatus) : false;
        if (status === 'REJECTED' || (status === 'EXPIRED' && expiresText)) status = reviewTarget(auto);
        else if (substantial && status === 'ACTIVE') status = reviewTarget(auto);
        else if (substantial && status === 'INACTIVE' && !auto) status = 'PENDING_REVIEW';
        if (status !== before.status && !(wanted === status))
          assertTransition(PRODUCT_TRANSITIONS, before.status, status, 'Product status');

        const row = await repo.updateProduct(
          tx,
          id,
          {
            ...fields,
            ...(expiresText && { expiresAt: after.expiresAt }),
            status,
            rejectionReason: status === 'REJECTED' ? before.rejectionReason : null,
            searchDocument: buildSearchDocument(after),
            ...(status === 'ACTIVE' && !before.publishedAt && { publishedAt: t }),
            updatedAt: t,
          },
          store,
        );
        await announce(tx, before, row);
        return view(tx, row);
      });
    },

    async remove(user: AuthUser, id: string): Promise<{ message: string }> {
      const t = now();
      await ctx.db.transaction(async (tx) => {
        const product = await manage(tx, user, id, { lock: true });
        await removeProduct(tx, product, t);
      });
      return { message: 'Product deleted' };
    },

    async changeStock(user: AuthUser, id: string, body: StockBody): Promise<ProductView> {
      return ctx.db.transaction(async (tx) => {
        await manage(tx, user, id);
        const row = await repo.changeStock(tx, id, body, now());
        if (!row) throw conflict('STOCK_BELOW_ZERO', 'The stock cannot go below zero');
        return view(tx, row);
      });
    },

    /** Adds pictures after those already there, each in two sizes; at most MAX_PRODUCT_IMAGES in all. */
    async addImages(
      user: AuthUser,
      id: string,
      upload: { files: UploadedFile[]; fields: Record<string, string> },
    ): Promise<ProductView> {
      const extra = Object.keys(upload.fields)[0] ?? upload.files.find((f) => f.field !== 'images')?.field;
      if (extra) throw validationError(`body.${extra}`, 'is not an allowed property');
      if (!upload.files.length) throw validationError('body.images', 'is required (one to five image files)');
      await manage(ctx.db, user, id);
      const t = now();
      const made = await storeImageSizes(ctx, `products/${id}`, upload.files, t);
      const keys = made.flatMap((m) => [m.thumbnailKey, m.largeKey]);
      try {
        return await ctx.db.transaction(async (tx) => {
          // The product's row lock orders parallel uploads: each counts what the previous added.
          const product = await manage(tx, user, id, { lock: true });
          const existing = (await repo.imagesOf(tx, [id])).get(id) ?? [];
          if (existing.length + made.length > MAX_PRODUCT_IMAGES) {
            throw new AppError(
              422,
              'TOO_MANY_IMAGES',
              `A product has at most ${MAX_PRODUCT_IMAGES} pictures; it has ${existing.length} and ${made.length} were sent`,
            );
          }
          const next = existing.reduce((m, i) => Math.max(m, i.position), 0);
          await repo.insertImages(
            tx,
            made.map((m, n) => ({ ...m, productId: id, position: next + n + 1, createdAt: t })),
          );
          let row = product;
          // New pictures are judged like a new product: back to review unless auto-approved.
          if (product.status === 'ACTIVE') {
            const supplier = await deps.suppliers.findProfile(product.supplierId, tx);
            const auto = supplier ? await autoApprovesWith(tx, supplier.verificationStatus) : false;
            if (!auto) row = await repo.updateProduct(tx, id, { status: 'PENDING_REVIEW', updatedAt: t });
            else row = await repo.updateProduct(tx, id, { updatedAt: t });
          } else row = await repo.updateProduct(tx, id, { updatedAt: t });
          return view(tx, row);
        });
      } catch (err) {
        await ctx.storage.discard('public', keys);
        throw err;
      }
    },

    async removeImage(user: AuthUser, id: string, imageId: string): Promise<ProductView> {
      return ctx.db.transaction(async (tx) => {
        await manage(tx, user, id, { lock: true });
        const image = await repo.deleteImage(tx, id, imageId);
        if (!image) throw notFound('Image');
        await deleteFilesLater(tx, [image.thumbnailKey, image.largeKey]);
        return view(tx, await repo.updateProduct(tx, id, { updatedAt: now() }));
      });
    },

    async listOwn(user: AuthUser, q: OwnProductsQuery) {
      const profile = await deps.suppliers.requireOwnProfile(user.id);
      return listOfSupplier(profile.id, q);
    },

    /** A supplier's products in every state but deleted (for other modules and the seed). */
    listOfSupplier,

    // ---- public

    /** The product page (ProductDetailSchema) as JSON text, written by the database but for the decayed popularity. */
    async getPublic(id: string, userId: string | null): Promise<string> {
      const t = now();
      // Built at the first page, once every module has registered.
      detailStatement ??= repo.publicDetailStatement(productReviews);
      const row = await repo.findPublicDetail(detailStatement, ctx.db, id, userId, t, ctx.links.publicPrefix);
      if (!row) throw notFound('Product');
      pendingViews.set(id, (pendingViews.get(id) ?? 0) + 1);
      // Bounded memory: a burst over many products is written early rather than held.
      if (pendingViews.size >= MAX_PENDING_VIEWS) void flushViews();
      return `${row.page.slice(0, -1)},"popularityScore":${JSON.stringify(popularityAt(row.popularityScore, t))}}`;
    },

    // ---- favourites and follows

    async addFavorite(user: AuthUser, id: string) {
      await ctx.db.transaction(async (tx) => {
        if (!(await repo.isPublic(tx, id, now()))) throw notFound('Product');
        await repo.addFavorite(tx, user.id, id, now());
      });
      return { productId: id, isFavorite: true };
    },

    async removeFavorite(user: AuthUser, id: string) {
      await ctx.db.transaction((tx) => repo.removeFavorite(tx, user.id, id, now()));
      return { productId: id, isFavorite: false };
    },

    async listFavorites(
      user: AuthUser,
      q: FavoritesQuery,
    ): Promise<{ items: FavoriteProductView[]; meta: ReturnType<typeof pageMeta> }> {
      const { items, total } = await repo.listFavorites(ctx.db, user.id, now(), q);
      return {
        items: items.map((r) => ({
          id: r.product.id,
          name: r.product.name,
          thumbnailUrl: r.thumbnailKey ? ctx.links.publicUrl(r.thumbnailKey) : null,
          originalPrice: r.product.originalPrice,
          discountedPrice: r.product.discountedPrice,
          discountPercent: r.product.discountPercent,
          currency: r.product.currency,
          expiresAt: r.product.expiresAt.toISOString(),
          storeId: r.product.storeId,
          storeName: r.storeName,
          available: r.available,
          favoritedAt: r.favoritedAt.toISOString(),
        })),
        meta: pageMeta(q, total),
      };
    },

    async follow(user: AuthUser, storeId: string) {
      await deps.stores.getPublic(storeId);
      await repo.addFollow(ctx.db, user.id, storeId, now());
      return { storeId, following: true };
    },

    async unfollow(user: AuthUser, storeId: string) {
      await repo.removeFollow(ctx.db, user.id, storeId);
      return { storeId, following: false };
    },

    followersOf: (ex: Executor, storeId: string) => repo.followersOf(ex, storeId),
    /** Whether the public may see the product now (for other modules pointing at it). */
    isPublic: (ex: Executor, id: string) => repo.isPublic(ex, id, now()),
    announcementOf: (ex: Executor, productId: string) => repo.announcementOf(ex, productId),

    /** The expiry job: ACTIVE, INACTIVE or pending products past their expiry become EXPIRED. */
    markExpired: () => repo.markExpired(ctx.db, now()),

    removeProduct: (ex: Executor, product: ProductRecord, at: Date) => removeProduct(ex, product, at),

    // ---- reviews

    /** A product in any state but deleted (reviews outlive a product's sale), or undefined. */
    findLive: (ex: Executor, id: string) => repo.findProduct(ex, id),
    /** Stores a product's rating summary, in the transaction of the review that changed it. */
    setRating: (ex: Executor, id: string, rating: { average: number; count: number }) => repo.setRating(ex, id, rating),

    // ---- stock held by orders, inside the order's transaction

    /** Products of an order being made, with whether the public may order them now, their store (share-locked) and supplier. */
    findForOrder: (ex: Executor, ids: readonly string[]) => repo.findForOrder(ex, ids, now()),
    /** Available -> reserved for every line, or nothing: answers the products short of stock (the caller rolls back). */
    reserveStock: (tx: Executor, items: readonly StockLine[]) => repo.reserveStock(tx, items, now()),
    /** Reserved -> available (a cancelled order). */
    releaseStock: (tx: Executor, items: readonly StockLine[]) => repo.releaseStock(tx, items, now()),
    /** Reserved -> sold, with the day's sales activity (a completed order). */
    markSold: (tx: Executor, items: readonly StockLine[]) => repo.markSold(tx, items, now()),
    /** Reserved -> sold without the sales activity (a collected food donation). */
    markDonated: (tx: Executor, items: readonly StockLine[]) => repo.markDonated(tx, items, now()),
  };

  async function autoApprovesWith(ex: Executor, verificationStatus: string): Promise<boolean> {
    return (
      verificationStatus === 'VERIFIED' && (await deps.settings.get('features', ex)).autoApproveVerifiedSupplierProducts
    );
  }

  /**
   * Deletes a product inside the caller's transaction (its row locked): refused while orders on
   * it are in progress. Its picture files are deleted by a job once this commits.
   */
  async function removeProduct(ex: Executor, product: ProductRecord, at: Date): Promise<void> {
    await ctx.workInProgress.assertNone(ex, { productId: product.id }, 'The product', 'PRODUCT_HAS_ACTIVE_ORDERS');
    assertTransition(PRODUCT_TRANSITIONS, product.status, 'DELETED', 'Product status');
    const images = await repo.deleteImagesOf(ex, product.id);
    await repo.deleteFavoritesOf(ex, product.id);
    await repo.updateProduct(ex, product.id, { status: 'DELETED', deletedAt: at, updatedAt: at });
    await deleteFilesLater(
      ex,
      images.flatMap((i) => [i.thumbnailKey, i.largeKey]),
    );
  }
}
