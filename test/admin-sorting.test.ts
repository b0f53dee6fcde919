import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kycAttempts } from '../src/db/schema/kyc.js';
import { platformSettingChanges } from '../src/db/schema/settings.js';
import { advertiser, campaignBody } from '../src/modules/advertising/advertising.test-support.js';
import { createAssociation } from '../src/modules/associations/associations.test-support.js';
import { paidOrder, shop } from '../src/modules/escrow/escrow.test-support.js';
import { productBody, supplierWithStore } from '../src/modules/products/products.test-support.js';
import { uuidv7 } from '../src/shared/ids.js';
import { foldText } from '../src/listings/index.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createSignedIn, createSupplier, createUser } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';

// The administrators' lists sorted by `sort=field` / `sort=-field`. Each list gets rows of its own
// (found again by a filter no other test's rows match) whose sorted field has equal values, so the
// tie-breaker (the id) decides part of the order.

let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await createSignedIn(t.app, { role: 'ADMIN' })).token;
});
afterAll(() => t.close());

type Item = Record<string, any>;
type Key = string | number;

interface SortCase {
  path: string;
  /** The field the case sorts on, and the order the list keeps without `sort`. */
  field: string;
  defaultSort: string;
  /** The item's value of the field as the database compares it. */
  key: (item: Item) => Key;
  id?: (item: Item) => string;
  /** Creates the rows; answers the filter that finds exactly them, and their ids. */
  seed: () => Promise<{ query: Record<string, string>; ids: string[] }>;
}

const tag = () => `Srt${uuidv7().slice(-10).replace(/-/g, '')}`;
/** Names as the lists order them: accents and case ignored. */
const folded = (name: string) => foldText(name);
const NAMES = ['Mbaye', 'diallo', 'Ndiaye', 'Diallo', 'Bâ', 'ba'];

async function created(res: Promise<{ status: number; body: any }>, what: string): Promise<Item> {
  const r = await res;
  if (r.status !== 201) throw new Error(`${what} not created: ${JSON.stringify(r.body)}`);
  return r.body.data;
}

const CASES: SortCase[] = [
  {
    path: '/admin/users',
    field: 'lastName',
    defaultSort: '-createdAt',
    key: (u) => folded(u.profile.lastName),
    async seed() {
      const firstName = tag();
      const ids = [];
      for (const lastName of NAMES) ids.push((await createUser(t.app, { firstName, lastName })).id);
      return { query: { search: firstName }, ids };
    },
  },
  {
    path: '/admin/suppliers',
    field: 'city',
    defaultSort: '-createdAt',
    key: (s) => folded(s.city),
    async seed() {
      const name = tag();
      const ids = [];
      for (const city of ['Thiès', 'dakar', 'Saint-Louis', 'Dakar', 'kaolack'])
        ids.push((await createSupplier(t.app, { businessName: `${name} ${city}`, city })).profile.id);
      return { query: { search: name }, ids };
    },
  },
  {
    path: '/admin/suppliers/pending',
    field: 'businessName',
    defaultSort: 'createdAt',
    key: (s) => folded(s.businessName),
    async seed() {
      const name = tag();
      const ids = [];
      for (const n of NAMES)
        ids.push((await createSupplier(t.app, { businessName: `${name} ${n}`, verification: 'PENDING' })).profile.id);
      return { query: { search: name }, ids };
    },
  },
  {
    path: '/admin/associations',
    field: 'name',
    defaultSort: '-createdAt',
    key: (a) => folded(a.name),
    async seed() {
      const name = tag();
      const ids = [];
      for (const n of NAMES) ids.push((await createAssociation(t.app, { name: `${name} ${n}` })).association.id);
      return { query: { search: name }, ids };
    },
  },
  {
    path: '/admin/products',
    field: 'discountedPrice',
    defaultSort: '-createdAt',
    key: (p) => p.discountedPrice,
    async seed() {
      const s = await supplierWithStore(t);
      const ids = [];
      for (const discountedPrice of [600, 400, 600, 500, 400]) {
        const body = productBody(t, s.store.id, { discountedPrice });
        ids.push((await created(call(t.app, 'POST', '/products', { token: s.token, body }), 'product')).id);
      }
      return { query: { supplierId: s.profile.id }, ids };
    },
  },
  {
    path: '/admin/payments/escrow',
    field: 'amount',
    defaultSort: '-heldAt',
    key: (e) => e.amount,
    id: (e) => e.orderId,
    async seed() {
      const s = await shop(t, adminToken);
      const ids = [];
      for (const quantity of [2, 1, 2, 3, 1])
        ids.push((await paidOrder(t, s, { lines: [{ productId: s.products[0]!.id, quantity }] })).order.id);
      await assertMoneyInvariants(t.app);
      return { query: { supplierId: s.profile.id }, ids };
    },
  },
  {
    path: '/admin/subscriptions/promo-codes',
    field: 'maxUses',
    defaultSort: '-createdAt',
    key: (p) => p.maxUses,
    async seed() {
      const prefix = tag().toUpperCase();
      const ids = [];
      for (const [i, maxUses] of [5, 3, 5, 8, 3].entries()) {
        const body = { code: `${prefix}-${i}`, discountBps: 1000, maxUses };
        ids.push(
          (
            await created(
              call(t.app, 'POST', '/admin/subscriptions/promo-codes', { token: adminToken, body }),
              'promo code',
            )
          ).id,
        );
      }
      return { query: { search: prefix }, ids };
    },
  },
  {
    path: '/admin/advertising/campaigns',
    field: 'bid',
    defaultSort: '-createdAt',
    key: (c) => c.bid,
    async seed() {
      const owner = await advertiser(t);
      const ids = [];
      for (const bid of [100, 50, 100, 200, 50]) {
        ids.push(
          (
            await created(
              call(t.app, 'POST', '/advertising/campaigns', { token: owner.token, body: campaignBody(t, { bid }) }),
              'campaign',
            )
          ).id,
        );
      }
      return { query: { advertiserId: owner.profile.id }, ids };
    },
  },
  {
    path: '/admin/kyc/attempts',
    field: 'status',
    defaultSort: '-submittedAt',
    key: (a) => a.status,
    async seed() {
      // Attempts written straight to the table: decided attempts need no documents to be listed.
      const s = await createSupplier(t.app, { kycStatus: 'REJECTED' });
      const ids = [];
      for (const status of ['REJECTED', 'APPROVED', 'REJECTED', 'WITHDRAWN', 'RESUBMISSION_REQUESTED'] as const) {
        const at = t.clock.now();
        const [row] = await t.app.ctx.db
          .insert(kycAttempts)
          .values({
            id: uuidv7(),
            supplierId: s.profile.id,
            submittedBy: s.user.id,
            status,
            submittedAt: at,
            reviewedAt: at,
            updatedAt: at,
          })
          .returning();
        ids.push(row!.id);
      }
      return { query: { supplierId: s.profile.id }, ids };
    },
  },
  {
    path: '/admin/settings/audit',
    field: 'key',
    defaultSort: '-createdAt',
    key: (c) => c.key,
    async seed() {
      // Audit rows of an administrator of its own, written straight to the table: changing the
      // settings themselves would change them under the files running beside this one.
      const actor = await createUser(t.app, { role: 'ADMIN' });
      const ids = [];
      for (const key of [
        'business.paymentTimeoutMinutes',
        'features.donationsEnabled',
        'business.paymentTimeoutMinutes',
        'features.advertisingEnabled',
        'features.donationsEnabled',
      ]) {
        const [row] = await t.app.ctx.db
          .insert(platformSettingChanges)
          .values({
            id: uuidv7(),
            key,
            oldValue: 1,
            newValue: 2,
            actorId: actor.id,
            reason: 'sorting',
            createdAt: t.clock.now(),
          })
          .returning();
        ids.push(row!.id);
      }
      return { query: { actorId: actor.id }, ids };
    },
  },
];

