import { sql, type SQL } from 'drizzle-orm';
import { isoSql, kmOfChordSql } from '../../listings/index.js';
import { supplierProfiles as sp } from '../../db/schema/suppliers.js';
import { openAtSql } from '../../shared/opening-hours.js';

// The supplier views PostgreSQL writes as JSON (docs/architecture.md, "JSON written by the database"):
// suppliers.json-sql.test.ts checks them against the TypeScript views and the routes' response schemas.
// A field added to a view must be added here too.

/**
 * A nearby page's card: the supplier as `NearbySupplierSchema` shows it at `at` (toPublicView with
 * its distance `d`, a chord), as JSON text. `files`: the public files' URL prefix.
 */
export const nearbySupplierJson = (at: SQL, d: SQL, files: unknown) =>
  sql<string>`json_build_object(
    'id', ${sp.id}, 'businessName', ${sp.businessName}, 'description', ${sp.description}, 'category', ${sp.category},
    'address', ${sp.address}, 'city', ${sp.city}, 'latitude', ${sp.latitude}, 'longitude', ${sp.longitude},
    'contactPhone', ${sp.contactPhone}, 'contactEmail', ${sp.contactEmail}, 'logoUrl', ${files}::text || ${sp.logoKey},
    'openingHours', ${sp.openingHours}, 'timezone', ${sp.timezone}, 'isOpenNow', ${openAtSql(sp.openingHours, sp.timezone, at)},
    'verifiedAt', ${isoSql(sp.verifiedAt)}, 'rating', json_build_object('average', ${sp.ratingAverage}, 'count', ${sp.ratingCount}),
    'createdAt', ${isoSql(sp.createdAt)}, 'distanceKm', ${kmOfChordSql(d)})::text`;

/**
 * The supplier's summary on a product's page (`SupplierSummarySchema`) as a `json_build_object` over
 * the `supplier_profiles` row. `files`: the public files' URL prefix, as SQL text.
 */
export const supplierSummaryJson = (files: SQL) =>
  sql`json_build_object('id', ${sp.id}, 'businessName', ${sp.businessName},
            'city', ${sp.city}, 'logoUrl', ${files} || ${sp.logoKey}, 'verified', ${sp.verificationStatus} = 'VERIFIED')`;
