import { Type, type Static } from 'typebox';
import {
  IdSchema,
  Nullable,
  PageQuerySchema,
  SortQuerySchema,
  StringEnum,
  TimestampSchema,
} from '../../shared/schemas.js';
import { SETTING_KEY_FILTERS, SettingsSchema } from './settings.definition.js';

export { GROUP_SCHEMAS, SettingsPatchBodySchema, SettingsSchema } from './settings.definition.js';

const SettingValueSchema = Type.Union([Type.Integer(), Type.String(), Type.Boolean()]);

export const SettingChangeSchema = Type.Object(
  {
    id: IdSchema,
    key: Type.String({ description: "the setting's key, e.g. business.paymentTimeoutMinutes" }),
    oldValue: SettingValueSchema,
    newValue: SettingValueSchema,
    reason: Nullable(Type.String()),
    actorId: IdSchema,
    createdAt: TimestampSchema,
  },
  { title: 'SettingChange' },
);
export type SettingChangeView = Static<typeof SettingChangeSchema>;

export const SettingsChangeResultSchema = Type.Object(
  {
    settings: SettingsSchema,
    changes: Type.Array(SettingChangeSchema, {
      description: 'one entry per key whose value changed; empty when nothing did',
    }),
  },
  { title: 'SettingsChangeResult' },
);

export const SETTING_CHANGE_SORT_FIELDS = ['createdAt', 'key'] as const;
export type SettingChangeSortField = (typeof SETTING_CHANGE_SORT_FIELDS)[number];

export const AuditQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    sort: SortQuerySchema('SettingChangeSort', SETTING_CHANGE_SORT_FIELDS, '-createdAt (newest first)'),
    key: Type.Optional(
      StringEnum(SETTING_KEY_FILTERS, {
        description: 'a key, a group (business) or a payment method (mobilemoney.wave)',
      }),
    ),
    actorId: Type.Optional(Type.String({ format: 'uuid', description: 'the administrator who made the change' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'changes made at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'changes made before' })),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuerySchema>;

export const CachesDroppedSchema = Type.Object(
  {
    caches: Type.Array(Type.String(), { description: 'the caches dropped' }),
    allInstances: Type.Boolean({
      description:
        'true when the drop reached every instance (Redis); otherwise other instances catch up as their caches expire',
    }),
  },
  { title: 'CachesDropped' },
);
