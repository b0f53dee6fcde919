import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { supplierProfiles } from './suppliers.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// WITHDRAWN: the supplier deleted its profile while the attempt was pending; no one decided it.
export const KYC_ATTEMPT_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED', 'WITHDRAWN'] as const;
export type KycAttemptStatus = (typeof KYC_ATTEMPT_STATUSES)[number];
export const KYC_ID_DOCUMENT_TYPES = ['NATIONAL_ID', 'PASSPORT', 'DRIVING_LICENCE', 'RESIDENCE_PERMIT'] as const;
export type KycIdDocumentType = (typeof KYC_ID_DOCUMENT_TYPES)[number];
export const KYC_DOCUMENT_KINDS = ['ID_DOCUMENT', 'BUSINESS_DOCUMENT'] as const;
export type KycDocumentKind = (typeof KYC_DOCUMENT_KINDS)[number];

/** One submission of identity and business documents by a supplier, and the decision on it. */
export const kycAttempts = pgTable(
  'kyc_attempts',
  {
    id: uuid('id').primaryKey(),
    supplierId: uuid('supplier_id')
      .notNull()
      .references(() => supplierProfiles.id),
    submittedBy: uuid('submitted_by')
      .notNull()
      .references(() => users.id),
    status: text('status').$type<KycAttemptStatus>().notNull().default('PENDING'),
    documentType: text('document_type').$type<KycIdDocumentType>(),
    businessRegistrationNumber: text('business_registration_number'),
    submittedAt: ts('submitted_at').notNull(),
    // The latest decision: who, when, why. Every decision is also in admin_actions.
    reviewerId: uuid('reviewer_id').references(() => users.id),
    reviewedAt: ts('reviewed_at'),
    reviewReason: text('review_reason'),
    // The first decision, kept when a later one (resubmission after approval) replaces reviewed_at: review-time statistics.
    firstReviewedAt: ts('first_reviewed_at'),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // At most one attempt awaiting review per supplier, even under concurrent submissions.
    uniqueIndex('kyc_attempts_one_pending_key').on(t.supplierId).where(sql`status = 'PENDING'`),
    index('kyc_attempts_supplier_idx').on(t.supplierId, t.submittedAt),
    index('kyc_attempts_status_idx').on(t.status, t.submittedAt),
  ],
);

/** The files of an attempt, stored in the private area under generated names. */
export const kycDocuments = pgTable(
  'kyc_documents',
  {
    id: uuid('id').primaryKey(),
    attemptId: uuid('attempt_id')
      .notNull()
      .references(() => kycAttempts.id),
    kind: text('kind').$type<KycDocumentKind>().notNull(),
    storageKey: text('storage_key').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('kyc_documents_attempt_kind_key').on(t.attemptId, t.kind),
    uniqueIndex('kyc_documents_storage_key').on(t.storageKey),
  ],
);
