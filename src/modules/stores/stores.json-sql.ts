import { sql, type SQL } from 'drizzle-orm';
import { isoSql, kmOfChordSql } from '../../listings/index.js';
import { stores } from '../../db/schema/stores.js';
import { openAtSql } from '../../shared/opening-hours.js';

// The store views PostgreSQL writes as JSON (docs/architecture.md, "JSON written by the database"):
// stores.json-sql.test.ts checks them against toStoreView and the routes' response schemas.

/**
 * The store as `toStoreView` shows it at `at`, as the arguments of a `json_build_object` over the
 * `stores` row: for pages whose JSON PostgreSQL writes (nearby stores, a product's page). Tests
 * compare both with the store's own page; a field added to the view must be added here too.
 */
export function storeViewPairs(at: SQL): SQL {
  const inEffect = sql`coalesce(${stores.closureStartsAt} <= ${at} and ${at} < ${stores.closureEndsAt}, false)`;
  return sql`'id', ${stores.id}, 'supplierId', ${stores.supplierId}, 'name', ${stores.name}, 'description', ${stores.description},
    'address', ${stores.address}, 'city', ${stores.city}, 'latitude', ${stores.latitude}, 'longitude', ${stores.longitude},
    'phone', ${stores.phone}, 'openingHours', ${stores.openingHours}, 'timezone', ${stores.timezone},
    'pickupInstructions', ${stores.pickupInstructions}, 'isActive', ${stores.isActive},
    'isOpenNow', ${stores.isActive} and not ${inEffect} and ${openAtSql(stores.openingHours, stores.timezone, at)},
    'closure', case when ${stores.closureStartsAt} is not null and ${stores.closureEndsAt} > ${at} then json_build_object(
      'startsAt', ${isoSql(stores.closureStartsAt)}, 'endsAt', ${isoSql(stores.closureEndsAt)}, 'reason', ${stores.closureReason}, 'inEffect', ${inEffect}) end,
    'createdAt', ${isoSql(stores.createdAt)}, 'updatedAt', ${isoSql(stores.updatedAt)}`;
}

/** A nearby page's card: the store as `NearbyStoreSchema` shows it at `at` (toStoreView with its distance `d`, a chord), as JSON text. */
export const nearbyStoreJson = (at: SQL, d: SQL) =>
  sql<string>`json_build_object(${storeViewPairs(at)}, 'distanceKm', ${kmOfChordSql(d)})::text`;
