import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProviderEvent } from './types.js';
import { payoutFromWire, sessionFromWire, WireFormatError } from './wire.js';

/*
 * Webhook signatures of the checkout-session protocol: `Wave-Signature: t=<unix seconds>,v1=<hex>`,
 * the hex being HMAC-SHA256 keyed by the webhook secret over the timestamp immediately followed by
 * the raw body. During a secret rotation the provider sends one v1 per secret.
 */

export const SIGNATURE_HEADER = 'wave-signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const hmac = (secret: string, t: string, raw: Buffer | string) =>
  createHmac('sha256', secret).update(t).update(raw).digest();

/** The header value for `rawBody` signed with `secret` at `unixSeconds`. */
export function signWebhook(secret: string, rawBody: Buffer | string, unixSeconds: number): string {
  const t = String(Math.floor(unixSeconds));
  return `t=${t},v1=${hmac(secret, t, rawBody).toString('hex')}`;
}

/**
 * True when one v1 of the header matches one of `secrets` over the raw bytes and the timestamp is
 * within `toleranceSeconds` of now (a replayed old delivery is refused). Compared in constant time.
 */
export function verifyWebhookSignature(
  header: string | undefined,
  rawBody: Buffer,
  secrets: string[],
  nowUnixSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header || header.length > 4096) return false;
  let t: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const [key, value] = [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
    if (key === 't') {
      if (t !== undefined || !/^\d{1,12}$/.test(value)) return false;
      t = value;
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) continue;
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (v0, future versions) are ignored, as the provider documents.
  }
  if (t === undefined || signatures.length === 0) return false;
  if (Math.abs(nowUnixSeconds - Number(t)) > toleranceSeconds) return false;
  let ok = false;
  // Every pair is compared (no early exit), so the time taken says nothing about which matched.
  for (const secret of secrets) {
    const expected = hmac(secret, t, rawBody);
    for (const sig of signatures) {
      if (sig.length === expected.length && timingSafeEqual(sig, expected)) ok = true;
    }
  }
  return ok;
}

const SESSION_EVENTS = ['checkout.session.completed', 'checkout.session.payment_failed'] as const;
const PAYOUT_EVENTS = ['payout.completed', 'payout.failed'] as const;

/** An event of a type we do not handle (the provider may add types; they are acknowledged, not applied). */
export class UnknownEventTypeError extends WireFormatError {
  constructor(readonly type: string) {
    super(`unknown event type "${type}"`);
  }
}

/**
 * The parsed webhook body (JSON text, or already parsed) as a ProviderEvent. Throws
 * UnknownEventTypeError for a type we do not handle and WireFormatError naming the field for
 * malformed data.
 */
export function parseProviderEvent(json: string | Buffer | unknown): ProviderEvent {
  let body: unknown = json;
  if (typeof json === 'string' || Buffer.isBuffer(json)) {
    try {
      body = JSON.parse(json.toString());
    } catch {
      throw new WireFormatError('body: not JSON');
    }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new WireFormatError('body: not an object');
  const { id, type, data } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || id.length > 200) throw new WireFormatError('id: missing or not a string');
  if (typeof type !== 'string' || type === '') throw new WireFormatError('type: missing or not a string');
  if ((SESSION_EVENTS as readonly string[]).includes(type)) {
    return { id, type: type as (typeof SESSION_EVENTS)[number], session: sessionFromWire(data, 'data.') };
  }
  if ((PAYOUT_EVENTS as readonly string[]).includes(type)) {
    return { id, type: type as (typeof PAYOUT_EVENTS)[number], payout: payoutFromWire(data, 'data.') };
  }
  throw new UnknownEventTypeError(type);
}
