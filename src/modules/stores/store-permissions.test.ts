import { describe, expect, it } from 'vitest';
import {
  assertRoleCan,
  roleCan,
  STORE_CAPABILITIES,
  STORE_ROLE_CAPABILITIES,
  type StoreCapability,
} from './store-permissions.js';

describe('store capability table', () => {
  it('gives the owner every capability', () => {
    expect([...STORE_ROLE_CAPABILITIES.OWNER].sort()).toEqual([...STORE_CAPABILITIES].sort());
  });

  it('gives a manager the daily running of the store but not the store itself or its team', () => {
    for (const c of [
      'store.manage_closure',
      'store.view_statistics',
      'staff.view',
      'products.manage',
      'orders.manage',
      'orders.update',
      'bookings.validate',
    ] as const) {
      expect(roleCan('MANAGER', c), c).toBe(true);
    }
    for (const c of ['store.update', 'store.delete', 'store.toggle_active', 'staff.manage'] as const) {
      expect(roleCan('MANAGER', c), c).toBe(false);
    }
  });

  it('keeps staff to viewing and updating orders and validating bookings', () => {
    expect([...STORE_ROLE_CAPABILITIES.STAFF].sort()).toEqual(['bookings.validate', 'orders.update', 'orders.view']);
  });

  it('nests the roles: whatever staff may do a manager may, and whatever a manager may the owner may', () => {
    const all = (role: keyof typeof STORE_ROLE_CAPABILITIES) => new Set<StoreCapability>(STORE_ROLE_CAPABILITIES[role]);
    for (const c of all('STAFF')) expect(all('MANAGER').has(c), c).toBe(true);
    for (const c of all('MANAGER')) expect(all('OWNER').has(c), c).toBe(true);
  });

  it('refuses with 403 FORBIDDEN naming the role and the capability', () => {
    expect(() => assertRoleCan('OWNER', 'store.delete')).not.toThrow();
    expect(() => assertRoleCan('STAFF', 'products.manage')).toThrow(
      expect.objectContaining({ statusCode: 403, code: 'FORBIDDEN', message: expect.stringContaining('STAFF') }),
    );
  });
});
