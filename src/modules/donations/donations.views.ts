import type { DonationRecord, HistoryRecord, ItemRecord } from './donations.repository.js';
import type { DonationDetailView, DonationView } from './donations.schemas.js';

const iso = (v: Date | null) => v?.toISOString() ?? null;

/** `viewerId`: the donor sees itself; others see no donor on an anonymous donation. */
export function toDonationView(d: DonationRecord, items: ItemRecord[], viewerId: string): DonationView {
  return {
    id: d.id,
    kind: d.kind,
    status: d.status as DonationView['status'],
    donorUserId: d.anonymous && viewerId !== d.donorUserId ? null : d.donorUserId,
    anonymous: d.anonymous,
    supplierId: d.supplierId,
    associationId: d.associationId,
    items: items
      .filter((i) => i.donationId === d.id)
      .map((i) => ({
        productId: i.productId,
        name: i.name,
        quantity: i.quantity,
        unitWeightGrams: i.unitWeightGrams,
        weightGrams: i.quantity * i.unitWeightGrams,
      })),
    totalWeightGrams: d.totalWeightGrams ?? 0,
    amount: d.amount,
    currency: d.currency,
    paidAt: iso(d.paidAt),
    message: d.message,
    pickupWindowStart: iso(d.pickupWindowStart),
    pickupWindowEnd: iso(d.pickupWindowEnd),
    scheduledPickupAt: iso(d.scheduledPickupAt),
    pickupNote: d.pickupNote,
    closingReason: d.closingReason,
    collectedAt: iso(d.collectedAt),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function toDetailView(
  d: DonationRecord,
  items: ItemRecord[],
  history: HistoryRecord[],
  viewerId: string,
  payment: DonationDetailView['payment'] = null,
): DonationDetailView {
  return {
    ...toDonationView(d, items, viewerId),
    payment,
    history: history.map((h) => ({
      from: h.fromStatus,
      to: h.toStatus,
      actorId: d.anonymous && viewerId !== d.donorUserId && h.actorId === d.donorUserId ? null : h.actorId,
      reason: h.reason,
      at: h.at.toISOString(),
    })),
  };
}
