import type { OrderActorRole } from '../../db/schema/orders.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { PaymentsApi } from '../payments/index.js';
import type { ProductsApi } from '../products/index.js';
import type { SettingsApi } from '../settings/index.js';
import type { StaffApi } from '../staff/index.js';
import type { StoresApi } from '../stores/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import type { UsersApi } from '../users/index.js';

// Apart from the service so that the order's reads (orders-reads.ts) and the service it is part of do not import
// each other.

/** What the orders service is built from. */
export interface OrdersDeps {
  settings: SettingsApi;
  products: ProductsApi;
  stores: StoresApi;
  members: StaffApi['members'];
  suppliers: SuppliersApi;
  users: UsersApi;
  notifications: NotificationsApi;
  payments: PaymentsApi;
}

/** Who acts on an order and in which capacity. */
export interface OrderActor {
  userId: string | null;
  role: OrderActorRole;
}
