import { AppError } from './errors.js';

/**
 * Money is an integer number of the currency's minor unit (XOF has none), never a float. Rates are
 * basis points (1 bps = 0.01 %, 10 000 bps = 100 %). The one rounding rule of the platform is
 * "half up" on the exact rational value, computed with BigInt so that no intermediate product
 * loses precision, however large the amount.
 */
export const BPS_SCALE = 10_000;
/** The currency of every price and payment: amounts are stored as its units, so it is no setting. */
export const CURRENCY = 'XOF';

export function isMoney(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Throws (500: a programming error, not a client's) unless `value` is a safe non-negative integer. */
export function assertMoney(value: unknown, what = 'amount'): asserts value is number {
  if (!isMoney(value))
    throw new AppError(500, 'INTERNAL_ERROR', `${what} must be a non-negative safe integer, got ${String(value)}`);
}

export function assertBps(value: unknown, what = 'rate'): asserts value is number {
  if (!isMoney(value) || value > BPS_SCALE)
    throw new AppError(
      500,
      'INTERNAL_ERROR',
      `${what} must be an integer from 0 to ${BPS_SCALE} bps, got ${String(value)}`,
    );
}

/** floor((amount * bps + 5000) / 10000): `bps` of `amount`, halves rounded up. */
export function commissionOf(amount: number, bps: number): number {
  assertMoney(amount);
  assertBps(bps, 'commission rate');
  const scale = BigInt(BPS_SCALE);
  return Number((BigInt(amount) * BigInt(bps) + scale / 2n) / scale);
}

/** `percent` % of `amount` (an integer percentage such as a discount), halves rounded up. */
export function percentOf(amount: number, percent: number): number {
  if (!Number.isSafeInteger(percent) || percent < 0 || percent > 100) {
    throw new AppError(500, 'INTERNAL_ERROR', `percentage must be an integer from 0 to 100, got ${String(percent)}`);
  }
  return commissionOf(amount, percent * 100);
}
