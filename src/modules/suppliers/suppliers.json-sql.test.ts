import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { earthPoint, OkListing } from '../../listings/index.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import * as arb from '../../../test/helpers/json-sql.js';
import { nearbySupplierJson } from './suppliers.json-sql.js';
import { findLiveProfile, updateProfile } from './suppliers.repository.js';
import { NearbySupplierSchema } from './suppliers.schemas.js';
import { toPublicView } from './suppliers.views.js';

// The supplier as PostgreSQL writes it on the nearby list (suppliers.json-sql.ts) against toPublicView.
// Its summary on a product's page is checked by products.json-sql.test.ts.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const profile = fc.record({
  businessName: arb.text(1, 60),
  description: arb.text(0, 80),
  category: fc.constantFrom('FOOD' as const, 'DEALS' as const),
  address: arb.text(0, 40),
  city: arb.text(0, 20),
  latitude: arb.latitude,
  longitude: arb.longitude,
  contactPhone: fc.option(arb.text(0, 20)),
  contactEmail: fc.option(arb.text(0, 30)),
  logoKey: fc.option(arb.fileKey),
  openingHours: arb.openingHours,
  timezone: arb.timezone,
  verifiedAt: fc.option(arb.instant),
  ratingAverage: fc.oneof(fc.constantFrom(0, 5, 4.99), fc.double({ min: 0, max: 5, noNaN: true })),
  ratingCount: fc.oneof(fc.constantFrom(0, 2_147_483_647), fc.nat()),
  createdAt: arb.instant,
});
const case_ = fc.record({
  profile,
  at: arb.instant,
  from: fc.record({ latitude: arb.latitude, longitude: arb.longitude }),
});

describe('The supplier PostgreSQL writes', () => {
  it('is toPublicView with its distance, and matches NearbySupplierSchema', async () => {
    const files = t.app.ctx.links.publicPrefix;
    await arb.checkRows(case_, async ({ profile, at, from }) => {
      const { profile: created } = await createSupplier(t.app);
      await updateProfile(t.app.ctx.db, created.id, profile);
      const d = sql`(${supplierProfiles.earth} <-> ${earthPoint(from.latitude, from.longitude)})`;
      const [written] = await t.app.ctx.db
        .select({ card: nearbySupplierJson(sql`${at.toISOString()}::timestamptz`, d, files) })
        .from(supplierProfiles)
        .where(eq(supplierProfiles.id, created.id));
      const record = (await findLiveProfile(t.app.ctx.db, created.id))!;
      const card = JSON.parse(written!.card) as unknown;
      expect(card).toStrictEqual({
        ...toPublicView(record, t.app.ctx.links, at),
        distanceKm: arb.distanceKm(record, from),
      });
      arb.expectSchema(NearbySupplierSchema, card, 'nearby supplier');
    });
  });

  it('answers GET /suppliers/nearby as its response schema says', async () => {
    const [row] = fc.sample(profile, { seed: arb.SEED, numRuns: 1 });
    const { profile: created } = await createSupplier(t.app);
    await updateProfile(t.app.ctx.db, created.id, { ...row!, verifiedAt: t.clock.now() });
    const res = await call(t.app, 'GET', '/suppliers/nearby', {
      query: { latitude: row!.latitude, longitude: row!.longitude, radiusKm: 1 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((s: { id: string }) => s.id)).toContain(created.id);
    arb.expectSchema(OkListing(NearbySupplierSchema), res.body, 'GET /suppliers/nearby');
  });
});
