import type { OrderActorRole } from '../../db/schema/orders.js';
import type { NotificationsService } from '../notifications/index.js';
import type { PaymentsService } from '../payments/index.js';
import type { ProductsService } from '../products/index.js';
import type { SettingsService } from '../settings/index.js';
import type { StoreMembersService } from '../staff/index.js';
import type { StoresService } from '../stores/index.js';
import type { SuppliersService } from '../suppliers/index.js';
import type { UsersService } from '../users/index.js';

// Apart from the service so that the order's reads (orders-reads.ts) and the service it is part of do not import
// each other.

/** What the orders service is built from. */
export interface OrdersDeps {
  settings: SettingsService;
  products: ProductsService;
  stores: StoresService;
  members: StoreMembersService;
  suppliers: SuppliersService;
  users: UsersService;
  notifications: NotificationsService;
  payments: PaymentsService;
}

/** Who acts on an order and in which capacity. */
export interface OrderActor {
  userId: string | null;
  role: OrderActorRole;
}
