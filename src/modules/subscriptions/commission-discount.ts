import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { subscriptionPlans, supplierSubscriptions } from '../../db/schema/subscriptions.js';

/** The plan every supplier is on without a running subscription (seeded by the migrations). */
export const FREE_PLAN_CODE = 'FREE';

/**
 * For other modules' statements (an order freezes its commission in its own insert): what the
 * supplier's plan at `now` takes off its commission rate, in basis points. The running subscription's
 * plan (ACTIVE and not past its end), else the free plan's; null only if the free plan is missing.
 */
export const planDiscountBps = (supplierId: SQLWrapper, now: SQL): SQL<number | null> => sql`coalesce(
  (select p.commission_discount_bps from ${supplierSubscriptions} s join ${subscriptionPlans} p on p.id = s.plan_id
    where s.supplier_id = ${supplierId} and s.status = 'ACTIVE' and (s.ends_at is null or s.ends_at > ${now}) limit 1),
  (select p.commission_discount_bps from ${subscriptionPlans} p where p.code = ${FREE_PLAN_CODE}))`;
