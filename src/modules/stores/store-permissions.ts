import { forbidden } from '../../shared/errors.js';

/**
 * A user's role on a store: the supplier who owns it, or a member invited by the owner (the roles of
 * the staff module's members, which checks that its table holds these).
 */
export type StoreMemberRole = 'MANAGER' | 'STAFF';
export type StoreRole = 'OWNER' | StoreMemberRole;

export const STORE_CAPABILITIES = [
  'store.update',
  'store.delete',
  'store.toggle_active',
  'store.manage_closure',
  'store.view_statistics',
  'staff.view',
  'staff.manage',
  'products.manage',
  'deals.manage',
  'orders.view',
  'orders.update',
  'orders.manage',
  'bookings.validate',
] as const;
export type StoreCapability = (typeof STORE_CAPABILITIES)[number];

/**
 * What each store role may do: the one place this rule lives. Routes and services ask
 * `assertStoreCapability` (staff service) or `roleCan`, never compare role names themselves.
 */
export const STORE_ROLE_CAPABILITIES: Record<StoreRole, readonly StoreCapability[]> = {
  OWNER: STORE_CAPABILITIES,
  MANAGER: [
    'store.manage_closure',
    'store.view_statistics',
    'staff.view',
    'products.manage',
    'deals.manage',
    'orders.view',
    'orders.update',
    'orders.manage',
    'bookings.validate',
  ],
  STAFF: ['orders.view', 'orders.update', 'bookings.validate'],
};

export const roleCan = (role: StoreRole, capability: StoreCapability): boolean =>
  STORE_ROLE_CAPABILITIES[role].includes(capability);

/** 403 FORBIDDEN when the role lacks the capability. */
export function assertRoleCan(role: StoreRole, capability: StoreCapability): void {
  if (!roleCan(role, capability)) {
    throw forbidden('FORBIDDEN', `Your role on this store (${role}) does not allow ${capability}`);
  }
}
