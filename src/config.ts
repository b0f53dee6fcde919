import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { join, resolve } from 'node:path';
import { packageRoot } from './shared/package-root.js';

// The only place that reads process.env. Every variable is listed in the README.
const Int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  Type.Integer({ default: def, minimum: min, maximum: max });
const Str = (def: string) => Type.String({ default: def });
const Opt = () => Type.Optional(Type.String({ minLength: 1 }));

const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  HOST: Str('0.0.0.0'),
  PORT: Int(3000, 0, 65535),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  TRUST_PROXY: Type.Boolean({ default: false }),
  CORS_ORIGINS: Str('*'),

  DATABASE_URL: Opt(),
  DATABASE_POOL_MAX: Int(10, 1, 200),
  DATA_DIR: Str('./data'),
  REDIS_URL: Opt(),

  // Job queue (pg-boss): WORKERS=off makes an API-only instance that enqueues but runs no job.
  WORKERS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  JOBS_SCHEMA: Type.String({ default: 'pgboss', pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
  JOBS_POLL_SECONDS: Type.Number({ default: 2, minimum: 0.5, maximum: 60 }),
  JOBS_POOL_MAX: Int(4, 1, 100),
  JOBS_BATCH_SIZE: Int(10, 1, 100),
  JOBS_CRON_CHECK_SECONDS: Int(30, 1, 45),
  // `npm run worker` serves only health and metrics, on this port.
  WORKER_PORT: Int(3001, 0, 65535),
  JOBS_PAYLOAD_KEY: Type.Optional(Type.String({ minLength: 32 })),

  JWT_ACCESS_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_REFRESH_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_ISSUER: Str('foodsave-api'),
  ACCESS_TOKEN_TTL_SECONDS: Int(900, 60, 86_400),
  REFRESH_TOKEN_TTL_SECONDS: Int(7 * 86_400, 3600, 90 * 86_400),
  OTP_SECRET: Type.Optional(Type.String({ minLength: 32 })),

  RATE_LIMIT_MAX: Int(300, 1),
  AUTH_RATE_LIMIT_MAX: Int(10, 1),

  SUPER_ADMIN_PHONE: Opt(),
  SUPER_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8, maxLength: 128 })),

  SMS_PROVIDER: Type.Union([Type.Literal('log'), Type.Literal('twilio')], { default: 'log' }),
  TWILIO_BASE_URL: Str('https://api.twilio.com'),
  TWILIO_ACCOUNT_SID: Opt(),
  TWILIO_AUTH_TOKEN: Opt(),
  TWILIO_FROM: Opt(),

  EMAIL_PROVIDER: Type.Union([Type.Literal('log'), Type.Literal('smtp')], { default: 'log' }),
  SMTP_URL: Opt(),
  EMAIL_FROM: Str('FoodSave <no-reply@foodsave.local>'),

  PUSH_PROVIDER: Type.Union([Type.Literal('log'), Type.Literal('fcm')], { default: 'log' }),
  FCM_BASE_URL: Str('https://fcm.googleapis.com'),
  FCM_TOKEN_URL: Str('https://oauth2.googleapis.com/token'),
  FCM_PROJECT_ID: Opt(),
  // The service account's key file, as JSON (client_email, private_key).
  FCM_CREDENTIALS: Opt(),

  // Payments: the checkout-session protocol (DESIGN.md section 5); the sandbox runs inside the API.
  MOBILEMONEY_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('checkout')], { default: 'sandbox' }),
  MOBILEMONEY_BASE_URL: Str('https://api.wave.com'),
  MOBILEMONEY_API_KEY: Opt(),
  // Comma-separated during a rotation: a webhook signed with any of them is accepted.
  MOBILEMONEY_WEBHOOK_SECRET: Opt(),
  // The safety net of an order's payment session: the job that opens it if the call right after the order did not.
  MOBILEMONEY_SESSION_RETRY_SECONDS: Int(30, 1, 3600),
  // The absolute URL clients reach the API at (payment pages and callback URLs); default http://localhost:<PORT>.
  PUBLIC_BASE_URL: Opt(),
  APP_RETURN_URL: Opt(),

  IDP_JWKS_URL: Opt(),
  IDP_ISSUER: Opt(),
  IDP_AUDIENCE: Opt(),

  METRICS_TOKEN: Opt(),
  // The operators' console as Vite built it (served at /console); default console/dist of the installation.
  CONSOLE_DIR: Opt(),

  // Uploaded files: on the local disk (FILES_DIR) or in an S3-compatible bucket (S3_*).
  FILES_STORAGE: Type.Union([Type.Literal('local'), Type.Literal('s3')], { default: 'local' }),
  FILES_DIR: Opt(),
  // Where public files are reachable without the API (a CDN in front of the bucket's public/ prefix).
  FILES_PUBLIC_BASE_URL: Opt(),
  S3_ENDPOINT: Opt(),
  S3_REGION: Str('us-east-1'),
  S3_BUCKET: Opt(),
  S3_ACCESS_KEY_ID: Opt(),
  S3_SECRET_ACCESS_KEY: Opt(),
  S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  S3_CHECKSUMS: Type.Union([Type.Literal('when_supported'), Type.Literal('when_required')], {
    default: 'when_supported',
  }),
  // Picture decoding and resizing at once per instance, and waiting; each running one holds a thread of
  // libuv's pool (UV_THREADPOOL_SIZE, read by Node at start), which also hashes passwords.
  IMAGE_CONCURRENCY: Int(2, 1, 64),
  IMAGE_QUEUE_MAX: Int(32, 0, 10_000),
  UV_THREADPOOL_SIZE: Int(4, 1, 1024),
  FILES_SIGNING_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  DEFAULT_COMMISSION_BPS: Int(1000, 0, 10_000),
});

