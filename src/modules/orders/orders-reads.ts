import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { ORDER_STATUSES, orders, type OrderStatus } from '../../db/schema/orders.js';
import type { AuthUser } from '../../http/access.js';
import { notFound } from '../../shared/errors.js';
import { CURRENCY } from '../../shared/money.js';
import { pageMeta } from '../../shared/schemas.js';
import type { StoreCapability } from '../stores/index.js';
import { toPaymentView } from '../payments/index.js';
import type { SalesFigures } from '../products/index.js';
import * as stats from './orders-statistics.repository.js';
import * as repo from './orders.repository.js';
import type { OrderRecord } from './orders.repository.js';
import type { MyOrdersQuery, OrderDetailView, SupplierOrdersQuery, SupplierStatisticsQuery } from './orders.schemas.js';
import type { OrderActor, OrdersDeps } from './orders.types.js';
import { toHistoryView, toOrderView } from './orders.views.js';
import type { PickupTokens } from './pickup-code.js';

/** A supplier's money as the ledger sees it; registered by the ledger (null until then). */
export type BalanceSource = (
  ex: Executor,
  supplierId: string,
) => Promise<{ escrowHeld: number; released: number; paidOut: number }>;

const POPULAR_PRODUCTS = 5;

const byStatus = (counts: Partial<Record<OrderStatus, number>>) =>
  Object.fromEntries(ORDER_STATUSES.map((s) => [s, counts[s] ?? 0])) as Record<OrderStatus, number>;

