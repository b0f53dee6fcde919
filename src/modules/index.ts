import type { AppModule, ModuleName } from './module.js';
import { settingsModule } from './settings/index.js';
import { usersModule } from './users/index.js';
import { authModule } from './auth/index.js';
import { filesModule } from './files/index.js';
import { notificationsModule } from './notifications/index.js';
import { ledgerModule } from './ledger/index.js';
import { paymentsModule } from './payments/index.js';
import { subscriptionsModule } from './subscriptions/index.js';
import { suppliersModule } from './suppliers/index.js';
import { kycModule } from './kyc/index.js';
import { storesModule } from './stores/index.js';
import { staffModule } from './staff/index.js';
import { productsModule } from './products/index.js';
import { productSearchModule } from './product-search/index.js';
import { payoutsModule } from './payouts/index.js';
import { escrowModule } from './escrow/index.js';
import { ordersModule } from './orders/index.js';
import { reportsModule } from './reports/index.js';
import { reviewsModule } from './reviews/index.js';
import { associationsModule } from './associations/index.js';
import { donationsModule } from './donations/index.js';
import { advertisingModule } from './advertising/index.js';
import { dealsModule } from './deals/index.js';
import { announcementsModule } from './announcements/index.js';
import { analyticsModule } from './analytics/index.js';
import { paymentsSandboxModule } from './payments-sandbox/index.js';

/**
 * Every module, in an order where each comes after the modules it needs (`assemble` checks it):
 * the dependency graph of docs/architecture.md read from the bottom up.
 */
export const MODULES = [
  settingsModule,
  usersModule,
  authModule,
  filesModule,
  notificationsModule,
  ledgerModule,
  paymentsModule,
  subscriptionsModule,
  suppliersModule,
  kycModule,
  storesModule,
  staffModule,
  productsModule,
  productSearchModule,
  payoutsModule,
  escrowModule,
  ordersModule,
  reportsModule,
  reviewsModule,
  associationsModule,
  donationsModule,
  advertisingModule,
  dealsModule,
  announcementsModule,
  analyticsModule,
  paymentsSandboxModule,
] as readonly AppModule<ModuleName, ModuleName>[];
