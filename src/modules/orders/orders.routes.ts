import { Type } from 'typebox';
import { transactionalKey } from '../../http/idempotency.js';
import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const auth = { access: 'Auth' } as const;
const sup = { access: 'SUP' } as const;
const client = { access: 'CLIENT' } as const;
// Creating an order moves money: the Idempotency-Key header replays the first answer
// (src/http/idempotency.ts); the key is claimed in the order's own transaction.
const clientMoney = { access: 'CLIENT', idempotency: 'in-transaction' } as const;
// The PNG bytes, sent as a Buffer: the schema documents them without serialising anything.
const Png = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

export function ordersRoutes(orders: OrdersService) {
  return async (app: App) => {
    const tags = ['orders'];
    app.get(
      '/orders/payments/providers',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Payment methods offered now: three mobile-money wallets and bank card, with their fees',
          response: { 200: Ok(Type.Array(S.PaymentMethodSchema)) },
        },
      },
      async () => ok(await orders.providers()),
    );

    app.post(
      '/orders',
      {
        config: clientMoney,
        schema: {
          tags,
          summary: 'Order products of one store: stock reserved, payment started (open payment.redirectUrl to pay)',
          body: S.CreateOrderBodySchema,
          errors: [404, 409],
          response: { 201: Ok(S.CreatedOrderSchema) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(ok(await orders.create(req.user, req.body, transactionalKey(req, reply)))),
    );

    app.get(
      '/orders/my-orders',
      {
        config: client,
        schema: {
          tags,
          summary: "The caller's orders, newest first, with their payment",
          querystring: S.MyOrdersQuerySchema,
          response: { 200: OkPage(S.OrderSchema) },
        },
      },
      async (req) => {
        const r = await orders.listMine(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/orders/statistics',
      {
        config: client,
        schema: {
          tags,
          summary: "The caller's spending, orders by status and savings",
          response: { 200: Ok(S.ClientStatisticsSchema) },
        },
      },
      async (req) => ok(await orders.clientStatistics(req.user)),
    );

    app.get(
      '/orders/supplier-orders',
      {
        config: sup,
        schema: {
          tags,
          summary:
            "Orders received by the caller's stores (its own, or those it works in with orders.view), newest first",
          querystring: S.SupplierOrdersQuerySchema,
          response: { 200: OkPage(S.OrderSchema) },
        },
      },
      async (req) => {
        const r = await orders.listSupplier(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/orders/supplier-statistics',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Sales, revenue gross and net of commission, orders per period, popular products',
          querystring: S.SupplierStatisticsQuerySchema,
          errors: [404],
          response: { 200: Ok(S.SupplierStatisticsSchema) },
        },
      },
      async (req) => ok(await orders.supplierStatistics(req.user, req.query)),
    );

    app.get(
      '/orders/payments/:transactionId/status',
      {
        config: auth,
        schema: {
          tags,
          summary: "Status of a payment attempt (its order's client, seller or an administrator)",
          params: S.TransactionParamsSchema,
          errors: [404],
          response: { 200: Ok(S.PaymentStatusSchema) },
        },
      },
      async (req) => ok(await orders.paymentStatusByTransaction(req.user, req.params.transactionId)),
    );

    app.get(
      '/orders/:id',
      {
        config: auth,
        schema: {
          tags,
          summary: 'An order with its items, parties, payments and history (its client, seller or an administrator)',
          params: S.OrderParamsSchema,
          errors: [404],
          response: { 200: Ok(S.OrderDetailSchema) },
        },
      },
      async (req) => ok(await orders.get(req.user, req.params.id)),
    );

    app.get(
      '/orders/:id/qr',
      {
        config: client,
        schema: {
          tags,
          summary: 'QR code (PNG) of the pickup code, for the client to show at the store',
          params: S.OrderParamsSchema,
          errors: [404],
          response: { 200: { description: 'PNG image', content: { 'image/png': { schema: Png } } } },
        },
      },
      async (req, reply) => reply.type('image/png').send(await orders.qr(req.user, req.params.id)),
    );

    // The reason is optional, and so is the body: none reads as {}.
    app.post(
      '/orders/:id/cancel',
      {
        config: client,
        preValidation: async (req) => {
          req.body ??= {};
        },
        schema: {
          tags,
          summary: 'Cancel a pending order (stock back; a paid order is refunded)',
          params: S.OrderParamsSchema,
          body: S.CancelBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.OrderDetailSchema) },
        },
      },
      async (req) => ok(await orders.cancelByClient(req.user, req.params.id, req.body.reason)),
    );

    app.patch(
      '/orders/:id/status',
      {
        config: sup,
        schema: {
          tags,
          summary:
            'Move an order along PENDING, CONFIRMED, PREPARING, READY, COMPLETED, or cancel it until READY (the supplier or store staff with orders.update)',
          params: S.OrderParamsSchema,
          body: S.StatusBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.OrderDetailSchema) },
        },
      },
      async (req) => ok(await orders.changeStatus(req.user, req.params.id, req.body)),
    );
  };
}
