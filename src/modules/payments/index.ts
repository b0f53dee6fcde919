import { defineModule } from '../module.js';
import { createPaymentsService, type PaymentsService } from './payments.service.js';

export type { PaymentsService } from './payments.service.js';
export { createSettlementService, type SettlementService } from './settlement.service.js';
export { paymentsRoutes } from './payments.routes.js';
export { PAYMENT_STATUSES } from '../../db/schema/payments.js';
export type { PaymentStatus } from '../../db/schema/payments.js';

/**
 * Payments of any subject (an order, a subscription charge, a donation): sessions at the provider,
 * their states, the subjects other modules register (`registerSubject`).
 */
export type PaymentsApi = PaymentsService;

declare module '../module.js' {
  interface ModuleApis {
    payments: PaymentsApi;
  }
}

export const paymentsModule = defineModule({
  name: 'payments',
  needs: ['settings'],
  build(ctx, { settings }, env) {
    const base = `${ctx.config.PUBLIC_BASE_URL}${env.apiPrefix}/payments/mobilemoney`;
    const payments = createPaymentsService(ctx, {
      settings,
      provider: () => ctx.payments,
      returnUrls: (id) => ({ successUrl: `${base}/success?ref=${id}`, errorUrl: `${base}/error?ref=${id}` }),
    });
    return { api: payments };
  },
});
