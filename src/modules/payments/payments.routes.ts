import type { App } from '../../http/types.js';
import { Ok, ok } from '../../shared/schemas.js';
import { OrderIdParamsSchema, PaymentStatusSchema } from '../orders/orders.schemas.js';
import type { OrdersService } from '../orders/orders.service.js';

export function paymentsRoutes(orders: OrdersService) {
  return async (app: App) => {
    const tags = ['payments'];
    app.get('/payments/status/:orderId', { config: { access: 'Auth' }, schema: { tags, summary: "Payment status of an order: its latest attempt (the order's client, seller or an administrator)", params: OrderIdParamsSchema, errors: [404], response: { 200: Ok(PaymentStatusSchema) } } },
      async (req) => ok(await orders.paymentStatusByOrder(req.user, req.params.orderId)));
  };
}
