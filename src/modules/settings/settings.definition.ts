import { Type, type Static, type TSchema } from 'typebox';
import type { StoredSettingValue } from '../../db/schema/settings.js';

/*
 * The one definition of the platform settings: every key with its type, bounds, default and
 * description. The validation of PATCH /admin/settings, the typed accessor services read, the
 * defaults and the OpenAPI document all come from here. A key is the dotted path of a leaf
 * ('business.paymentTimeoutMinutes', 'mobilemoney.wave.feeBps'); audit rows are per key.
 */

const strict = { additionalProperties: false } as const;

const BusinessSettingsSchema = Type.Object(
  {
    defaultCommissionBps: Type.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 1000,
      description:
        'Commission rate a new supplier starts with, in basis points (1000 = 10 %). Default: DEFAULT_COMMISSION_BPS.',
    }),
    paymentTimeoutMinutes: Type.Integer({
      minimum: 1,
      maximum: 1440,
      default: 15,
      description: 'Minutes an order waits for its payment before it expires and gives its stock back.',
    }),
    paymentFailureGraceMinutes: Type.Integer({
      minimum: 1,
      maximum: 60,
      default: 5,
      description:
        'Minutes an order whose payment the provider refused (or whose payment page expired) waits for a retry before it is cancelled and gives its stock back (never beyond its payment deadline).',
    }),
    escrowReleaseDelayHours: Type.Integer({
      minimum: 0,
      maximum: 720,
      default: 48,
      description:
        'Hours after an order is completed before its escrowed funds go to the supplier, unless a dispute is open.',
    }),
    minimumOrderAmount: Type.Integer({
      minimum: 0,
      maximum: 10_000_000,
      default: 0,
      description: 'Smallest order total, in minor units of the currency; 0 = no minimum.',
    }),
    pickupCodeRequired: Type.Boolean({
      default: true,
      description: 'Whether the supplier must check the pickup code the client shows before handing over an order.',
    }),
    dealsPaidInAppByDefault: Type.Boolean({
      default: false,
      description:
        'Whether a new deal is paid in the app at booking (IN_APP) unless its supplier says otherwise; else at the counter (AT_COUNTER).',
    }),
    noShowRefunded: Type.Boolean({
      default: false,
      description:
        'Whether the money of a booking paid in the app and not collected by the end of its pickup window goes back to the client; else the shop keeps it, less the commission.',
    }),
  },
  { ...strict, description: 'Business rules' },
);

const paymentMethod = (displayName: string, feeBps: number) =>
  Type.Object(
    {
      displayName: Type.String({
        minLength: 1,
        maxLength: 40,
        default: displayName,
        description: 'Name shown to clients.',
      }),
      enabled: Type.Boolean({ default: true, description: 'Whether clients are offered this method.' }),
      feeBps: Type.Integer({
        minimum: 0,
        maximum: 1000,
        default: feeBps,
        description: 'Fee of a payment with this method, in basis points of its amount (100 = 1 %).',
      }),
    },
    strict,
  );

// Which methods are offered and on what terms. Credentials are not settings: they stay in the
// environment (MOBILEMONEY_*), out of the database and of every response.
const MobileMoneySettingsSchema = Type.Object(
  {
    wave: paymentMethod('Wave', 100),
    orangeMoney: paymentMethod('Orange Money', 100),
    freeMoney: paymentMethod('Free Money', 100),
    card: paymentMethod('Carte bancaire', 250),
  },
  { ...strict, description: 'Payment methods: three mobile-money wallets and bank card' },
);

const flag = (value: boolean, description: string) => Type.Boolean({ default: value, description });

const FeatureFlagsSchema = Type.Object(
  {
    autoApproveVerifiedSupplierProducts: flag(
      false,
      'Products of verified suppliers are published without moderation.',
    ),
    donationsEnabled: flag(true, 'Donations to associations are accepted.'),
    advertisingEnabled: flag(true, 'Advertisements are created and shown.'),
    reviewsRequirePurchase: flag(true, 'Only a client who completed an order may review its product or supplier.'),
  },
  { ...strict, description: 'Feature flags' },
);

