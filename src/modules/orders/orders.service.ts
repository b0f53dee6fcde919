import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { together, type Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { orders, type OrderStatus } from '../../db/schema/orders.js';
import type { AuthUser } from '../../http/access.js';
import type { TransactionalKey } from '../../http/idempotency.js';
import { AppError, conflict, notFound, validationError, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { CURRENCY } from '../../shared/money.js';
import { normalizePhone } from '../../shared/phone.js';
import { assertTransition } from '../../shared/state-machine.js';
import type { PaymentRecord } from '../payments/index.js';
import { roleCan, type StoreCapability } from '../stores/index.js';
import { commonWindow, pickupInstants } from './order-pickup.js';
import {
  OPEN_ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PAYMENT_FAILED,
  PAYMENT_TIMEOUT,
  UNPAID_REASONS,
} from './order-status.js';
import * as stats from './orders-statistics.repository.js';
import * as repo from './orders.repository.js';
import * as figures from './orders.figures.js';
import type { OrderItemRecord, OrderRecord } from './orders.repository.js';
import { MAX_ORDER_AMOUNT, orderAmountTooLarge, type CreateOrderBody, type StatusBody } from './orders.schemas.js';
import { createOrderReads } from './orders-reads.js';
import type { OrderActor, OrdersDeps } from './orders.types.js';

export type { OrderActor, OrdersDeps } from './orders.types.js';
import { newPickupCode, pickupCodeMatches, PickupTokens } from './pickup-code.js';
import { toOrderView } from './orders.views.js';

/** Cancels an order still PENDING and unpaid at its payment deadline (scheduled at creation). */
export const PAYMENT_TIMEOUT_JOB = 'orders.payment-timeout';
/** Cancels an unpaid order whose payment failed, once the grace for a retry has passed (scheduled at the failure). */
export const PAYMENT_FAILED_JOB = 'orders.payment-failed';

const SYSTEM: OrderActor = { userId: null, role: 'SYSTEM' };

/** What `POST /orders` answers: the new order, its payment and how to pay it. */
function answerOf(o: OrderRecord & { items: OrderItemRecord[]; storeName: string | null }, payment: PaymentRecord) {
  const view = toOrderView(o, o.items, payment, o.storeName, true);
  // Answered again after a lost answer, the payment may have moved on since.
  const message =
    payment.status !== 'PENDING'
      ? `The payment is ${payment.status}: read the order for what comes next`
      : payment.launchUrl
        ? `Open redirectUrl to pay before ${view.paymentDeadline}`
        : `The payment page is being prepared: read GET /payments/status/${o.id} again in ${view.payment?.retryAfterSeconds ?? 5} s to get redirectUrl (pay before ${view.paymentDeadline})`;
  return { ...view, message };
}

export type OrdersService = ReturnType<typeof createOrdersService>;

export function createOrdersService(ctx: AppContext, deps: OrdersDeps) {
  const now = () => ctx.clock.now();
  const tokens = new PickupTokens(
    createHmac('sha256', ctx.config.JWT_ACCESS_SECRET).update('pickup-codes').digest('hex'),
  );

  /**
   * The capacity in which a user acts on an order: its client, the supplier who owns it, a
   * member of its store whose role grants `capability`, an administrator (reads), or null.
   */
  async function actorOn(
    ex: Executor,
    user: AuthUser,
    o: OrderRecord,
    capability: StoreCapability,
  ): Promise<OrderActor | null> {
    if (o.clientId === user.id) return { userId: user.id, role: 'CLIENT' };
    const own = await deps.suppliers.findOwnProfile(user.id, ex);
    if (own?.id === o.supplierId) return { userId: user.id, role: 'SUPPLIER' };
    const member = await deps.members.roleOf(ex, o.storeId, user.id);
    if (member) {
      if (!roleCan(member, capability))
        throw new AppError(403, 'FORBIDDEN', `Your role on this store (${member}) does not allow ${capability}`);
      return { userId: user.id, role: 'STAFF' };
    }
    if (user.role === 'ADMIN' || user.role === 'SUPER_ADMIN') return { userId: user.id, role: 'ADMIN' };
    return null;
  }

  const supplierUserId = async (ex: Executor, supplierId: string) =>
    (await deps.suppliers.findProfile(supplierId, ex))?.userId;

  async function history(
    ex: Executor,
    o: OrderRecord,
    from: OrderStatus | null,
    to: OrderStatus,
    by: OrderActor,
    reason: string | null,
  ) {
    await repo.insertHistory(ex, {
      id: uuidv7(),
      orderId: o.id,
      fromStatus: from,
      toStatus: to,
      byUserId: by.userId,
      byRole: by.role,
      reason,
      at: now(),
    });
  }

  /** Cancels an open order inside the caller's transaction: stock back, waiting payment closed, both parties told. */
  async function cancel(tx: Executor, o: OrderRecord, by: OrderActor, reason: string): Promise<OrderRecord> {
    assertTransition(ORDER_TRANSITIONS, o.status, 'CANCELLED', 'Order status');
    const t = now();
    const items = (await repo.itemsOf(tx, [o.id])).get(o.id) ?? [];
    await deps.products.releaseStock(tx, items);
    const paid = o.paymentStatus === 'PAID';
    if (!paid) await deps.payments.closeForOrder(tx, o.id, reason === PAYMENT_TIMEOUT ? 'EXPIRED' : 'CANCELLED');
    const row = await repo.updateOrder(tx, o.id, {
      status: 'CANCELLED',
      cancelReason: reason,
      cancelledAt: t,
      updatedAt: t,
    });
    await history(tx, o, o.status, 'CANCELLED', by, reason);
    await ctx.events.publish(tx, 'orders.status_changed', { orderId: o.id, from: o.status, to: 'CANCELLED' });
    await ctx.events.publish(tx, 'orders.cancelled', {
      orderId: o.id,
      clientId: o.clientId,
      supplierId: o.supplierId,
      paid,
      reason,
      by: by.role,
    });
    const data = { orderId: o.id, reason, paid };
    const source = { sourceKey: `order:${o.id}:cancelled` };
    if (by.role === 'SYSTEM' && UNPAID_REASONS.includes(reason))
      await deps.notifications.notify(tx, o.clientId, 'order_payment_expired', data, source);
    else if (by.role === 'CLIENT') {
      const supplierUser = await supplierUserId(tx, o.supplierId);
      if (supplierUser)
        await deps.notifications.notify(tx, supplierUser, 'order_cancelled', { ...data, byClient: true }, source);
    } else await deps.notifications.notify(tx, o.clientId, 'order_cancelled', data, source);
    return row;
  }

  ctx.jobs.work(PAYMENT_TIMEOUT_JOB, async (job: { orderId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const o = await repo.findOrder(tx, job.orderId, { lock: true });
      // Paid in time, or already moved on: nothing to do (the job may also run twice).
      if (!o || o.status !== 'PENDING' || o.paymentStatus !== 'UNPAID') return;
      await cancel(tx, o, SYSTEM, PAYMENT_TIMEOUT);
    });
  });

  ctx.jobs.work(PAYMENT_FAILED_JOB, async (job: { orderId: string; paymentId: string }) => {
    await ctx.db.transaction(async (tx) => {
      const o = await repo.findOrder(tx, job.orderId, { lock: true });
      if (!o || o.status !== 'PENDING' || o.paymentStatus !== 'UNPAID') return;
      // Retried meanwhile (a newer attempt has its own failure to wait for) or paid on the same page: keep it.
      const latest = (await deps.payments.latestOfOrders(tx, [o.id])).get(o.id)?.payment;
      if (latest?.id !== job.paymentId || (latest.status !== 'FAILED' && latest.status !== 'EXPIRED')) return;
      await cancel(tx, o, SYSTEM, PAYMENT_FAILED);
    });
  });

  // Orders not finished yet block deleting their products, stores and suppliers.
  ctx.workInProgress.register(async (ex, scope) => {
    const n = await repo.openCount(ex, scope);
    return n ? `${n} order${n > 1 ? 's' : ''} in progress` : null;
  });

  // A store's statistics page shows its orders: open ones, finished ones and what they brought in.
  deps.stores.registerStatistics('orders', async (ex, storeId) => {
    const scope = eq(orders.storeId, storeId);
    const [counts, sales] = await together(ex, [
      () => stats.countByStatus(ex, scope),
      () => stats.salesTotals(ex, scope),
    ]);
    const open = OPEN_ORDER_STATUSES.reduce((n, st) => n + (counts[st] ?? 0), 0);
    return {
      open,
      completed: counts.COMPLETED ?? 0,
      cancelled: counts.CANCELLED ?? 0,
      unitsSold: sales.unitsSold,
      revenueGross: sales.revenueGross,
    };
  });

  const reads = createOrderReads(ctx, deps, { actorOn, tokens });
  deps.products.registerSalesFigures(reads.salesFigures);

  /** Checks the products of a new order; answers them in the body's order with the store's view. */
  async function checkItems(tx: Executor, body: CreateOrderBody) {
    const found = new Map(
      (
        await deps.products.findForOrder(
          tx,
          body.items.map((i) => i.productId),
        )
      ).map((r) => [r.product.id, r]),
    );
    const rows = body.items.map((item, n) => {
      const row = found.get(item.productId);
      if (!row || row.product.status === 'DELETED') {
        throw new AppError(404, 'NOT_FOUND', 'Product not found', [
          { field: `body.items.${n}.productId`, message: 'no such product' },
        ]);
      }
      return { ...row, item, field: `body.items.${n}.productId` };
    });
    const storeId = rows[0]!.product.storeId;
    const elsewhere = rows.filter((r) => r.product.storeId !== storeId);
    if (elsewhere.length) {
      throw new AppError(
        400,
        'VALIDATION_ERROR',
        'An order takes products of one store only',
        elsewhere.map((r) => ({ field: r.field, message: 'is sold by another store than body.items.0.productId' })),
      );
    }
    const t = now();
    for (const r of rows) {
      const detail = [{ field: r.field, message: r.product.name }];
      if (r.product.status === 'EXPIRED' || r.product.expiresAt <= t)
        throw new AppError(409, 'PRODUCT_EXPIRED', `${r.product.name} has expired`, detail);
      if (r.product.status !== 'ACTIVE')
        throw new AppError(409, 'PRODUCT_UNAVAILABLE', `${r.product.name} cannot be ordered`, detail);
    }
    // The store's own refusals (inactive, temporary closure) say why; a store the public cannot see is unavailable.
    let store;
    try {
      store = deps.stores.acceptingOrders({ store: rows[0]!.store, visible: rows[0]!.storeVisible }, t);
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404)
        throw new AppError(409, 'PRODUCT_UNAVAILABLE', 'These products cannot be ordered', [
          { field: rows[0]!.field, message: 'store not available' },
        ]);
      throw err;
    }
    const hidden = rows.find((r) => !r.visible);
    if (hidden)
      throw new AppError(409, 'PRODUCT_UNAVAILABLE', `${hidden.product.name} cannot be ordered`, [
        { field: hidden.field, message: hidden.product.name },
      ]);
    // Read with the products: the supplier of the store, live.
    const supplier = rows[0]!.supplier.deletedAt ? undefined : rows[0]!.supplier;
    return { rows, store, supplier };
  }

  /** `POST /orders`' answer for an order made earlier: as it is now, its payment page opened if still missing. */
  async function answerMade(orderId: string) {
    const o = await repo.findOrder(ctx.db, orderId);
    if (!o) throw notFound('Order');
    const [items, payment, store] = await Promise.all([
      repo.itemsOf(ctx.db, [o.id]),
      deps.payments.latestOpened({ type: 'order', id: o.id }),
      deps.stores.findStore(ctx.db, o.storeId),
    ]);
    return answerOf({ ...o, items: items.get(o.id) ?? [], storeName: store?.name ?? null }, payment!);
  }

  return {
    /** Figures for the administrators' dashboard and reports (analytics module), from this module's tables. */
    figures,
    ...reads,
    tokens,

    async create(user: AuthUser, body: CreateOrderBody, idempotency?: TransactionalKey) {
      // The same request, whose order committed but whose answer was lost with its process: that order.
      const made = idempotency?.madeBefore();
      if (made) return answerMade(made);
      const dupes: ErrorDetail[] = [];
      body.items.forEach((item, n) => {
        if (body.items.findIndex((i) => i.productId === item.productId) < n)
          dupes.push({
            field: `body.items.${n}.productId`,
            message: 'is already in the order: send it once with the total quantity',
          });
      });
      if (dupes.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', dupes);
      const payerPhone = body.payerPhone ? normalizePhone(body.payerPhone, 'body.payerPhone') : null;
      const [business, methods] = await Promise.all([deps.settings.get('business'), deps.settings.get('mobilemoney')]);
      if (!methods[body.paymentMethod].enabled)
        throw validationError(
          'body.paymentMethod',
          'is not offered at the moment (see GET /orders/payments/providers)',
        );

      const created = await ctx.db.transaction(async (tx) => {
        const { rows, store, supplier } = await checkItems(tx, body);
        const itemsTotal = rows.reduce((s, r) => s + r.product.discountedPrice * r.item.quantity, 0);
        const originalTotal = rows.reduce((s, r) => s + r.product.originalPrice * r.item.quantity, 0);
        const itemsWeightGrams = rows.reduce((s, r) => s + r.product.unitWeightGrams * r.item.quantity, 0);
        if (orderAmountTooLarge(itemsTotal, originalTotal)) {
          throw conflict(
            'ORDER_ABOVE_MAXIMUM',
            `An order may come to at most ${MAX_ORDER_AMOUNT} ${CURRENCY}; this one comes to ${itemsTotal} ` +
              `(${originalTotal} before discounts): order fewer units`,
          );
        }
        if (itemsTotal < business.minimumOrderAmount) {
          throw conflict(
            'ORDER_BELOW_MINIMUM',
            `An order must come to at least ${business.minimumOrderAmount} ${CURRENCY}; this one is ${itemsTotal}`,
          );
        }
        const window = commonWindow(rows.map((r) => r.product));
        if (!window)
          throw conflict(
            'PICKUP_WINDOWS_DO_NOT_OVERLAP',
            'These products cannot be collected at the same time: order them separately',
          );
        if (!supplier) throw new AppError(409, 'PRODUCT_UNAVAILABLE', 'These products cannot be ordered');

        const t = now();
        const deadline = new Date(t.getTime() + business.paymentTimeoutMinutes * 60_000);
        const pickup = pickupInstants(window, store.timezone, t);
        const orderId = uuidv7(t.getTime());
        const items = rows.map((r) => ({
          id: uuidv7(t.getTime()),
          orderId,
          productId: r.product.id,
          productName: r.product.name,
          unitPrice: r.product.discountedPrice,
          originalUnitPrice: r.product.originalPrice,
          quantity: r.item.quantity,
        }));
        const order = await repo
          .insertOrder(
            tx,
            {
              id: orderId,
              clientId: user.id,
              supplierId: supplier.id,
              storeId: store.id,
              currency: CURRENCY,
              itemsTotal,
              originalTotal,
              itemsWeightGrams,
              // The supplier's rate, less its plan's discount in the insert: frozen, later changes of either do not reach the order.
              commissionRateBps: supplier.commissionRateBps,
              pickupStartsAt: pickup.startsAt,
              pickupEndsAt: pickup.endsAt,
              pickupCode: newPickupCode(),
              paymentMethod: body.paymentMethod,
              payerPhone,
              note: body.note ?? null,
              idempotencyKey: idempotency?.key ?? null,
              paymentDeadline: deadline,
              createdAt: t,
              updatedAt: t,
            },
            items,
            {
              id: uuidv7(t.getTime()),
              orderId,
              fromStatus: null,
              toStatus: 'PENDING',
              byUserId: user.id,
              byRole: 'CLIENT',
              reason: null,
              at: t,
            },
          )
          .catch((err: unknown) => {
            // The same key's order, committed by a concurrent request (this insert waited for it).
            throw idempotency && isUniqueViolation(err, 'orders_client_idempotency_key') ? idempotency.taken() : err;
          });
        const payment = await deps.payments.start(tx, {
          orderId: order.id,
          method: body.paymentMethod,
          amount: itemsTotal,
          currency: CURRENCY,
          payerPhone,
          expiresAt: deadline,
          firstOfOrder: true,
        });
        await ctx.jobs.send(
          PAYMENT_TIMEOUT_JOB,
          { orderId: order.id },
          { tx, startAfterSeconds: business.paymentTimeoutMinutes * 60 },
        );
        await ctx.events.publish(tx, 'orders.created', {
          orderId: order.id,
          clientId: user.id,
          supplierId: supplier.id,
          storeId: store.id,
          amount: itemsTotal,
        });
        const placed = { ...order, items, storeName: store.name };
        // The Idempotency-Key's row commits with the order (no commit of its own; a concurrent request
        // with the key waited at the order's insert above). A session opened in this transaction (the
        // sandbox) makes the answer final now: it is stored with the key, no write after the commit.
        // A refusal below rolls the key back, and the plugin then stores the refusal as its answer.
        const answer = payment.providerSessionId ? answerOf(placed, payment) : undefined;
        if (answer) await idempotency?.answer(tx, 201, answer);
        else await idempotency?.claim(tx, order.id);
        // Stock is taken last: its guarded UPDATE locks the product rows until commit, so the orders
        // of one popular product wait for each other during one statement, not the whole creation.
        // Short of stock, everything written above rolls back with the refusal.
        const short = new Set(await deps.products.reserveStock(tx, body.items));
        if (short.size) {
          const missing = rows.filter((r) => short.has(r.product.id));
          throw new AppError(
            409,
            'INSUFFICIENT_STOCK',
            `Not enough stock of ${missing.map((r) => r.product.name).join(', ')}`,
            missing.map((r) => ({
              field: r.field,
              message: `${r.product.name}: not enough stock for ${r.item.quantity}`,
            })),
          );
        }
        return { placed, payment, answer };
      });
      // After commit: the provider is called outside the transaction; on failure the job opens the session.
      return created.answer ?? answerOf(created.placed, await deps.payments.openAfterCommit(created.payment));
    },

    async changeStatus(user: AuthUser, id: string, body: StatusBody) {
      await ctx.db.transaction(async (tx) => {
        const o = await repo.findOrder(tx, id, { lock: true });
        const by = o && (await actorOn(tx, user, o, 'orders.update'));
        if (!o || !by || by.role === 'CLIENT' || by.role === 'ADMIN') throw notFound('Order');
        if (body.status === 'CANCELLED') {
          if (!body.reason) throw validationError('body.reason', 'is required to cancel an order');
          await cancel(tx, o, by, body.reason);
          return;
        }
        assertTransition(ORDER_TRANSITIONS, o.status, body.status, 'Order status');
        if (body.status === 'CONFIRMED' && o.paymentStatus !== 'PAID') {
          throw conflict('PAYMENT_NOT_COMPLETED', 'The order cannot be confirmed before its payment is received');
        }
        const t = now();
        if (body.status === 'COMPLETED') {
          const items = (await repo.itemsOf(tx, [o.id])).get(o.id) ?? [];
          const required = (await deps.settings.get('business', tx)).pickupCodeRequired;
          if (required && !body.pickupCode)
            throw validationError('body.pickupCode', 'is required: the code the client shows, or its QR code');
          if (body.pickupCode && !pickupCodeMatches(tokens, o.id, o.pickupCode, body.pickupCode)) {
            throw new AppError(400, 'INVALID_PICKUP_CODE', 'The pickup code does not match this order', [
              { field: 'body.pickupCode', message: 'does not match' },
            ]);
          }
          await deps.products.markSold(tx, items);
        }
        await repo.updateOrder(tx, o.id, {
          status: body.status,
          ...(body.status === 'CONFIRMED' && { confirmedAt: t }),
          ...(body.status === 'COMPLETED' && { completedAt: t }),
          updatedAt: t,
        });
        await history(tx, o, o.status, body.status, by, body.reason ?? null);
        await ctx.events.publish(tx, 'orders.status_changed', { orderId: o.id, from: o.status, to: body.status });
        if (body.status === 'COMPLETED')
          await ctx.events.publish(tx, 'orders.completed', {
            orderId: o.id,
            supplierId: o.supplierId,
            storeId: o.storeId,
            clientId: o.clientId,
          });
        await deps.notifications.notify(
          tx,
          o.clientId,
          'order_status_changed',
          { orderId: o.id, status: body.status, storeName: (await deps.stores.findStore(tx, o.storeId))?.name },
          { sourceKey: `order:${o.id}:${body.status}` },
        );
      });
      return reads.get(user, id);
    },

    /** The client cancels an order still PENDING (paid or not: a paid one is refunded by escrow). */
    async cancelByClient(user: AuthUser, id: string, reason?: string) {
      await ctx.db.transaction(async (tx) => {
        const o = await repo.findOrder(tx, id, { lock: true });
        if (!o || o.clientId !== user.id) throw notFound('Order');
        if (o.status !== 'PENDING')
          throw conflict('ORDER_NOT_PENDING', `Only a pending order can be cancelled; this one is ${o.status}`);
        await cancel(tx, o, { userId: user.id, role: 'CLIENT' }, reason ?? 'Cancelled by the client');
      });
      return reads.get(user, id);
    },

    /**
     * For the payment webhook, inside its transaction, once the payment row is SUCCEEDED: the
     * order is paid, the supplier told. Answers whether the order was still open: false for a
     * cancelled or finished order, whose payment the caller refunds. Safe to call twice.
     */
    /**
     * For the settlement, in the transaction applying the provider's refusal or the session's expiry:
     * the order keeps its stock for `business.paymentFailureGraceMinutes` (a retry, on the same page
     * or a new attempt, may still pay it), then is cancelled with its stock back.
     */
    async paymentFailed(tx: Executor, orderId: string, paymentId: string): Promise<void> {
      const grace = (await deps.settings.get('business', tx)).paymentFailureGraceMinutes;
      await ctx.jobs.send(PAYMENT_FAILED_JOB, { orderId, paymentId }, { tx, startAfterSeconds: grace * 60 });
    },

    /** Whether the client has a COMPLETED order containing this product, or from this supplier (reviews ask). */
    hasCompletedPurchase: (ex: Executor, clientId: string, of: { productId: string } | { supplierId: string }) =>
      repo.hasCompletedPurchase(ex, clientId, of),

    async markPaid(tx: Executor, orderId: string, paymentId: string): Promise<{ open: boolean }> {
      const o = await repo.findOrder(tx, orderId, { lock: true });
      if (!o) throw notFound('Order');
      if (o.status === 'CANCELLED' || o.status === 'COMPLETED') return { open: false };
      if (o.paymentStatus === 'PAID') return { open: true };
      const t = now();
      await repo.updateOrder(tx, o.id, { paymentStatus: 'PAID', paidAt: t, updatedAt: t });
      await history(tx, o, o.status, o.status, SYSTEM, 'PAYMENT_RECEIVED');
      await ctx.events.publish(tx, 'orders.paid', {
        orderId: o.id,
        paymentId,
        supplierId: o.supplierId,
        clientId: o.clientId,
        amount: o.itemsTotal,
      });
      const supplierUser = await supplierUserId(tx, o.supplierId);
      if (supplierUser) {
        await deps.notifications.notify(
          tx,
          supplierUser,
          'order_paid',
          { orderId: o.id, amount: o.itemsTotal, currency: o.currency, pickupStartsAt: o.pickupStartsAt.toISOString() },
          { sourceKey: `order:${o.id}:paid` },
        );
      }
      return { open: true };
    },
  };
}
