import { Type } from 'typebox';
import { transactionalKey } from '../../http/idempotency.js';
import type { App } from '../../http/types.js';
import { IdSchema, Ok, ok } from '../../shared/schemas.js';
import { PaymentSchema } from '../payments/index.js';
import type { OrderSettlement } from './order-settlement.js';
import { OrderIdParamsSchema, PaymentStatusSchema } from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

const RetryAnswerSchema = Type.Object({ orderId: IdSchema, payment: PaymentSchema }, { title: 'PaymentRetry' });

/** An order's payment under /payments (the URLs of the specification): its status and a new attempt. */
export function orderPaymentsRoutes(orders: OrdersService, settlement: OrderSettlement) {
  return async (app: App) => {
    const tags = ['payments'];
    app.get(
      '/payments/status/:orderId',
      {
        config: { access: 'Auth' },
        schema: {
          tags,
          summary: "Payment status of an order: its latest attempt (the order's client, seller or an administrator)",
          params: OrderIdParamsSchema,
          errors: [404],
          response: { 200: Ok(PaymentStatusSchema) },
        },
      },
      async (req) => ok(await orders.paymentStatusByOrder(req.user, req.params.orderId)),
    );

    app.post(
      '/payments/retry/:orderId',
      {
        config: { access: 'Auth', idempotency: 'in-transaction' },
        schema: {
          tags,
          summary:
            'A new payment attempt for a PENDING order whose latest attempt FAILED or EXPIRED (open payment.redirectUrl)',
          params: OrderIdParamsSchema,
          errors: [404, 409],
          response: { 201: Ok(RetryAnswerSchema) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(ok(await settlement.retry(req.user, req.params.orderId, transactionalKey(req, reply)))),
    );
  };
}
