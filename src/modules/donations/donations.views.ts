import type { FoodDonationStatus } from '../../db/schema/donations.js';
import type { DonationRecord, HistoryRecord, ItemRecord } from './donations.repository.js';
import type { DonationDetailView, DonationView } from './donations.schemas.js';

const iso = (v: Date | null) => v?.toISOString() ?? null;

export function toDonationView(d: DonationRecord, items: ItemRecord[]): DonationView {
  return {
    id: d.id,
    kind: d.kind,
    status: d.status as FoodDonationStatus,
    donorUserId: d.donorUserId,
    supplierId: d.supplierId,
    associationId: d.associationId,
    items: items
      .filter((i) => i.donationId === d.id)
      .map((i) => ({ productId: i.productId, name: i.name, quantity: i.quantity, unitWeightGrams: i.unitWeightGrams, weightGrams: i.quantity * i.unitWeightGrams })),
    totalWeightGrams: d.totalWeightGrams ?? 0,
    message: d.message,
    pickupWindowStart: d.pickupWindowStart!.toISOString(),
    pickupWindowEnd: d.pickupWindowEnd!.toISOString(),
    scheduledPickupAt: iso(d.scheduledPickupAt),
    pickupNote: d.pickupNote,
    closingReason: d.closingReason,
    collectedAt: iso(d.collectedAt),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function toDetailView(d: DonationRecord, items: ItemRecord[], history: HistoryRecord[]): DonationDetailView {
  return {
    ...toDonationView(d, items),
    history: history.map((h) => ({ from: h.fromStatus, to: h.toStatus, actorId: h.actorId, reason: h.reason, at: h.at.toISOString() })),
  };
}
