import { Type, type Static } from 'typebox';
import { ASSOCIATION_DOCUMENT_KINDS, ASSOCIATION_STATUSES, NEED_CATEGORIES } from '../../db/schema/associations.js';
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

const opt = Type.Optional;

const fields = {
  name: Type.String({ minLength: 2, maxLength: 120 }),
  registrationNumber: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9][A-Za-z0-9 ./-]*$',
    description: 'official registration (letters, digits, spaces and . / -)',
  }),
  mission: Type.String({ maxLength: 2000 }),
  categories: Type.Array(StringEnum(NEED_CATEGORIES), {
    minItems: 1,
    maxItems: NEED_CATEGORIES.length,
    uniqueItems: true,
    description: 'what the association takes in',
  }),
  address: Type.String({ minLength: 3, maxLength: 300 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  contactPhone: PhoneSchema,
  contactEmail: EmailSchema,
  pickupCapacityKg: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    description: 'what one pickup can carry away, in kilograms',
  }),
  payoutPhone: { ...PhoneSchema, description: 'Mobile-money number financial donations are paid out to (E.164)' },
};

export const RegisterBodySchema = Type.Object(
  {
    name: fields.name,
    registrationNumber: fields.registrationNumber,
    mission: opt(fields.mission),
    categories: fields.categories,
    address: fields.address,
    city: fields.city,
    latitude: fields.latitude,
    longitude: fields.longitude,
    contactPhone: fields.contactPhone,
    contactEmail: opt(fields.contactEmail),
    pickupCapacityKg: fields.pickupCapacityKg,
    payoutPhone: opt(fields.payoutPhone),
  },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBodySchema>;

export const UpdateBodySchema = Type.Object(
  {
    name: opt(fields.name),
    registrationNumber: opt(fields.registrationNumber),
    mission: opt(fields.mission),
    categories: opt(fields.categories),
    address: opt(fields.address),
    city: opt(fields.city),
    latitude: opt(fields.latitude),
    longitude: opt(fields.longitude),
    contactPhone: opt(fields.contactPhone),
    contactEmail: opt(Nullable(fields.contactEmail)),
    pickupCapacityKg: opt(fields.pickupCapacityKg),
    payoutPhone: opt(Nullable(fields.payoutPhone)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateBody = Static<typeof UpdateBodySchema>;

const publicFields = {
  id: IdSchema,
  name: Type.String(),
  registrationNumber: Type.String(),
  mission: Type.String(),
  categories: Type.Array(StringEnum(NEED_CATEGORIES)),
  address: Type.String(),
  city: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  contactPhone: Type.String(),
  contactEmail: Nullable(Type.String()),
  pickupCapacityKg: Type.Integer(),
  verifiedAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
};
export const PublicAssociationSchema = Type.Object(publicFields, { title: 'PublicAssociation' });
export type PublicAssociationView = Static<typeof PublicAssociationSchema>;
export const NearbyAssociationSchema = Type.Object(
  { ...publicFields, distanceKm: Type.Number() },
  { title: 'NearbyAssociation' },
);

export const DocumentSchema = Type.Object(
  {
    id: IdSchema,
    kind: StringEnum(ASSOCIATION_DOCUMENT_KINDS),
    contentType: Type.String(),
    sizeBytes: Type.Integer(),
    sha256: Type.String(),
    url: Type.String({ description: 'signed link, valid 5 minutes' }),
    expiresAt: TimestampSchema,
    createdAt: TimestampSchema,
  },
  { title: 'AssociationDocument' },
);
export type DocumentView = Static<typeof DocumentSchema>;

const ownFields = {
  ...publicFields,
  status: StringEnum(ASSOCIATION_STATUSES),
  rejectionReason: Nullable(Type.String()),
  payoutPhone: Nullable(Type.String()),
  isPublic: Type.Boolean({ description: 'whether the public can find the association right now' }),
  documents: Type.Array(DocumentSchema),
  submittedAt: TimestampSchema,
  updatedAt: TimestampSchema,
};
export const OwnAssociationSchema = Type.Object(ownFields, { title: 'OwnAssociation' });
export type OwnAssociationView = Static<typeof OwnAssociationSchema>;

export const AdminAssociationSchema = Type.Object(
  {
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
  },
  { title: 'AdminAssociation' },
);
export type AdminAssociationView = Static<typeof AdminAssociationSchema>;

export const SEARCH_SORTS = ['relevance', 'name', 'newest'] as const;
export const SearchQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    q: opt(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'words of the name, mission or city; accents and typos tolerated',
      }),
    ),
    city: opt(Type.String({ minLength: 1, maxLength: 100 })),
    category: opt(StringEnum(NEED_CATEGORIES)),
    sort: opt(StringEnum(SEARCH_SORTS, { description: 'default: relevance with q, name without' })),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuerySchema>;

export const VerifiedQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    city: opt(Type.String({ minLength: 1, maxLength: 100 })),
    category: opt(StringEnum(NEED_CATEGORIES)),
    sort: opt(StringEnum(['name', 'newest'] as const, { description: 'default: name' })),
  },
  { additionalProperties: false },
);
export type VerifiedQuery = Static<typeof VerifiedQuerySchema>;

