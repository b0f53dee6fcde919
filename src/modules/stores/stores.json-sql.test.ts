import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stores } from '../../db/schema/stores.js';
import { earthPoint, OkListing } from '../../listings/index.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import * as arb from '../../../test/helpers/json-sql.js';
import { nearbyStoreJson } from './stores.json-sql.js';
import { findStoresByIds } from './stores.repository.js';
import { NearbyStoreSchema } from './stores.schemas.js';
import { toStoreView } from './stores.service.js';

// The store as PostgreSQL writes it (stores.json-sql.ts) against toStoreView, for random rows and instants.

let t: TestApp;
let supplier: Awaited<ReturnType<typeof createSupplier>>;
beforeAll(async () => {
  t = await buildTestApp();
  supplier = await createSupplier(t.app);
});
afterAll(() => t.close());

const closure = fc.option(
  fc.tuple(arb.instant, arb.instant, fc.option(arb.text(0, 40))).map(([a, b, reason]) => ({
    closureStartsAt: a < b ? a : b,
    closureEndsAt: a < b ? b : a,
    closureReason: reason,
  })),
);
const storeRow = fc.record({
  name: arb.text(1, 60),
  description: arb.text(0, 80),
  address: arb.text(0, 40),
  city: arb.text(0, 20),
  latitude: arb.latitude,
  longitude: arb.longitude,
  phone: fc.option(arb.text(0, 20)),
  openingHours: arb.openingHours,
  timezone: arb.timezone,
  pickupInstructions: fc.option(arb.text(0, 40)),
  isActive: fc.boolean(),
  createdAt: arb.instant,
  updatedAt: arb.instant,
});
/** The instant the view is asked at: anywhere, or at the edges of the closure where `inEffect` turns. */
const case_ = fc
  .tuple(storeRow, closure, arb.instant, fc.nat({ max: 3 }), arb.latitude, arb.longitude)
  .map(([row, c, any, pick, lat, lng]) => ({
    row: { ...row, ...(c ?? {}) },
    at: c ? [any, c.closureStartsAt, c.closureEndsAt, new Date(c.closureStartsAt.getTime() + 1)][pick]! : any,
    from: { latitude: lat, longitude: lng },
  }));

describe('The store PostgreSQL writes', () => {
  it('is toStoreView with its distance, and matches NearbyStoreSchema', async () => {
    await arb.checkRows(case_, async ({ row, at, from }) => {
      const store = await createStore(t.app, supplier, row);
      const [written] = await t.app.ctx.db
        .select({
          card: nearbyStoreJson(
            sql`${at.toISOString()}::timestamptz`,
            sql`(${stores.earth} <-> ${earthPoint(from.latitude, from.longitude)})`,
          ),
        })
        .from(stores)
        .where(eq(stores.id, store.id));
      const [record] = await findStoresByIds(t.app.ctx.db, [store.id]);
      const card = JSON.parse(written!.card) as unknown;
      expect(card).toStrictEqual({ ...toStoreView(record!, at), distanceKm: arb.distanceKm(record!, from) });
      arb.expectSchema(NearbyStoreSchema, card, 'nearby store');
    });
  });

  it('answers GET /stores/nearby as its response schema says', async () => {
    const [row] = fc.sample(storeRow, { seed: arb.SEED, numRuns: 1 });
    const store = await createStore(t.app, supplier, { ...row!, isActive: true });
    const res = await call(t.app, 'GET', '/stores/nearby', {
      query: { latitude: store.latitude, longitude: store.longitude, radiusKm: 1 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((s: { id: string }) => s.id)).toContain(store.id);
    arb.expectSchema(OkListing(NearbyStoreSchema), res.body, 'GET /stores/nearby');
  });
});
