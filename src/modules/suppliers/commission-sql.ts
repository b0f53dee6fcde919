import { sql, type SQL } from 'drizzle-orm';
import { supplierProfiles } from '../../db/schema/suppliers.js';

/** The supplier's commission rate (bps) as a scalar subquery, read inside another module's statement. */
export const commissionRateBps = (supplierId: SQL): SQL =>
  sql`(select ${supplierProfiles.commissionRateBps} from ${supplierProfiles} where ${supplierProfiles.id} = ${supplierId})`;