const cmp = (a: Key, b: Key) => (a < b ? -1 : a > b ? 1 : 0);

for (const c of CASES) {
  describe(`GET ${c.path}`, () => {
    let seeded: { query: Record<string, string>; ids: string[] };
    beforeAll(async () => {
      seeded = await c.seed();
    }, 120_000);
    const idOf = c.id ?? ((item: Item) => item.id as string);
    const list = async (query: Record<string, string | number>) => {
      const res = await call(t.app, 'GET', c.path, {
        token: adminToken,
        query: { ...seeded.query, limit: 100, ...query },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as Item[];
    };

    it(`sort=${c.field} orders by the field then the id; sort=-${c.field} is the exact reverse`, async () => {
      const up = await list({ sort: c.field });
      const down = await list({ sort: `-${c.field}` });
      expect(up.map(idOf).sort()).toEqual([...seeded.ids].sort());
      expect(new Set(up.map(c.key)).size, 'the rows have equal values').toBeLessThan(up.length);
      for (let i = 1; i < up.length; i++) {
        const [a, b] = [up[i - 1]!, up[i]!];
        expect(cmp(c.key(a), c.key(b)) || cmp(idOf(a), idOf(b)), `${idOf(a)} before ${idOf(b)}`).toBe(-1);
      }
      expect(down.map(idOf)).toEqual(up.map(idOf).reverse());
    });

    it('pages through a sort without repeating or skipping a row', async () => {
      for (const sort of [c.field, `-${c.field}`]) {
        const whole = (await list({ sort })).map(idOf);
        const paged: string[] = [];
        for (let page = 1; page <= whole.length; page++)
          paged.push(...(await list({ sort, limit: 2, page })).map(idOf));
        expect(paged, sort).toEqual(whole);
      }
    });

    it('keeps its order without sort', async () => {
      expect((await list({})).map(idOf)).toEqual((await list({ sort: c.defaultSort })).map(idOf));
    });

    it('refuses an unknown field with 400 on query.sort, listing the allowed values', async () => {
      for (const sort of ['nope', `-${c.field}x`, '--createdAt', '']) {
        const res = await call(t.app, 'GET', c.path, { token: adminToken, query: { sort } });
        expect(res.status, sort).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details).toEqual([
          { field: 'query.sort', message: expect.stringContaining(`${c.field}, -${c.field}`) },
        ]);
      }
    });
  });
}

describe('empty values', () => {
  it('come last both ways, in the order of their ids', async () => {
    const firstName = tag();
    const never = [await createUser(t.app, { firstName }), await createUser(t.app, { firstName })].map((u) => u.id);
    const early = (await createSignedIn(t.app, { firstName })).user.id;
    t.clock.advance(60_000);
    const late = (await createSignedIn(t.app, { firstName })).user.id;
    const list = async (sort: string) =>
      (
        (await call(t.app, 'GET', '/admin/users', { token: adminToken, query: { search: firstName, sort } })).body
          .data as Item[]
      ).map((u) => u.id);
    expect(await list('lastLoginAt')).toEqual([early, late, ...never.sort()]);
    expect(await list('-lastLoginAt')).toEqual([late, early, ...never.sort().reverse()]);
  });
});
