import type { Executor } from '../../db/client.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { SubscriptionsService } from './subscriptions.service.js';

/** Why a supplier is back on FREE: its subscription was cancelled, not paid, or its payment refunded. */
export type DowngradeReason = 'CANCELLED' | 'UNPAID' | 'REFUNDED';

/** Tells the supplier its subscription ended, with the limits of the plan it is on now. */
export async function tellDowngraded(
  tx: Executor,
  deps: { subscriptions: Pick<SubscriptionsService, 'getLimits'>; notifications: NotificationsApi },
  o: { userId: string; subscription: { id: string; planId: string; supplierId: string }; reason: DowngradeReason },
  sourceKey: string,
): Promise<void> {
  const limits = await deps.subscriptions.getLimits(tx, o.subscription.supplierId);
  await deps.notifications.notify(
    tx,
    o.userId,
    'subscription_downgraded',
    {
      subscriptionId: o.subscription.id,
      planId: o.subscription.planId,
      reason: o.reason,
      maxProducts: limits.maxProducts,
      currentProducts: limits.currentProducts,
    },
    { sourceKey },
  );
}
