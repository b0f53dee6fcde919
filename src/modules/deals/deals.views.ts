import type { FileLinks } from '../../providers/storage/storage.js';
import type { BookingRow, DealRecord } from './deals.repository.js';
import type { BookingView, DealView } from './deals.schemas.js';
import { effectiveStatus } from './deal-status.js';

export function toDealView(d: DealRecord, now: Date, links: FileLinks): DealView {
  return {
    id: d.id,
    supplierId: d.supplierId,
    storeId: d.storeId,
    title: d.title,
    description: d.description,
    kind: d.kind,
    category: d.category,
    price: d.price,
    originalValue: d.originalValue,
    discountPercent: d.discountPercent,
    currency: d.currency,
    totalPlaces: d.totalPlaces,
    placesLeft: Math.max(0, d.totalPlaces - d.placesTaken),
    placesPerClient: d.placesPerClient,
    validFrom: d.validFrom.toISOString(),
    validUntil: d.validUntil.toISOString(),
    pickupStart: d.pickupStart,
    pickupEnd: d.pickupEnd,
    terms: d.terms,
    images: d.images.map((i) => ({
      id: i.id,
      thumbnailUrl: links.publicUrl(i.thumbnailKey),
      url: links.publicUrl(i.largeKey),
    })),
    status: effectiveStatus(d, now),
    rejectionReason: d.rejectionReason,
    paymentMode: d.paymentMode,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function toBookingView(r: BookingRow): BookingView {
  const b = r.booking;
  return {
    id: b.id,
    dealId: b.dealId,
    dealTitle: r.dealTitle,
    storeId: b.storeId,
    storeName: r.storeName,
    quantity: b.quantity,
    unitPrice: b.unitPrice,
    totalPrice: b.totalPrice,
    currency: b.currency,
    paymentMode: b.paymentMode,
    paymentStatus: b.paymentStatus,
    paymentDeadline: b.paymentDeadline?.toISOString() ?? null,
    pickupDate: b.pickupDate,
    pickupStartsAt: b.pickupStartsAt.toISOString(),
    pickupEndsAt: b.pickupEndsAt.toISOString(),
    code: b.code,
    status: b.status,
    usedAt: b.usedAt?.toISOString() ?? null,
    cancelledAt: b.cancelledAt?.toISOString() ?? null,
    createdAt: b.createdAt.toISOString(),
  };
}