export const NearbyQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    radiusKm: Type.Number({ minimum: 0.1, maximum: 100, default: 10 }),
    category: opt(StringEnum(NEED_CATEGORIES)),
  },
  { additionalProperties: false },
);
export type NearbyQuery = Static<typeof NearbyQuerySchema>;

export const AssociationIdParamsSchema = Type.Object({ associationId: IdSchema }, { additionalProperties: false });
export const DocumentIdParamsSchema = Type.Object({ documentId: IdSchema }, { additionalProperties: false });
export const ReportIdParamsSchema = Type.Object({ reportId: IdSchema }, { additionalProperties: false });

// ---- reports

const DateSchema = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
export const CreateReportBodySchema = Type.Object(
  {
    title: Type.String({ minLength: 3, maxLength: 200 }),
    periodStart: DateSchema,
    periodEnd: { ...DateSchema, description: 'YYYY-MM-DD, on or after periodStart' },
    body: Type.String({ minLength: 1, maxLength: 20_000 }),
    mealsServed: opt(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    peopleHelped: opt(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  },
  { additionalProperties: false },
);
export type CreateReportBody = Static<typeof CreateReportBodySchema>;

export const ReportSchema = Type.Object(
  {
    id: IdSchema,
    associationId: IdSchema,
    title: Type.String(),
    periodStart: Type.String({ format: 'date' }),
    periodEnd: Type.String({ format: 'date' }),
    body: Type.String(),
    mealsServed: Nullable(Type.Integer()),
    peopleHelped: Nullable(Type.Integer()),
    pdf: Nullable(
      Type.Object({
        url: Type.String({ description: 'signed link, valid 5 minutes' }),
        expiresAt: TimestampSchema,
        sizeBytes: Type.Integer(),
      }),
    ),
    createdAt: TimestampSchema,
  },
  { title: 'AssociationReport' },
);
export type ReportView = Static<typeof ReportSchema>;

export const PageOnlyQuerySchema = Type.Object(PageQuerySchema.properties, { additionalProperties: false });

// ---- administration

export const ASSOCIATION_SORT_FIELDS = [
  'createdAt',
  'submittedAt',
  'verifiedAt',
  'name',
  'city',
  'status',
  'pickupCapacityKg',
] as const;
export type AssociationSortField = (typeof ASSOCIATION_SORT_FIELDS)[number];

export const AdminListQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: opt(StringEnum(ASSOCIATION_STATUSES)),
    city: opt(Type.String({ minLength: 1, maxLength: 100 })),
    search: opt(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'part of the name, registration number, contact or owner phone/email',
      }),
    ),
    sort: SortQuerySchema('AdminAssociationSort', ASSOCIATION_SORT_FIELDS, '-createdAt (newest first)'),
  },
  { additionalProperties: false },
);
export type AdminListQuery = Static<typeof AdminListQuerySchema>;
const { status: _status, sort: _sort, ...pendingFilters } = AdminListQuerySchema.properties;
export const PendingQuerySchema = Type.Object(pendingFilters, { additionalProperties: false });
export type PendingQuery = Static<typeof PendingQuerySchema>;

export const VerifyBodySchema = Type.Object(
  { reason: opt(Type.String({ minLength: 1, maxLength: 500, description: "why, for the administrators' log" })) },
  { additionalProperties: false },
);
export const RejectBodySchema = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 1000 }) },
  { additionalProperties: false },
);

export const AdminStatsSchema = Type.Object(
  {
    total: Type.Integer(),
    byStatus: Type.Object({ PENDING: Type.Integer(), VERIFIED: Type.Integer(), REJECTED: Type.Integer() }),
    registeredLast30Days: Type.Integer(),
    oldestPendingSubmittedAt: Nullable(TimestampSchema),
    reports: Type.Object({ total: Type.Integer(), mealsServed: Type.Integer(), peopleHelped: Type.Integer() }),
    generatedAt: TimestampSchema,
  },
  { title: 'AssociationAdminStats' },
);
export type AdminStatsView = Static<typeof AdminStatsSchema>;

/** The multipart forms as the document shows them; the handlers read the parts themselves. */
export const DocumentFormSchema = Type.Object({
  kind: StringEnum(ASSOCIATION_DOCUMENT_KINDS),
  document: Type.String({ format: 'binary', description: 'JPEG, PNG, WebP image or PDF of at most 5 MB' }),
});
export const ReportPdfFormSchema = Type.Object({
  pdf: Type.String({ format: 'binary', description: 'PDF of at most 5 MB' }),
});
