import sharp from 'sharp';
import type { TestApp } from '../../../test/helpers/app.js';
import type { Clock } from '../../shared/clock.js';
import { createSignedIn, createStore, createSupplier, type SupplierOptions } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

export const HOUR = 3_600_000;

/** A valid creation body for the store, expiring in a day. */
export const productBody = (t: { clock: Clock }, storeId: string, over: Record<string, unknown> = {}) => ({
  storeId,
  name: 'Pain de campagne',
  description: 'Miche au levain du jour, à emporter avant la fermeture',
  category: 'BAKERY',
  originalPrice: 1500,
  discountedPrice: 600,
  quantity: 10,
  expiresAt: new Date(t.clock.now().getTime() + 24 * HOUR).toISOString(),
  pickupStart: '18:00',
  pickupEnd: '20:00',
  dietaryTags: ['VEGETARIAN'],
  allergens: ['GLUTEN'],
  ...over,
});

/** A verified supplier with one active store. */
export async function supplierWithStore(t: TestApp, opts: SupplierOptions = {}) {
  const supplier = await createSupplier(t.app, opts);
  const store = await createStore(t.app, supplier);
  return { ...supplier, store };
}

export const admin = (t: TestApp) => createSignedIn(t.app, { role: 'ADMIN' });

/**
 * Creates a product over HTTP and approves it as `adminToken` when it waits for review (on PostgreSQL
 * the test files share the settings, and another may have switched auto-approval on meanwhile).
 */
export async function publishProduct(
  t: TestApp,
  s: { token: string; store: { id: string } },
  adminToken: string,
  over: Record<string, unknown> = {},
) {
  const created = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id, over) });
  if (created.status !== 201) throw new Error(`product not created: ${JSON.stringify(created.body)}`);
  if (created.body.data.status === 'ACTIVE') return created.body.data as { id: string; status: string };
  const approved = await call(t.app, 'PATCH', `/admin/products/${created.body.data.id}/approve`, { token: adminToken });
  if (approved.status !== 200) throw new Error(`product not approved: ${JSON.stringify(approved.body)}`);
  return approved.body.data as { id: string; status: string };
}

export const image = (width: number, height: number, format: 'png' | 'jpeg' | 'webp') =>
  sharp({ create: { width, height, channels: 3, background: '#e9c46a' } })
    .toFormat(format)
    .toBuffer();

export const form = (parts: [string, Buffer, string][]) => {
  const f = new FormData();
  for (const [field, data, name] of parts) f.append(field, new Blob([new Uint8Array(data)]), name);
  return f;
};
