import { Type, type Static } from 'typebox';
import { KYC_ATTEMPT_STATUSES, KYC_DOCUMENT_KINDS, KYC_ID_DOCUMENT_TYPES } from '../../db/schema/kyc.js';
import { KYC_STATUSES, VERIFICATION_STATUSES } from '../suppliers/index.js';
import {
  IdSchema,
  Nullable,
  PageQuerySchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';

const AttemptStatusSchema = StringEnum(KYC_ATTEMPT_STATUSES);
const ReasonSchema = Type.String({ minLength: 1, maxLength: 1000 });

// ---- requests ----

export const SupplierIdParamsSchema = Type.Object({ supplierId: IdSchema }, { additionalProperties: false });
export const AttemptIdParamsSchema = Type.Object({ attemptId: IdSchema }, { additionalProperties: false });

export const ReasonBodySchema = Type.Object({ reason: ReasonSchema }, { additionalProperties: false });
export type ReasonBody = Static<typeof ReasonBodySchema>;
export const OptionalReasonBodySchema = Type.Object(
  { reason: Type.Optional(ReasonSchema) },
  { additionalProperties: false },
);

export const ReviewBodySchema = Type.Object(
  {
    decision: StringEnum(['APPROVE', 'REJECT'] as const),
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'required when decision is REJECT' }),
    ),
  },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBodySchema>;

export const PendingQuerySchema = Type.Object({ ...PageQuerySchema.properties }, { additionalProperties: false });
export const ATTEMPT_SORT_FIELDS = ['submittedAt', 'reviewedAt', 'status'] as const;
export type AttemptSortField = (typeof ATTEMPT_SORT_FIELDS)[number];
export const AttemptsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: Type.Optional(AttemptStatusSchema),
    supplierId: Type.Optional(IdSchema),
    sort: SortQuerySchema(
      'KycAttemptSort',
      ATTEMPT_SORT_FIELDS,
      '-submittedAt (newest first); with status=PENDING, submittedAt (the review queue)',
    ),
  },
  { additionalProperties: false },
);
export type AttemptsQuery = Static<typeof AttemptsQuerySchema>;

export const StatsQuerySchema = Type.Object(
  {
    supplierId: Type.Optional(IdSchema),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'attempts submitted at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'attempts submitted before' })),
  },
  { additionalProperties: false },
);
export type StatsQuery = Static<typeof StatsQuerySchema>;

/** The KYC submission as the document shows it; the handler reads the multipart parts itself. */
export const KycFormSchema = Type.Object({
  idDocument: Type.String({
    format: 'binary',
    description: 'identity document: JPEG, PNG, WebP or PDF of at most 5 MB',
  }),
  businessDocument: Type.String({
    format: 'binary',
    description: 'business registration: JPEG, PNG, WebP or PDF of at most 5 MB',
  }),
  documentType: Type.Optional(StringEnum(KYC_ID_DOCUMENT_TYPES)),
  businessRegistrationNumber: Type.Optional(
    Type.String({ maxLength: 64, description: "the registry's number, e.g. SN-DKR-2024-B-12345" }),
  ),
});

// ---- responses ----

export const DocumentLinkSchema = Type.Object(
  {
    kind: StringEnum(KYC_DOCUMENT_KINDS),
    contentType: Type.String(),
    sizeBytes: Type.Integer(),
    sha256: Type.String(),
    url: Type.String({ description: 'signed link, valid until expiresAt' }),
    expiresAt: TimestampSchema,
  },
  { title: 'KycDocumentLink' },
);

const attemptFields = {
  id: IdSchema,
  status: AttemptStatusSchema,
  documentType: Nullable(StringEnum(KYC_ID_DOCUMENT_TYPES)),
  businessRegistrationNumber: Nullable(Type.String()),
  submittedAt: TimestampSchema,
  reviewedAt: Nullable(TimestampSchema),
  reviewReason: Nullable(Type.String()),
};

export const OwnAttemptSchema = Type.Object(
  { ...attemptFields, documents: Type.Array(DocumentLinkSchema) },
  { title: 'OwnKycAttempt' },
);
export type OwnAttemptView = Static<typeof OwnAttemptSchema>;

export const OwnKycSchema = Type.Object(
  {
    supplierId: IdSchema,
    kycStatus: StringEnum(KYC_STATUSES),
    canSubmit: Type.Boolean(),
    attempts: Type.Array(OwnAttemptSchema, { description: 'newest first' }),
  },
  { title: 'OwnKyc' },
);
export type OwnKycView = Static<typeof OwnKycSchema>;

const SupplierSummarySchema = Type.Object(
  {
    id: IdSchema,
    businessName: Type.String(),
    kycStatus: StringEnum(KYC_STATUSES),
    verificationStatus: StringEnum(VERIFICATION_STATUSES),
  },
  { title: 'KycSupplierSummary' },
);

export const AttemptSummarySchema = Type.Object(
  {
    ...attemptFields,
    supplierId: IdSchema,
    submittedBy: IdSchema,
    reviewerId: Nullable(IdSchema),
    supplier: Nullable(SupplierSummarySchema),
  },
  { title: 'KycAttempt' },
);
export type AttemptSummaryView = Static<typeof AttemptSummarySchema>;

export const DecisionSchema = Type.Object(
  {
    action: Type.String(),
    actorId: IdSchema,
    from: Nullable(Type.String()),
    to: Nullable(Type.String()),
    reason: Nullable(Type.String()),
    at: TimestampSchema,
  },
  { title: 'KycDecision' },
);
export type DecisionView = Static<typeof DecisionSchema>;

export const AttemptDetailSchema = Type.Object(
  {
    ...AttemptSummarySchema.properties,
    documents: Type.Array(DocumentLinkSchema),
    history: Type.Array(DecisionSchema, { description: 'decisions on this attempt, oldest first' }),
  },
  { title: 'KycAttemptDetail' },
);
export type AttemptDetailView = Static<typeof AttemptDetailSchema>;

export const SupplierKycDecisionSchema = Type.Object(
  {
    supplierId: IdSchema,
    kycStatus: StringEnum(KYC_STATUSES),
    verificationStatus: StringEnum(VERIFICATION_STATUSES),
    attemptId: Nullable(IdSchema),
  },
  { title: 'SupplierKycDecision' },
);
export type SupplierKycDecisionView = Static<typeof SupplierKycDecisionSchema>;

const countFields = Object.fromEntries(KYC_ATTEMPT_STATUSES.map((s) => [s, Type.Integer()])) as Record<
  (typeof KYC_ATTEMPT_STATUSES)[number],
  ReturnType<typeof Type.Integer>
>;
export const KycStatsSchema = Type.Object(
  {
    total: Type.Integer(),
    pending: Type.Integer(),
    byStatus: Type.Object(countFields),
    decided: Type.Integer({ description: 'attempts with at least one decision' }),
    averageReviewSeconds: Nullable(
      Type.Integer({ description: 'mean time from submission to first decision; null when none is decided' }),
    ),
  },
  { title: 'KycStats' },
);
export type KycStatsView = Static<typeof KycStatsSchema>;
