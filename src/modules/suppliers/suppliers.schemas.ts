import { Type, type Static } from 'typebox';
import { KYC_STATUSES, SUPPLIER_CATEGORIES, VERIFICATION_STATUSES } from '../../db/schema/suppliers.js';
import { USER_STATUSES } from '../users/index.js';
import {
  EmailSchema,
  IdSchema,
  Nullable,
  PageQuerySchema,
  PhoneSchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { LimitsSchema } from '../subscriptions/index.js';
import { OpeningHoursSchema } from '../../shared/opening-hours.js';
import { TimezoneSchema } from '../../shared/time-zones.js';

export { OpeningHoursSchema, TimezoneSchema };

const fields = {
  businessName: Type.String({ minLength: 2, maxLength: 120 }),
  description: Type.String({ maxLength: 2000 }),
  category: StringEnum(SUPPLIER_CATEGORIES, {
    description: 'FOOD for SUPPLIER_FOOD accounts, DEALS for SUPPLIER_DEALS; defaults to that',
  }),
  contactPhone: PhoneSchema,
  contactEmail: EmailSchema,
  address: Type.String({ minLength: 3, maxLength: 300 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  payoutPhone: { ...PhoneSchema, description: 'Mobile-money number payouts are sent to (E.164)' },
  openingHours: OpeningHoursSchema,
  timezone: TimezoneSchema,
};
const opt = Type.Optional;

export const CreateProfileBodySchema = Type.Object(
  {
    businessName: fields.businessName,
    description: opt(fields.description),
    category: opt(fields.category),
    contactPhone: opt(fields.contactPhone),
    contactEmail: opt(fields.contactEmail),
    address: fields.address,
    city: fields.city,
    latitude: fields.latitude,
    longitude: fields.longitude,
    payoutPhone: opt(fields.payoutPhone),
    openingHours: opt(fields.openingHours),
    timezone: opt(fields.timezone),
  },
  { additionalProperties: false },
);
export type CreateProfileBody = Static<typeof CreateProfileBodySchema>;

export const UpdateProfileBodySchema = Type.Object(
  {
    businessName: opt(fields.businessName),
    description: opt(fields.description),
    category: opt(fields.category),
    contactPhone: opt(Nullable(fields.contactPhone)),
    contactEmail: opt(Nullable(fields.contactEmail)),
    address: opt(fields.address),
    city: opt(fields.city),
    latitude: opt(fields.latitude),
    longitude: opt(fields.longitude),
    payoutPhone: opt(Nullable(fields.payoutPhone)),
    openingHours: opt(fields.openingHours),
    timezone: opt(fields.timezone),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProfileBody = Static<typeof UpdateProfileBodySchema>;

const publicFields = {
  id: IdSchema,
  businessName: Type.String(),
  description: Type.String(),
  category: StringEnum(SUPPLIER_CATEGORIES),
  address: Type.String(),
  city: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  contactPhone: Nullable(Type.String()),
  contactEmail: Nullable(Type.String()),
  logoUrl: Nullable(Type.String()),
  openingHours: OpeningHoursSchema,
  timezone: Type.String(),
  isOpenNow: Type.Boolean(),
  verifiedAt: Nullable(TimestampSchema),
  rating: Type.Object({ average: Type.Number(), count: Type.Integer() }, { title: 'RatingSummary' }),
  createdAt: TimestampSchema,
};
export const PublicSupplierSchema = Type.Object(publicFields, { title: 'PublicSupplier' });
export type PublicSupplierView = Static<typeof PublicSupplierSchema>;

export const NearbySupplierSchema = Type.Object(
  { ...publicFields, distanceKm: Type.Number() },
  { title: 'NearbySupplier' },
);

const ownFields = {
  ...publicFields,
  verificationStatus: StringEnum(VERIFICATION_STATUSES),
  rejectionReason: Nullable(Type.String()),
  kycStatus: StringEnum(KYC_STATUSES),
  commissionRateBps: Type.Integer({ description: 'platform commission in basis points (1000 = 10 %)' }),
  payoutPhone: Nullable(Type.String()),
  updatedAt: TimestampSchema,
};
export const OwnSupplierSchema = Type.Object(ownFields, { title: 'OwnSupplier' });
export type OwnSupplierView = Static<typeof OwnSupplierSchema>;

const adminFields = {
  ...ownFields,
  userId: IdSchema,
  owner: Type.Object({
    id: IdSchema,
    firstName: Type.String(),
    lastName: Type.String(),
    phoneNumber: Nullable(Type.String()),
    email: Nullable(Type.String()),
    status: StringEnum(USER_STATUSES),
  }),
  deletedAt: Nullable(TimestampSchema),
};
export const AdminSupplierSchema = Type.Object(adminFields, { title: 'AdminSupplier' });
export type AdminSupplierView = Static<typeof AdminSupplierSchema>;

export const CommissionChangeSchema = Type.Object(
  {
    id: IdSchema,
    actorId: IdSchema,
    oldRateBps: Type.Integer(),
    newRateBps: Type.Integer(),
    reason: Nullable(Type.String()),
    createdAt: TimestampSchema,
  },
  { title: 'CommissionChange' },
);
export const AdminSupplierCommissionSchema = Type.Object(
  { ...adminFields, commissionHistory: Type.Array(CommissionChangeSchema) },
  { title: 'AdminSupplierCommissionHistory' },
);

export const SEARCH_SORTS = ['relevance', 'name', 'newest'] as const;
export const SearchQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: opt(
      Type.String({ minLength: 1, maxLength: 100, description: 'words of the name or description; tolerates typos' }),
    ),
    city: opt(Type.String({ minLength: 1, maxLength: 100 })),
    category: opt(StringEnum(SUPPLIER_CATEGORIES)),
    openNow: opt(Type.Boolean({ description: 'only suppliers open at this moment in their own time zone' })),
    sort: opt(StringEnum(SEARCH_SORTS, { description: 'default: relevance with q, name without' })),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuerySchema>;

export const NearbyQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    radiusKm: Type.Number({ minimum: 0.1, maximum: 50, default: 5 }),
    category: opt(StringEnum(SUPPLIER_CATEGORIES)),
  },
  { additionalProperties: false },
);
export type NearbyQuery = Static<typeof NearbyQuerySchema>;

export const SUPPLIER_SORT_FIELDS = [
  'createdAt',
  'businessName',
  'city',
  'verificationStatus',
  'kycStatus',
  'verifiedAt',
  'commissionRateBps',
  'rating',
] as const;
export type SupplierSortField = (typeof SUPPLIER_SORT_FIELDS)[number];
/** The review queue: every supplier in it is PENDING and not yet verified. */
export const PENDING_SUPPLIER_SORT_FIELDS = [
  'createdAt',
  'businessName',
  'city',
  'kycStatus',
] as const satisfies readonly SupplierSortField[];

export const AdminListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: opt(StringEnum(VERIFICATION_STATUSES, { description: 'verification status' })),
    kycStatus: opt(StringEnum(KYC_STATUSES)),
    category: opt(StringEnum(SUPPLIER_CATEGORIES)),
    city: opt(Type.String({ minLength: 1, maxLength: 100 })),
    search: opt(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'part of the business name, contact or owner phone/email',
      }),
    ),
    includeDeleted: opt(Type.Boolean({ default: false })),
    sort: SortQuerySchema('AdminSupplierSort', SUPPLIER_SORT_FIELDS, '-createdAt (newest first)'),
  },
  { additionalProperties: false },
);
export type AdminListQuery = Static<typeof AdminListQuerySchema>;

