import type { AppContext } from '../../context.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import * as repo from './payouts-admin.repository.js';
import type { PayoutListQuery } from './payouts-admin.schemas.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toAdminPayoutView(r: repo.PayoutListRow) {
  const p = r.payout;
  // The table's check gives every payout exactly one payee: a supplier (with its order) or an association.
  const payee = p.associationId
    ? { type: 'association' as const, id: p.associationId, name: r.associationName ?? '' }
    : { type: 'supplier' as const, id: p.supplierId!, name: r.businessName ?? '' };
  return {
    id: p.id,
    state: p.state,
    amount: p.amount,
    currency: p.currency,
    payee,
    orderId: p.orderId,
    bookingId: p.bookingId,
    donationId: p.donationId,
    mobile: p.mobile,
    waitingReason: p.waitingReason,
    providerPayoutId: p.providerPayoutId,
    attempts: p.attempts,
    lastError: p.lastError,
    createdAt: p.createdAt.toISOString(),
    sentAt: iso(p.sentAt),
    succeededAt: iso(p.succeededAt),
    failedAt: iso(p.failedAt),
  };
}

export type PayoutsAdminService = ReturnType<typeof createPayoutsAdminService>;

/** What administrators read of payouts: every payee's, to follow the ones failed or waiting. */
export function createPayoutsAdminService(ctx: AppContext) {
  return {
    async list(q: PayoutListQuery) {
      const filter: repo.PayoutListFilter = {
        ...(q.state && { state: q.state }),
        ...(q.payee && { payee: q.payee }),
        ...(q.supplierId && { supplierId: q.supplierId }),
        ...(q.associationId && { associationId: q.associationId }),
        ...(q.waiting !== undefined && { waiting: q.waiting }),
        ...(q.from && { from: new Date(q.from) }),
        ...(q.to && { to: new Date(q.to) }),
      };
      const { items, total } = await repo.listPayouts(ctx.db, filter, { limit: q.limit, offset: pageOffset(q) });
      return { items: items.map(toAdminPayoutView), meta: pageMeta(q, total) };
    },
  };
}
