import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, notFound } from '../../shared/errors.js';
import { pageMeta } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import { MODERATION_TRANSITIONS, STATUS_TOGGLE_TRANSITIONS } from './product-status.js';
import * as repo from './products.repository.js';
import type { ProductRecord } from './products.repository.js';
import type {
  AdminProductView,
  AdminProductsQuery,
  AdminStatusBody,
  BulkApproveBody,
  ModerationQuery,
  ProductView,
} from './products.schemas.js';
import type { ProductsDeps, ProductsService } from './products.service.js';

export type ProductsAdminService = ReturnType<typeof createProductsAdminService>;

/** Moderation and administration of products; every decision is audited in its transaction. */
export function createProductsAdminService(
  ctx: AppContext,
  products: ProductsService,
  deps: Pick<ProductsDeps, 'suppliers' | 'stores'>,
) {
  const now = () => ctx.clock.now();

  /** The page's products with their supplier and store: two lookups for the page, not two per row. */
  async function adminViews(rows: ProductRecord[]): Promise<AdminProductView[]> {
    const [views, suppliers, stores] = await Promise.all([
      products.views(ctx.db, rows),
      deps.suppliers.summariesByIds(
        ctx.db,
        rows.map((p) => p.supplierId),
      ),
      deps.stores.viewsByIds(ctx.db, [...new Set(rows.map((p) => p.storeId))]),
    ]);
    return views.map((v) => {
      const supplier = suppliers.get(v.supplierId);
      const store = stores.get(v.storeId);
      return {
        ...v,
        supplier: {
          id: v.supplierId,
          businessName: supplier?.businessName ?? null,
          verificationStatus: supplier?.verificationStatus ?? null,
          deleted: supplier?.deletedAt != null,
        },
        store: { id: v.storeId, name: store?.name ?? null, city: store?.city ?? null },
      };
    });
  }

  async function decide(
    admin: AuthUser,
    id: string,
    action: string,
    change: (p: ProductRecord, at: Date) => Partial<repo.NewProduct>,
    reason?: string | null,
  ): Promise<ProductView> {
    const t = now();
    return ctx.db.transaction(async (tx) => {
      const before = await repo.findProduct(tx, id, { lock: true });
      if (!before) throw notFound('Product');
      const patch = change(before, t);
      const row = await repo.updateProduct(tx, id, { ...patch, updatedAt: t });
      await recordAdminAction(tx, {
        actorId: admin.id,
        action,
        targetType: 'product',
        targetId: id,
        reason,
        data: { from: before.status, to: row.status },
        at: t,
      });
      await announceDecision(tx, before, row, reason);
      return products.view(tx, row);
    });
  }

  /** The supplier hears of moderation decisions; followers of the store of a first publication. */
  async function announceDecision(tx: Executor, before: ProductRecord, row: ProductRecord, reason?: string | null) {
    if (before.status === 'PENDING_REVIEW' && row.status === 'ACTIVE') {
      await ctx.events.publish(tx, 'products.approved', {
        productId: row.id,
        supplierId: row.supplierId,
        storeId: row.storeId,
      });
    }
    if (row.status === 'REJECTED')
      await ctx.events.publish(tx, 'products.rejected', {
        productId: row.id,
        supplierId: row.supplierId,
        reason: reason ?? '',
      });
    await products.announce(tx, before, row);
  }

  const approve = (p: ProductRecord, at: Date): Partial<repo.NewProduct> => {
    assertTransition(MODERATION_TRANSITIONS, p.status, 'ACTIVE', 'Product status');
    return { status: 'ACTIVE', rejectionReason: null, publishedAt: p.publishedAt ?? at };
  };

  return {
    async list(q: AdminProductsQuery) {
      const { items, total } = await repo.listProducts(ctx.db, q, q, q.sort);
      return { items: await adminViews(items), meta: pageMeta(q, total) };
    },

    /** Products waiting for a decision, oldest first. */
    async moderationQueue(q: ModerationQuery) {
      const { items, total } = await repo.listProducts(ctx.db, { status: 'PENDING_REVIEW' }, q, 'createdAt');
      return { items: await adminViews(items), meta: pageMeta(q, total) };
    },

    approve: (admin: AuthUser, id: string) => decide(admin, id, 'product.approve', approve),

    reject: (admin: AuthUser, id: string, reason: string) =>
      decide(
        admin,
        id,
        'product.reject',
        (p) => {
          assertTransition(MODERATION_TRANSITIONS, p.status, 'REJECTED', 'Product status');
          return { status: 'REJECTED', rejectionReason: reason };
        },
        reason,
      ),

    setStatus: (admin: AuthUser, id: string, body: AdminStatusBody) =>
      decide(
        admin,
        id,
        'product.status',
        (p) => {
          assertTransition(STATUS_TOGGLE_TRANSITIONS, p.status, body.status, 'Product status');
          return { status: body.status };
        },
        body.reason,
      ),

    async remove(admin: AuthUser, id: string, reason?: string) {
      const t = now();
      await ctx.db.transaction(async (tx) => {
        const product = await repo.findProduct(tx, id, { lock: true });
        if (!product) throw notFound('Product');
        await products.removeProduct(tx, product, t);
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'product.delete',
          targetType: 'product',
          targetId: id,
          reason,
          data: { from: product.status },
          at: t,
        });
      });
      return { message: 'Product deleted' };
    },

    /** Approves every product or none: any missing or not pending refuses the whole batch. */
    async bulkApprove(admin: AuthUser, body: BulkApproveBody) {
      const t = now();
      return ctx.db.transaction(async (tx) => {
        const found = await repo.findProductsForUpdate(tx, body.ids);
        const byId = new Map(found.map((p) => [p.id, p]));
        const refused = body.ids.flatMap((id, n) => {
          const p = byId.get(id);
          if (!p) return [{ field: `body.ids.${n}`, message: `product ${id} not found` }];
          if (p.status !== 'PENDING_REVIEW')
            return [{ field: `body.ids.${n}`, message: `product ${id} is ${p.status}, not PENDING_REVIEW` }];
          return [];
        });
        if (refused.length)
          throw new AppError(
            409,
            'INVALID_TRANSITION',
            `${refused.length} of the ${body.ids.length} products cannot be approved; none was`,
            refused,
          );
        for (const p of found) {
          const row = await repo.updateProduct(tx, p.id, { ...approve(p, t), updatedAt: t });
          await announceDecision(tx, p, row);
          await recordAdminAction(tx, {
            actorId: admin.id,
            action: 'product.approve',
            targetType: 'product',
            targetId: p.id,
            reason: body.reason,
            data: { from: p.status, to: 'ACTIVE', bulk: true },
            at: t,
          });
        }
        return { approved: found.length, ids: body.ids };
      });
    },
  };
}
