import type { Db, Executor } from '../../db/client.js';
import type { Events } from '../../jobs/events.js';
import type { NotificationType } from './notification-types.js';
import type { NotificationsService } from './notifications.service.js';

const HANDLER = 'notifications';

/** What a catalog message needs to know of a product, read when the event is handled. */
export interface CatalogLookup {
  product(
    ex: Executor,
    productId: string,
  ): Promise<{ name: string; storeName: string; ownerUserId: string } | undefined>;
  followersOf(ex: Executor, storeId: string): Promise<string[]>;
}

/**
 * Suppliers hear of moderation decisions; followers of a store hear of its new products (their
 * `promotions` preferences and quiet hours apply). One notification per event and user: the event
 * id is the source key, as for the account messages. A product deleted before the event is
 * handled is not announced.
 */
export function subscribeToCatalogEvents(
  events: Events,
  db: Db,
  notifications: NotificationsService,
  lookup: CatalogLookup,
): void {
  const tell = (
    productId: string,
    eventId: string,
    who: (p: { name: string; storeName: string; ownerUserId: string }, tx: Executor) => Promise<string[]>,
    type: NotificationType,
    data: Record<string, unknown> = {},
  ) =>
    db.transaction(async (tx) => {
      const p = await lookup.product(tx, productId);
      if (!p) return;
      for (const userId of await who(p, tx)) {
        await notifications.notify(
          tx,
          userId,
          type,
          { productId, productName: p.name, storeName: p.storeName, ...data },
          { sourceKey: eventId },
        );
      }
    });

  events.subscribe('products.approved', HANDLER, (e, m) =>
    tell(e.productId, m.eventId, async (p) => [p.ownerUserId], 'product_approved'),
  );
  events.subscribe('products.rejected', HANDLER, (e, m) =>
    tell(e.productId, m.eventId, async (p) => [p.ownerUserId], 'product_rejected', { reason: e.reason }),
  );
  events.subscribe('products.published', HANDLER, (e, m) =>
    tell(e.productId, m.eventId, (_p, tx) => lookup.followersOf(tx, e.storeId), 'followed_store_new_product', {
      storeId: e.storeId,
    }),
  );
}
