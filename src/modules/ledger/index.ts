import { defineModule } from '../module.js';
import { createLedgerService, type LedgerService } from './ledger.service.js';

export type { LedgerTransaction } from './ledger.service.js';
export {
  advertiserBalance,
  associationPayable,
  bookingEscrow,
  escrow,
  platformAdvertising,
  platformCommission,
  platformSubscriptions,
  providerClearing,
  refundsPending,
  supplierPayable,
} from './accounts.js';
export type { PeriodUnit } from './ledger.repository.js';

/** Double-entry ledger: every money movement is one balanced transaction posted here. */
export interface LedgerApi {
  balance: LedgerService['balance'];
  balances: LedgerService['balances'];
  escrowHeldAt: LedgerService['escrowHeldAt'];
  figures: LedgerService['figures'];
  flowsByPeriod: LedgerService['flowsByPeriod'];
  history: LedgerService['history'];
  movements: LedgerService['movements'];
  post: LedgerService['post'];
  sumOfAllAccounts: LedgerService['sumOfAllAccounts'];
  totalsByCurrency: LedgerService['totalsByCurrency'];
  transactionsFor: LedgerService['transactionsFor'];
}

declare module '../module.js' {
  interface ModuleApis {
    ledger: LedgerApi;
  }
}

export const ledgerModule = defineModule({
  name: 'ledger',
  needs: [],
  build(ctx) {
    return { api: createLedgerService(ctx) };
  },
});