export const SettingsSchema = Type.Object(
  { business: BusinessSettingsSchema, mobilemoney: MobileMoneySettingsSchema, features: FeatureFlagsSchema },
  strict,
);
export type Settings = Static<typeof SettingsSchema>;
export type SettingsGroup = keyof Settings;
export const SETTINGS_GROUPS = Object.keys(SettingsSchema.properties) as SettingsGroup[];
export const GROUP_SCHEMAS = SettingsSchema.properties;

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
export type SettingsPatch = DeepPartial<Settings>;

// ---- keys ----

type JsonSchema = TSchema & { type?: string; properties?: Record<string, TSchema>; default?: unknown };

function walk(schema: JsonSchema, path: string[], visit: (path: string[], schema: JsonSchema) => void): void {
  visit(path, schema);
  if (schema.type === 'object' && schema.properties) {
    for (const [name, child] of Object.entries(schema.properties)) walk(child as JsonSchema, [...path, name], visit);
  }
}

const leaves = new Map<string, JsonSchema>();
const branches: string[] = [];
walk(SettingsSchema, [], (path, schema) => {
  if (path.length === 0) return;
  if (schema.type === 'object') branches.push(path.join('.'));
  else leaves.set(path.join('.'), schema);
});

/** Every setting key with its schema. */
export const SETTING_KEYS: ReadonlyMap<string, TSchema> = leaves;
/** What the audit can be filtered by: a key, a group ('business') or a payment method ('mobilemoney.wave'). */
export const SETTING_KEY_FILTERS = [...branches, ...leaves.keys()];
/** The keys a filter covers. */
export const keysUnder = (filter: string) =>
  [...leaves.keys()].filter((k) => k === filter || k.startsWith(`${filter}.`));

/** The settings as a list of (key, value) pairs; on a patch, only the keys it carries. */
export function flatten(doc: SettingsPatch): [string, StoredSettingValue][] {
  const out: [string, StoredSettingValue][] = [];
  const visit = (value: unknown, path: string[]) => {
    if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, [...path, k]);
    else if (leaves.has(path.join('.'))) out.push([path.join('.'), value as StoredSettingValue]);
  };
  visit(doc, []);
  return out;
}

/** A copy of `doc` with the given keys set. */
export function withValues(doc: Settings, values: Iterable<[string, StoredSettingValue]>): Settings {
  const out = structuredClone(doc) as unknown as Record<string, Record<string, unknown>>;
  for (const [key, value] of values) {
    const path = key.split('.');
    let node: Record<string, unknown> = out;
    for (const name of path.slice(0, -1)) node = (node[name] ??= {}) as Record<string, unknown>;
    node[path.at(-1)!] = value;
  }
  return out as unknown as Settings;
}

/** Every key at its default; the commission's default is the DEFAULT_COMMISSION_BPS configuration. */
export function settingDefaults(defaultCommissionBps: number): Settings {
  const defaults = [...leaves].map(([key, schema]): [string, StoredSettingValue] => [
    key,
    schema.default as StoredSettingValue,
  ]);
  return withValues({} as Settings, [...defaults, ['business.defaultCommissionBps', defaultCommissionBps]]);
}

// ---- the PATCH body: every key optional, no defaults (a default would overwrite what the patch leaves out) ----

function optionalDeep(schema: JsonSchema): Record<string, unknown> {
  const { default: _default, required: _required, ...rest } = schema as JsonSchema & { required?: unknown };
  if (rest.type === 'object' && rest.properties) {
    rest.properties = Object.fromEntries(
      Object.entries(rest.properties).map(([k, v]) => [k, optionalDeep(v as JsonSchema)]),
    ) as never;
  }
  return rest;
}

const patchSchema = optionalDeep(SettingsSchema);
export const SettingsPatchBodySchema = Type.Unsafe<SettingsPatch & { reason?: string }>({
  ...patchSchema,
  properties: {
    ...(patchSchema.properties as object),
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Why; kept in the audit row of every key changed.',
    }),
  },
  description: 'Any subset of the settings; keys left out keep their value. All valid or nothing changes.',
});
export type SettingsPatchBody = Static<typeof SettingsPatchBodySchema>;