/** Reading orders: lists, details, statistics, payment status, QR codes. */
export function createOrderReads(
  ctx: AppContext,
  deps: OrdersDeps,
  h: {
    actorOn: (ex: Executor, user: AuthUser, o: OrderRecord, capability: StoreCapability) => Promise<OrderActor | null>;
    tokens: PickupTokens;
  },
) {
  let balances: BalanceSource | null = null;

  /** The order if the user may read it (its client, seller with orders.view, an administrator); 404 otherwise. */
  async function readable(user: AuthUser, id: string): Promise<{ order: OrderRecord; actor: OrderActor }> {
    const order = await repo.findOrder(ctx.db, id);
    const actor = order && (await h.actorOn(ctx.db, user, order, 'orders.view'));
    if (!order || !actor) throw notFound('Order');
    return { order, actor };
  }

  async function views(list: OrderRecord[], forClient: boolean) {
    const ids = list.map((o) => o.id);
    const [items, payments, stores] = await Promise.all([
      repo.itemsOf(ctx.db, ids),
      deps.payments.latestOfOrders(ctx.db, ids),
      deps.stores.viewsByIds(ctx.db, [...new Set(list.map((o) => o.storeId))]),
    ]);
    return list.map((o) =>
      toOrderView(
        o,
        items.get(o.id) ?? [],
        payments.get(o.id)?.payment,
        stores.get(o.storeId)?.name ?? null,
        forClient,
      ),
    );
  }

  /** Stores whose orders a user sees as a seller: its own supplier's, and those it is a member of with `capability`. */
  async function sellerScope(user: AuthUser, capability: StoreCapability) {
    const [own, storeIds] = await Promise.all([
      deps.suppliers.findOwnProfile(user.id),
      deps.members.storesWhere(ctx.db, user.id, capability),
    ]);
    return { supplierId: own?.id ?? null, storeIds };
  }

  function paymentStatusOf(o: OrderRecord, payment: Parameters<typeof toPaymentView>[0] | undefined, attempts: number) {
    return {
      orderId: o.id,
      orderStatus: o.status,
      paymentStatus: o.paymentStatus,
      payment: payment ? toPaymentView(payment) : null,
      attempts,
    };
  }

  return {
    registerBalances(source: BalanceSource): void {
      balances = source;
    },

    async get(user: AuthUser, id: string): Promise<OrderDetailView> {
      const { order: o, actor } = await readable(user, id);
      const [[view], client, supplier, store, payments, history] = await Promise.all([
        views([o], actor.role === 'CLIENT'),
        deps.users.findById(o.clientId),
        deps.suppliers.findProfile(o.supplierId),
        deps.stores.findStore(ctx.db, o.storeId),
        deps.payments.listOfOrder(ctx.db, o.id),
        repo.historyOf(ctx.db, o.id),
      ]);
      return {
        ...view!,
        client: { id: o.clientId, firstName: client?.firstName ?? null, lastName: client?.lastName ?? null },
        supplier: { id: o.supplierId, businessName: supplier?.businessName ?? null },
        store: {
          id: o.storeId,
          name: store?.name ?? null,
          address: store?.address ?? null,
          city: store?.city ?? null,
          timezone: store?.timezone ?? null,
        },
        payments: payments.map(toPaymentView),
        history: history.map(toHistoryView),
      };
    },

    async listMine(user: AuthUser, q: MyOrdersQuery) {
      const { items, total } = await repo.listOrders(ctx.db, { clientId: user.id, status: q.status }, q);
      return { items: await views(items, true), meta: pageMeta(q, total) };
    },

    async listSupplier(user: AuthUser, q: SupplierOrdersQuery) {
      const scope = await sellerScope(user, 'orders.view');
      const filters = {
        ...scope,
        storeId: q.storeId,
        status: q.status,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      };
      const { items, total } = await repo.listOrders(ctx.db, filters, q);
      return { items: await views(items, false), meta: pageMeta(q, total) };
    },

    async clientStatistics(user: AuthUser) {
      const [counts, totals] = await Promise.all([
        stats.countByStatus(ctx.db, eq(orders.clientId, user.id)),
        stats.clientTotals(ctx.db, user.id),
      ]);
      const ordersByStatus = byStatus(counts);
      return {
        currency: CURRENCY,
        totalOrders: Object.values(ordersByStatus).reduce((a, b) => a + b, 0),
        ordersByStatus,
        ...totals,
      };
    },

    async supplierStatistics(user: AuthUser, q: SupplierStatisticsQuery) {
      const { supplierId, storeIds } = await sellerScope(user, 'store.view_statistics');
      if (!supplierId && !storeIds.length) throw notFound('Supplier profile');
      const scope = stats.sellerScope(supplierId, storeIds, q.storeId);
      const period = q.period ?? 'day';
      const [counts, sales, perPeriod, popular, money] = await Promise.all([
        stats.countByStatus(ctx.db, scope),
        stats.salesTotals(ctx.db, scope),
        stats.perPeriod(ctx.db, scope, period, ctx.clock.now()),
        stats.popularProducts(ctx.db, scope, POPULAR_PRODUCTS),
        supplierId && balances ? balances(ctx.db, supplierId) : null,
      ]);
      const ordersByStatus = byStatus(counts);
      return {
        currency: CURRENCY,
        period,
        totalOrders: Object.values(ordersByStatus).reduce((a, b) => a + b, 0),
        ordersByStatus,
        sales,
        ordersPerPeriod: perPeriod,
        popularProducts: popular,
        balances: money,
      };
    },

    async paymentStatusByOrder(user: AuthUser, orderId: string) {
      const { order } = await readable(user, orderId);
      const latest = (await deps.payments.latestOfOrders(ctx.db, [order.id])).get(order.id);
      return paymentStatusOf(order, latest?.payment, latest?.attempts ?? 0);
    },

    async paymentStatusByTransaction(user: AuthUser, transactionId: string) {
      const payment = await deps.payments.find(ctx.db, transactionId);
      if (!payment?.orderId) throw notFound('Payment');
      const { order } = await readable(user, payment.orderId).catch(() => {
        throw notFound('Payment');
      });
      const attempts = (await deps.payments.latestOfOrders(ctx.db, [order.id])).get(order.id)?.attempts ?? 0;
      return paymentStatusOf(order, payment, attempts);
    },

    /** The QR code of the pickup code, for the client only (a PNG of a signed token). */
    async qr(user: AuthUser, id: string): Promise<Buffer> {
      const o = await repo.findOrder(ctx.db, id);
      if (!o || o.clientId !== user.id) throw notFound('Order');
      return h.tokens.png(o.id, o.pickupCode);
    },

    providers: () => deps.payments.methods(),

    /** Units sold, completed orders and revenue per product, for the products module. */
    async salesFigures(ex: Executor, productIds: string[]): Promise<Map<string, SalesFigures>> {
      const rows = await stats.salesOfProducts(ex, productIds);
      return new Map(rows.map((r) => [r.productId, { unitsSold: r.unitsSold, orders: r.orders, revenue: r.revenue }]));
    },
  };
}
