import type { CheckoutSession, CheckoutStatus, Payout, PayoutStatus, SessionPaymentStatus } from './types.js';
import { isMoney } from '../../shared/money.js';

/*
 * The provider's wire format (snake_case, amounts as decimal strings, ISO times) and its
 * conversion to and from our objects. Shared by the HTTP adapter, the sandbox (which must send
 * exactly what the real provider sends) and the webhook parser.
 */

export interface WireError {
  code: string;
  message: string;
}

export interface WireSession {
  id: string;
  amount: string;
  currency: string;
  client_reference: string;
  checkout_status: CheckoutStatus;
  payment_status: SessionPaymentStatus;
  wave_launch_url: string;
  success_url?: string;
  error_url?: string;
  restrict_payer_mobile?: string | null;
  transaction_id: string | null;
  when_created: string;
  when_expires: string;
  when_completed: string | null;
  last_payment_error: WireError | null;
}

export interface WirePayout {
  id: string;
  currency: string;
  receive_amount: string;
  mobile: string;
  name: string;
  client_reference: string;
  status: PayoutStatus;
  timestamp?: string;
  payout_error?: { error_code: string; error_message: string } | null;
}

/** A malformed answer or event from the provider. */
export class WireFormatError extends Error {}

const CHECKOUT: readonly string[] = ['open', 'complete', 'expired'];
const PAYMENT: readonly string[] = ['processing', 'cancelled', 'succeeded'];
const PAYOUT: readonly string[] = ['processing', 'succeeded', 'failed'];

/** "1500" -> 1500. XOF has no minor unit: the provider's amount is already in it ("1500.00" accepted). */
export function parseAmount(value: unknown, field: string): number {
  if (typeof value !== 'string' || !/^\d{1,15}(\.0+)?$/.test(value))
    throw new WireFormatError(`${field}: not an amount in whole units ("1500")`);
  return Number.parseInt(value, 10);
}

export const formatAmount = (amount: number): string => {
  if (!isMoney(amount)) throw new RangeError(`amount must be a non-negative integer, got ${amount}`);
  return String(amount);
};

const obj = (v: unknown, field: string): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WireFormatError(`${field}: not an object`);
  return v as Record<string, unknown>;
};
const str = (o: Record<string, unknown>, key: string, prefix: string): string => {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw new WireFormatError(`${prefix}${key}: missing or not a string`);
  return v;
};
const optStr = (o: Record<string, unknown>, key: string, prefix: string): string | null => {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new WireFormatError(`${prefix}${key}: not a string`);
  return v;
};
const oneOf = <T extends string>(
  o: Record<string, unknown>,
  key: string,
  allowed: readonly string[],
  prefix: string,
): T => {
  const v = str(o, key, prefix);
  if (!allowed.includes(v)) throw new WireFormatError(`${prefix}${key}: unknown value "${v}"`);
  return v as T;
};
const date = (o: Record<string, unknown>, key: string, prefix: string): Date => {
  const d = new Date(str(o, key, prefix));
  if (Number.isNaN(d.getTime())) throw new WireFormatError(`${prefix}${key}: not a date`);
  return d;
};
const optDate = (o: Record<string, unknown>, key: string, prefix: string): Date | null =>
  o[key] === undefined || o[key] === null ? null : date(o, key, prefix);

/** Reads a session object as the provider sends it (answers and webhook `data`). */
export function sessionFromWire(value: unknown, prefix = ''): CheckoutSession {
  const o = obj(value, prefix ? prefix.slice(0, -1) : 'session');
  const err =
    o.last_payment_error === undefined || o.last_payment_error === null
      ? null
      : obj(o.last_payment_error, `${prefix}last_payment_error`);
  return {
    id: str(o, 'id', prefix),
    amount: parseAmount(o.amount, `${prefix}amount`),
    currency: str(o, 'currency', prefix),
    clientReference: str(o, 'client_reference', prefix),
    checkoutStatus: oneOf<CheckoutStatus>(o, 'checkout_status', CHECKOUT, prefix),
    paymentStatus: oneOf<SessionPaymentStatus>(o, 'payment_status', PAYMENT, prefix),
    launchUrl: str(o, 'wave_launch_url', prefix),
    transactionId: optStr(o, 'transaction_id', prefix),
    createdAt: date(o, 'when_created', prefix),
    expiresAt: date(o, 'when_expires', prefix),
    completedAt: optDate(o, 'when_completed', prefix),
    lastPaymentError: err ? { code: String(err.code ?? 'unknown'), message: String(err.message ?? '') } : null,
  };
}

export function sessionToWire(
  s: CheckoutSession,
  urls: { successUrl: string; errorUrl: string; payerMobile?: string | null },
): WireSession {
  return {
    id: s.id,
    amount: formatAmount(s.amount),
    currency: s.currency,
    client_reference: s.clientReference,
    checkout_status: s.checkoutStatus,
    payment_status: s.paymentStatus,
    wave_launch_url: s.launchUrl,
    success_url: urls.successUrl,
    error_url: urls.errorUrl,
    restrict_payer_mobile: urls.payerMobile ?? null,
    transaction_id: s.transactionId,
    when_created: s.createdAt.toISOString(),
    when_expires: s.expiresAt.toISOString(),
    when_completed: s.completedAt?.toISOString() ?? null,
    last_payment_error: s.lastPaymentError,
  };
}

export function payoutFromWire(value: unknown, prefix = ''): Payout {
  const o = obj(value, prefix ? prefix.slice(0, -1) : 'payout');
  const err =
    o.payout_error === undefined || o.payout_error === null ? null : obj(o.payout_error, `${prefix}payout_error`);
  return {
    id: str(o, 'id', prefix),
    status: oneOf<PayoutStatus>(o, 'status', PAYOUT, prefix),
    amount: parseAmount(o.receive_amount, `${prefix}receive_amount`),
    currency: str(o, 'currency', prefix),
    mobile: str(o, 'mobile', prefix),
    clientReference: str(o, 'client_reference', prefix),
    error: err ? { code: String(err.error_code ?? 'unknown'), message: String(err.error_message ?? '') } : null,
  };
}

export function payoutToWire(p: Payout, name: string, at: Date): WirePayout {
  return {
    id: p.id,
    currency: p.currency,
    receive_amount: formatAmount(p.amount),
    mobile: p.mobile,
    name,
    client_reference: p.clientReference,
    status: p.status,
    timestamp: at.toISOString(),
    payout_error: p.error && { error_code: p.error.code, error_message: p.error.message },
  };
}
