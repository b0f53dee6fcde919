import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listingWrites } from '../src/listings/index.js';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, uniqueEmail, uniquePhone } from './helpers/factories.js';
import { call } from './helpers/http.js';

// The listings each write route drops after a successful write, as its route declares them
// (`config.listings`). Every write under the paths of what public lists show must be in the table
// below, with its listings or none: a new write route there that declares nothing is noticed here.

/** Paths (after /api/v1) whose writes may change what public listings show. */
const LISTED_PATHS = [
  '/suppliers/',
  '/supplier/',
  '/admin/suppliers',
  '/admin/kyc',
  '/admin/users',
  '/stores',
  '/products',
  '/admin/products',
  '/reviews',
  '/admin/reviews',
  '/associations',
  '/admin/associations',
  '/deals',
  '/admin/deals',
];

const SUPPLIER = ['suppliers.', 'stores.', 'products.', 'deals.'];
const USER = [...SUPPLIER, 'associations.'];
const STORE = ['stores.', 'products.', 'deals.'];
const PRODUCTS = ['products.'];
const RATINGS = ['products.', 'suppliers.'];
const ASSOCIATIONS = ['associations.'];
const DEALS = ['deals.'];

const EXPECTED: Record<string, string[]> = {
  'POST /suppliers/profile': SUPPLIER,
  'PUT /suppliers/profile': SUPPLIER,
  'DELETE /suppliers/profile': SUPPLIER,
  'POST /suppliers/profile/logo': SUPPLIER,
  'DELETE /suppliers/profile/logo': SUPPLIER,
  'POST /suppliers/subscription': SUPPLIER,
  'POST /suppliers/profile/kyc': SUPPLIER,
  'POST /supplier/stores': SUPPLIER,
  'PUT /supplier/stores/:storeId': SUPPLIER,
  'DELETE /supplier/stores/:storeId': SUPPLIER,
  'POST /supplier/stores/:storeId/temporary-closure': SUPPLIER,
  'POST /supplier/stores/:storeId/toggle-active': SUPPLIER,
  'POST /supplier/deals': SUPPLIER,
  'PUT /supplier/deals/:dealId': SUPPLIER,
  'DELETE /supplier/deals/:dealId': SUPPLIER,
  'POST /supplier/deals/:dealId/images': SUPPLIER,
  'DELETE /supplier/deals/:dealId/images': SUPPLIER,
  'POST /supplier/deals/:dealId/toggle-pause': SUPPLIER,
  'POST /supplier/deals/bookings/validate': SUPPLIER,
  'PATCH /admin/suppliers/:id/verify': SUPPLIER,
  'PATCH /admin/suppliers/:id/reject': SUPPLIER,
  'PATCH /admin/suppliers/:id/commission': SUPPLIER,
  'POST /admin/suppliers/bulk-verify': SUPPLIER,
  'POST /admin/suppliers/:id/kyc/verify': SUPPLIER,
  'POST /admin/suppliers/:id/kyc/reject': SUPPLIER,
  'POST /admin/kyc/attempts/:attemptId/review': SUPPLIER,
  'POST /admin/kyc/suppliers/:supplierId/force-verify': SUPPLIER,
  'POST /admin/kyc/suppliers/:supplierId/request-resubmission': SUPPLIER,
  'POST /admin/users': USER,
  'PATCH /admin/users/:id/status': USER,
  'PATCH /admin/users/:id/role': USER,
  'PATCH /admin/users/:id/verify': USER,
  'DELETE /admin/users/:id': USER,
  'POST /stores/:storeId/follow': STORE,
  'DELETE /stores/:storeId/follow': STORE,
  'POST /products': PRODUCTS,
  'PUT /products/:id': PRODUCTS,
  'DELETE /products/:id': PRODUCTS,
  'PATCH /products/:id/stock': PRODUCTS,
  'POST /products/:id/images': PRODUCTS,
  'DELETE /products/:id/images': PRODUCTS,
  'POST /products/:id/favorite': PRODUCTS,
  'DELETE /products/:id/favorite': PRODUCTS,
  'PATCH /admin/products/:id/approve': PRODUCTS,
  'PATCH /admin/products/:id/reject': PRODUCTS,
  'PATCH /admin/products/:id/status': PRODUCTS,
  'DELETE /admin/products/:id': PRODUCTS,
  'POST /admin/products/bulk-approve': PRODUCTS,
  'POST /reviews': RATINGS,
  'PUT /reviews/:id': RATINGS,
  'DELETE /reviews/:id': RATINGS,
  'POST /reviews/:id/report': RATINGS,
  // Marks, answers and pictures change no rating.
  'POST /reviews/:id/helpful': [],
  'POST /reviews/:id/reply': [],
  'POST /reviews/:id/images': [],
  'DELETE /reviews/:id/images': [],
  'PATCH /admin/reviews/:id/clear-report': RATINGS,
  'DELETE /admin/reviews/:id': RATINGS,
  'POST /associations/register': ASSOCIATIONS,
  'PUT /associations/me': ASSOCIATIONS,
  'POST /associations/me/documents': ASSOCIATIONS,
  'DELETE /associations/me/documents/:documentId': ASSOCIATIONS,
  'POST /associations/me/reports': ASSOCIATIONS,
  'POST /associations/me/reports/:reportId/pdf': ASSOCIATIONS,
  'POST /admin/associations/:associationId/verify': ASSOCIATIONS,
  'POST /admin/associations/:associationId/reject': ASSOCIATIONS,
  'POST /deals/:dealId/book': DEALS,
  'POST /deals/bookings/:bookingId/cancel': DEALS,
  'POST /admin/deals/:dealId/approve': DEALS,
  'POST /admin/deals/:dealId/reject': DEALS,
};

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('listings dropped by writes', () => {
  it('are declared by every write route under the listed paths, as the table says', () => {
    const writes = listingWrites(t.app).map((w) => ({ ...w, path: w.url.replace(/^\/api\/v1/, '') }));
    expect(writes.length).toBeGreaterThan(100);
    const declared = Object.fromEntries(
      writes
        .filter((w) => w.listings.length > 0 || LISTED_PATHS.some((p) => w.path.startsWith(p)))
        .map((w) => [`${w.method} ${w.path}`, [...w.listings]]),
    );
    expect(declared).toEqual(EXPECTED);
  });

  it('are dropped after a successful write only, and only those the route declares', async () => {
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    const changed = vi.spyOn(t.app.ctx.listings, 'changed');
    // The trending job (every 10 minutes) drops the lists it reorders whenever it runs.
    const drops = () => changed.mock.calls.filter(([scopes]) => !scopes?.includes('products.trending'));
    try {
      const created = await call(t.app, 'POST', '/admin/users', {
        token: admin.token,
        body: {
          phoneNumber: uniquePhone(),
          password: 'Admin-Made-Pass-1',
          role: 'CLIENT',
          firstName: 'Awa',
          lastName: 'Fall',
          email: uniqueEmail(),
        },
      });
      expect(created.status).toBe(201);
      expect(drops(), JSON.stringify(changed.mock.calls)).toEqual([[USER]]);
      changed.mockClear();
      const missing = await call(t.app, 'PATCH', `/admin/users/${uuidv7()}/verify`, { token: admin.token });
      expect(missing.status).toBe(404);
      const read = await call(t.app, 'PATCH', '/notifications/read-all', { token: admin.token });
      expect(read.status).toBe(200);
      expect(drops()).toEqual([]);
    } finally {
      changed.mockRestore();
    }
  });
});
