import { defineModule } from '../module.js';
import { paymentsRoutes } from './payments.routes.js';
import { createPaymentsService, type PaymentsService } from './payments.service.js';
import { createSettlementService, type SettlementService } from './settlement.service.js';

export { createSettlementService } from './settlement.service.js';
export { paymentsRoutes } from './payments.routes.js';
export { PAYMENT_STATUSES } from '../../db/schema/payments.js';
export type { PaymentStatus } from '../../db/schema/payments.js';
export type { PaymentStart, PaymentView } from './payments.service.js';
export { toPaymentView } from './payments.service.js';
export type { PaymentRecord, PaymentSubject } from './payments.repository.js';
export type { LockedSubject, PaymentSubjectHandler } from './payment-subjects.js';
export type { PayoutEvent, PayoutHandler } from './settlement.service.js';
export { PaymentSchema } from './payments.schemas.js';

/**
 * Payments of any subject (an order, a subscription charge, a donation): sessions at the provider,
 * their states, the subjects other modules register (`registerSubject`), and `settlement`: the
 * provider's events applied through the subject's handler, reconciliation, refunds, the payer's return.
 */
export interface PaymentsApi {
  closeForOrder: PaymentsService['closeForOrder'];
  closeForSubject: PaymentsService['closeForSubject'];
  expireSession: PaymentsService['expireSession'];
  find: PaymentsService['find'];
  latestOfOrders: PaymentsService['latestOfOrders'];
  latestOpened: PaymentsService['latestOpened'];
  listOfOrder: PaymentsService['listOfOrder'];
  listOfSubject: PaymentsService['listOfSubject'];
  methods: PaymentsService['methods'];
  openAfterCommit: PaymentsService['openAfterCommit'];
  recordSucceeded: PaymentsService['recordSucceeded'];
  registerSubject: PaymentsService['registerSubject'];
  start: PaymentsService['start'];
  startFor: PaymentsService['startFor'];
  settlement: Pick<
    SettlementService,
    'beginRefund' | 'onPayoutEvent' | 'reconcile' | 'refundFailures' | 'refundPayment'
  >;
  /**
   * The routes the provider and the payer coming back from it call: the return pages and the webhook.
   * This module registers no routes itself: the orders module registers these after the order's own
   * payment routes, where the API document has always listed them.
   */
  providerRoutes: ReturnType<typeof paymentsRoutes>;
}

declare module '../module.js' {
  interface ModuleApis {
    payments: PaymentsApi;
  }
}

export const paymentsModule = defineModule({
  name: 'payments',
  needs: ['settings', 'ledger', 'notifications'],
  build(ctx, { settings, ledger, notifications }, env) {
    const base = `${ctx.config.PUBLIC_BASE_URL}${env.apiPrefix}/payments/mobilemoney`;
    const payments = createPaymentsService(ctx, {
      settings,
      provider: () => ctx.payments,
      returnUrls: (id) => ({ successUrl: `${base}/success?ref=${id}`, errorUrl: `${base}/error?ref=${id}` }),
    });
    const settlement = createSettlementService(ctx, {
      payments,
      ledger,
      notifications,
      provider: () => ctx.payments,
    });
    const providerRoutes = paymentsRoutes(settlement, { appReturnUrl: ctx.config.APP_RETURN_URL });
    return { api: Object.assign(payments, { settlement, providerRoutes }) };
  },
});
