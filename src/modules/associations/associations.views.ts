import type { FileLinks } from '../../providers/storage/storage.js';
import type {
  AssociationRecord,
  DocumentRecord,
  ListedAssociation,
  OwnerRecord,
  ReportRecord,
} from './associations.repository.js';
import type {
  AdminAssociationView,
  DocumentView,
  OwnAssociationView,
  PublicAssociationView,
  ReportView,
} from './associations.schemas.js';

/** Links to private files (documents, report PDFs) live this long, as KYC documents' do. */
export const FILE_LINK_TTL_SECONDS = 300;

/** What anyone may see: no payout number, documents or review notes. */
export function toPublicView(r: ListedAssociation): PublicAssociationView {
  return {
    id: r.id,
    name: r.name,
    registrationNumber: r.registrationNumber,
    mission: r.mission,
    categories: r.categories,
    address: r.address,
    city: r.city,
    latitude: r.latitude,
    longitude: r.longitude,
    contactPhone: r.contactPhone,
    contactEmail: r.contactEmail,
    pickupCapacityKg: r.pickupCapacityKg,
    verifiedAt: r.verifiedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}

export function toDocumentView(d: DocumentRecord, links: FileLinks, now: Date): DocumentView {
  return {
    id: d.id,
    kind: d.kind,
    contentType: d.contentType,
    sizeBytes: d.sizeBytes,
    sha256: d.sha256,
    ...links.privateUrl(d.storageKey, now, FILE_LINK_TTL_SECONDS),
    createdAt: d.createdAt.toISOString(),
  };
}

export function toOwnView(
  r: AssociationRecord,
  docs: DocumentRecord[],
  ownerActive: boolean,
  links: FileLinks,
  now: Date,
): OwnAssociationView {
  return {
    ...toPublicView(r),
    status: r.status,
    rejectionReason: r.rejectionReason,
    payoutPhone: r.payoutPhone,
    isPublic: r.status === 'VERIFIED' && ownerActive,
    documents: docs.map((d) => toDocumentView(d, links, now)),
    submittedAt: r.submittedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function toAdminView(
  r: AssociationRecord,
  owner: OwnerRecord,
  docs: DocumentRecord[],
  links: FileLinks,
  now: Date,
): AdminAssociationView {
  return { ...toOwnView(r, docs, owner.status === 'ACTIVE', links, now), userId: r.userId, owner };
}

export function toReportView(r: ReportRecord, links: FileLinks, now: Date): ReportView {
  return {
    id: r.id,
    associationId: r.associationId,
    title: r.title,
    periodStart: r.periodStart,
    periodEnd: r.periodEnd,
    body: r.body,
    mealsServed: r.mealsServed,
    peopleHelped: r.peopleHelped,
    pdf: r.pdfKey
      ? { ...links.privateUrl(r.pdfKey, now, FILE_LINK_TTL_SECONDS), sizeBytes: r.pdfSizeBytes ?? 0 }
      : null,
    createdAt: r.createdAt.toISOString(),
  };
}
