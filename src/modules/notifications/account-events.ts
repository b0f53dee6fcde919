import type { Db } from '../../db/client.js';
import type { Events } from '../../jobs/events.js';
import type { NotificationType } from './notification-types.js';
import type { NotificationsService } from './notifications.service.js';

const HANDLER = 'notifications';

const KYC_TYPES = {
  APPROVED: 'kyc_approved',
  REJECTED: 'kyc_rejected',
  RESUBMISSION_REQUESTED: 'kyc_resubmission_requested',
} as const satisfies Record<string, NotificationType>;

/**
 * The account messages, one per event and user: the event id is the notification's source key,
 * so a handler retried after it notified (a crash before the event was marked handled) finds the
 * notification it wrote instead of writing a second one.
 */
export function subscribeToAccountEvents(events: Events, db: Db, notifications: NotificationsService): void {
  const notify = (userId: string, type: NotificationType, data: Record<string, unknown>, eventId: string) =>
    db.transaction((tx) => notifications.notify(tx, userId, type, data, { sourceKey: eventId }));

  events.subscribe(
    'users.password_changed',
    HANDLER,
    async (p, m) => void (await notify(p.userId, 'password_changed', {}, m.eventId)),
  );
  events.subscribe(
    'users.signed_in_with_provider',
    HANDLER,
    async (p, m) => void (await notify(p.userId, 'provider_sign_in', { provider: p.provider }, m.eventId)),
  );
  events.subscribe(
    'suppliers.verified',
    HANDLER,
    async (p, m) => void (await notify(p.userId, 'supplier_verified', { supplierId: p.supplierId }, m.eventId)),
  );
  events.subscribe(
    'suppliers.rejected',
    HANDLER,
    async (p, m) =>
      void (await notify(p.userId, 'supplier_rejected', { supplierId: p.supplierId, reason: p.reason }, m.eventId)),
  );
  events.subscribe(
    'kyc.decided',
    HANDLER,
    async (p, m) =>
      void (await notify(
        p.userId,
        KYC_TYPES[p.status],
        { supplierId: p.supplierId, ...(p.reason && { reason: p.reason }) },
        m.eventId,
      )),
  );
  // Only an invited person who already has an account can be told in the app.
  events.subscribe('staff.invited', HANDLER, async (p, m) => {
    if (p.userId)
      await notify(p.userId, 'staff_invited', { invitationId: p.invitationId, storeId: p.storeId }, m.eventId);
  });
}