/** Every variable the configuration reads (documented in .env.example and the README). */
export const CONFIG_KEYS = Object.keys(ConfigSchema.properties);

export type Config = Static<typeof ConfigSchema> & {
  PUBLIC_BASE_URL: string;
  CONSOLE_DIR: string;
  JWT_ACCESS_SECRET: string;
  JWT_REFRESH_SECRET: string;
  OTP_SECRET: string;
};

export class ConfigError extends Error {}

function validServiceAccount(json: string): boolean {
  try {
    const v = JSON.parse(json) as Record<string, unknown>;
    return typeof v.client_email === 'string' && typeof v.private_key === 'string';
  } catch {
    return false;
  }
}

const DEV_SECRETS = {
  JWT_ACCESS_SECRET: 'development-only-access-secret-change-me-0001',
  JWT_REFRESH_SECRET: 'development-only-refresh-secret-change-me-001',
  OTP_SECRET: 'development-only-otp-secret-change-me-0000001',
} as const;

/** The sandbox's webhook secret when none is configured (never accepted in production). */
export const SANDBOX_WEBHOOK_SECRET = 'development-only-mobilemoney-webhook-secret';

const absoluteUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

function paymentProblems(cfg: Static<typeof ConfigSchema>, prod: boolean): string[] {
  const problems: string[] = [];
  if (prod && cfg.MOBILEMONEY_PROVIDER === 'sandbox') {
    problems.push(
      'MOBILEMONEY_PROVIDER: "sandbox" takes no real money (anyone can press Pay); use checkout in production',
    );
  }
  if (cfg.MOBILEMONEY_PROVIDER === 'checkout') {
    for (const key of ['MOBILEMONEY_API_KEY', 'MOBILEMONEY_WEBHOOK_SECRET'] as const) {
      if (!cfg[key]) problems.push(`${key}: required when MOBILEMONEY_PROVIDER=checkout`);
    }
  }
  if (cfg.MOBILEMONEY_WEBHOOK_SECRET !== undefined && webhookSecretList(cfg.MOBILEMONEY_WEBHOOK_SECRET).length === 0) {
    problems.push('MOBILEMONEY_WEBHOOK_SECRET: no secret in the comma-separated list');
  }
  for (const key of ['MOBILEMONEY_BASE_URL', 'PUBLIC_BASE_URL'] as const) {
    if (cfg[key] !== undefined && !absoluteUrl(cfg[key])) problems.push(`${key}: must be an absolute http(s) URL`);
  }
  if (prod && !cfg.PUBLIC_BASE_URL)
    problems.push('PUBLIC_BASE_URL: required in production (callback URLs given to the payment provider)');
  return problems;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function storageProblems(cfg: Static<typeof ConfigSchema>): string[] {
  const problems: string[] = [];
  if (cfg.FILES_STORAGE === 's3' && !cfg.S3_BUCKET) problems.push('S3_BUCKET: required when FILES_STORAGE=s3');
  if (cfg.S3_BUCKET !== undefined && !BUCKET_NAME.test(cfg.S3_BUCKET))
    problems.push(
      'S3_BUCKET: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit',
    );
  for (const key of ['S3_ENDPOINT', 'FILES_PUBLIC_BASE_URL'] as const) {
    if (cfg[key] !== undefined && !absoluteUrl(cfg[key])) problems.push(`${key}: must be an absolute http(s) URL`);
  }
  if (Boolean(cfg.S3_ACCESS_KEY_ID) !== Boolean(cfg.S3_SECRET_ACCESS_KEY))
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither for the SDK's own credentials");
  return problems;
}

const webhookSecretList = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The secrets a payment webhook may be signed with: the configured list, or the sandbox's default. */
export function webhookSecrets(config: Pick<Config, 'MOBILEMONEY_WEBHOOK_SECRET'>): string[] {
  return config.MOBILEMONEY_WEBHOOK_SECRET
    ? webhookSecretList(config.MOBILEMONEY_WEBHOOK_SECRET)
    : [SANDBOX_WEBHOOK_SECRET];
}

const BOOLEAN_KEYS = new Set(['TRUST_PROXY', 'S3_FORCE_PATH_STYLE']);

function coerce(env: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = ConfigSchema.properties as Record<string, { type?: string }>;
  for (const [key, schema] of Object.entries(props)) {
    const raw = env[key];
    if (raw === undefined || raw === '') continue;
    if (BOOLEAN_KEYS.has(key)) out[key] = raw === 'true' ? true : raw === 'false' ? false : raw;
    else if (schema.type === 'integer') out[key] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    else if (schema.type === 'number') out[key] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    else out[key] = raw;
  }
  return out;
}

/** Validates the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input = Value.Default(ConfigSchema, coerce(env)) as Record<string, unknown>;
  // Checked variable by variable so that every bad one is reported, not only the first few.
  const props = ConfigSchema.properties as Record<string, TSchema & { anyOf?: { const: string }[] }>;
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(props)) {
    if (input[key] === undefined) continue;
    const [first] = [...Value.Errors(schema, input[key])];
    if (!first) continue;
    const options = schema.anyOf?.map((o) => o.const);
    lines.push(`${key}: ${options ? `must be one of ${options.join(', ')}` : first.message}`);
  }
  if (lines.length > 0) throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  const cfg = input as Static<typeof ConfigSchema>;
  const prod = cfg.NODE_ENV === 'production';
  const problems: string[] = [];
  if (prod) {
    for (const key of Object.keys(DEV_SECRETS) as (keyof typeof DEV_SECRETS)[]) {
      if (!cfg[key]) problems.push(`${key}: required in production`);
    }
    if (cfg.SMS_PROVIDER === 'log')
      problems.push('SMS_PROVIDER: "log" would print one-time codes; use a real gateway in production');
    if (cfg.EMAIL_PROVIDER === 'log')
      problems.push('EMAIL_PROVIDER: "log" would print one-time codes; use smtp in production');
    if (cfg.PUSH_PROVIDER === 'log')
      problems.push('PUSH_PROVIDER: "log" sends no push to devices; use fcm in production');
  }
  if (cfg.SMS_PROVIDER === 'twilio') {
    for (const key of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const) {
      if (!cfg[key]) problems.push(`${key}: required when SMS_PROVIDER=twilio`);
    }
  }
  if (cfg.PUSH_PROVIDER === 'fcm') {
    for (const key of ['FCM_PROJECT_ID', 'FCM_CREDENTIALS'] as const) {
      if (!cfg[key]) problems.push(`${key}: required when PUSH_PROVIDER=fcm`);
    }
    if (cfg.FCM_CREDENTIALS && !validServiceAccount(cfg.FCM_CREDENTIALS)) {
      problems.push('FCM_CREDENTIALS: must be a service-account key (JSON with client_email and private_key)');
    }
  }
  problems.push(...paymentProblems(cfg, prod), ...storageProblems(cfg));
  if (cfg.IMAGE_CONCURRENCY >= cfg.UV_THREADPOOL_SIZE) {
    problems.push(
      `IMAGE_CONCURRENCY: must be below UV_THREADPOOL_SIZE (${cfg.UV_THREADPOOL_SIZE}), or pictures could hold every thread password checks need`,
    );
  }
  if (cfg.EMAIL_PROVIDER === 'smtp' && !cfg.SMTP_URL) problems.push('SMTP_URL: required when EMAIL_PROVIDER=smtp');
  const idp = [cfg.IDP_JWKS_URL, cfg.IDP_ISSUER, cfg.IDP_AUDIENCE];
  if (idp.some(Boolean) && !idp.every(Boolean)) {
    problems.push('IDP_JWKS_URL, IDP_ISSUER, IDP_AUDIENCE: set all three or none');
  }
  if (Boolean(cfg.SUPER_ADMIN_PHONE) !== Boolean(cfg.SUPER_ADMIN_PASSWORD)) {
    problems.push('SUPER_ADMIN_PHONE, SUPER_ADMIN_PASSWORD: set both or neither');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    ...cfg,
    PUBLIC_BASE_URL: (cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, ''),
    // A directory given is read from the working directory, as DATA_DIR is; the default from the installation.
    CONSOLE_DIR: cfg.CONSOLE_DIR ? resolve(cfg.CONSOLE_DIR) : join(packageRoot(), 'console', 'dist'),
    JWT_ACCESS_SECRET: cfg.JWT_ACCESS_SECRET ?? DEV_SECRETS.JWT_ACCESS_SECRET,
    JWT_REFRESH_SECRET: cfg.JWT_REFRESH_SECRET ?? DEV_SECRETS.JWT_REFRESH_SECRET,
    OTP_SECRET: cfg.OTP_SECRET ?? DEV_SECRETS.OTP_SECRET,
  };
}