const { status: _status, includeDeleted: _deleted, sort: _sort, ...pendingFilters } = AdminListQuerySchema.properties;
export const PendingQuerySchema = Type.Object(
  {
    ...pendingFilters,
    sort: SortQuerySchema('PendingSupplierSort', PENDING_SUPPLIER_SORT_FIELDS, 'createdAt (oldest first)'),
  },
  { additionalProperties: false },
);
export type PendingQuery = Static<typeof PendingQuerySchema>;

export const RejectBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 1000 }) },
  { additionalProperties: false },
);
export const CommissionBodySchema = Type.Object(
  {
    commissionRateBps: Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points: 1000 = 10 %' }),
    reason: opt(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
const VerifyReasonSchema = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "why, for the administrators' log",
});
export const VerifyBodySchema = Type.Object({ reason: opt(VerifyReasonSchema) }, { additionalProperties: false });
export const BulkVerifyBodySchema = Type.Object(
  {
    ids: Type.Array(IdSchema, { minItems: 1, maxItems: 100, uniqueItems: true }),
    reason: opt(VerifyReasonSchema),
  },
  { additionalProperties: false },
);
export const BulkVerifyResultSchema = Type.Object(
  {
    verified: Type.Integer(),
    skipped: Type.Integer(),
    results: Type.Array(
      Type.Object({
        id: IdSchema,
        result: StringEnum(['VERIFIED', 'SKIPPED'] as const),
        code: opt(Type.String({ description: 'why it was skipped: NOT_FOUND, INVALID_TRANSITION, KYC_NOT_APPROVED' })),
        reason: opt(Type.String()),
      }),
    ),
  },
  { title: 'BulkVerifyResult' },
);
export type BulkVerifyResult = Static<typeof BulkVerifyResultSchema>;

export const StatisticsSchema = Type.Object(
  {
    supplierId: IdSchema,
    verification: Type.Object({
      status: StringEnum(VERIFICATION_STATUSES),
      verifiedAt: Nullable(TimestampSchema),
      rejectionReason: Nullable(Type.String()),
      isPublic: Type.Boolean({ description: 'whether clients can find the supplier right now' }),
    }),
    kyc: Type.Object({ status: StringEnum(KYC_STATUSES) }),
    commission: Type.Object({ rateBps: Type.Integer() }),
    subscription: LimitsSchema,
    stores: Type.Object({ total: Type.Integer(), active: Type.Integer() }),
    // Orders and revenue join here as their own sections when the orders module exists.
    generatedAt: TimestampSchema,
  },
  { title: 'SupplierStatistics' },
);
export type StatisticsView = Static<typeof StatisticsSchema>;

/** The logo upload as the document shows it; the handler reads the multipart parts itself. */
export const LogoFormSchema = Type.Object({
  logo: Type.String({ format: 'binary', description: 'JPEG, PNG or WebP image of at most 5 MB' }),
});

export const DeletedSchema = Type.Object(
  { message: Type.String(), id: IdSchema, deletedAt: TimestampSchema },
  { title: 'DeletedSupplier' },
);
