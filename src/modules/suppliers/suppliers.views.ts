import type { FileLinks } from '../../providers/storage/storage.js';
import { isWithinOpeningHours } from '../../shared/opening-hours.js';
import type { CommissionChangeRecord, ListedSupplier, OwnerRecord, SupplierRecord } from './suppliers.repository.js';
import type { AdminSupplierView, OwnSupplierView, PublicSupplierView } from './suppliers.schemas.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** What anyone may see: no payout number, commission, KYC or review notes. */
export function toPublicView(p: ListedSupplier, links: FileLinks, now: Date): PublicSupplierView {
  return {
    id: p.id,
    businessName: p.businessName,
    description: p.description,
    category: p.category,
    address: p.address,
    city: p.city,
    latitude: p.latitude,
    longitude: p.longitude,
    contactPhone: p.contactPhone,
    contactEmail: p.contactEmail,
    logoUrl: p.logoKey ? links.publicUrl(p.logoKey) : null,
    openingHours: p.openingHours,
    timezone: p.timezone,
    isOpenNow: isWithinOpeningHours(p.openingHours, p.timezone, now),
    verifiedAt: iso(p.verifiedAt),
    rating: { average: p.ratingAverage, count: p.ratingCount },
    createdAt: p.createdAt.toISOString(),
  };
}

export function toOwnView(p: SupplierRecord, links: FileLinks, now: Date): OwnSupplierView {
  return {
    ...toPublicView(p, links, now),
    verificationStatus: p.verificationStatus,
    rejectionReason: p.rejectionReason,
    kycStatus: p.kycStatus,
    commissionRateBps: p.commissionRateBps,
    payoutPhone: p.payoutPhone,
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function toAdminView(p: SupplierRecord, owner: OwnerRecord, links: FileLinks, now: Date): AdminSupplierView {
  return { ...toOwnView(p, links, now), userId: p.userId, owner, deletedAt: iso(p.deletedAt) };
}

export const toCommissionChangeView = (c: CommissionChangeRecord) => ({
  id: c.id,
  actorId: c.actorId,
  oldRateBps: c.oldRateBps,
  newRateBps: c.newRateBps,
  reason: c.reason,
  createdAt: c.createdAt.toISOString(),
});
