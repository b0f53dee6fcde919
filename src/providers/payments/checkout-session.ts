import type { Clock } from '../../shared/clock.js';
import { parseRetryAfter } from '../push/push.js';
import {
  PaymentProviderError,
  type CheckoutSession,
  type CreatePayoutInput,
  type CreateSessionInput,
  type PaymentProvider,
  type Payout,
} from './types.js';
import { formatAmount, payoutFromWire, sessionFromWire, WireFormatError } from './wire.js';

export interface CheckoutSessionOptions {
  baseUrl: string;
  apiKey: string;
  webhookSecrets: string[];
  /** Per call; a provider that does not answer in time is an outage (retryable). */
  timeoutMs?: number;
}

/**
 * The checkout-session protocol over HTTP (Wave's Checkout and Payout APIs; aggregators offer the
 * same shape). The payment method is ours, not the wire's: the provider's page offers its wallets.
 */
export class CheckoutSessionPayments implements PaymentProvider {
  readonly name = 'checkout' as const;
  readonly webhookSecrets: string[];
  private readonly base: string;

  constructor(
    private readonly opts: CheckoutSessionOptions,
    private readonly clock: Clock,
  ) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.webhookSecrets = opts.webhookSecrets;
  }

  async createSession(input: CreateSessionInput): Promise<CheckoutSession> {
    const body = {
      amount: formatAmount(input.amount),
      currency: input.currency,
      client_reference: input.clientReference,
      success_url: input.successUrl,
      error_url: input.errorUrl,
      ...(input.payerPhone && { restrict_payer_mobile: input.payerPhone }),
    };
    return sessionFromWire(
      await this.call('POST', '/v1/checkout/sessions', { body, idempotencyKey: input.idempotencyKey }),
    );
  }

  async getSession(sessionId: string): Promise<CheckoutSession> {
    return sessionFromWire(await this.call('GET', `/v1/checkout/sessions/${seg(sessionId)}`));
  }

  async expireSession(sessionId: string): Promise<CheckoutSession> {
    try {
      await this.call('POST', `/v1/checkout/sessions/${seg(sessionId)}/expire`);
    } catch (err) {
      // A session already complete or expired cannot be expired: the caller only wants it closed.
      if (!(err instanceof PaymentProviderError) || err.retryable || err.status === 404) throw err;
      const current = await this.getSession(sessionId);
      if (current.checkoutStatus === 'open') throw err;
      return current;
    }
    // The provider answers the expire call without the session (or with it): read it back.
    return this.getSession(sessionId);
  }

  async refundSession(sessionId: string, idempotencyKey: string): Promise<void> {
    await this.call('POST', `/v1/checkout/sessions/${seg(sessionId)}/refund`, { idempotencyKey });
  }

  async createPayout(input: CreatePayoutInput): Promise<Payout> {
    const body = {
      currency: input.currency,
      receive_amount: formatAmount(input.amount),
      mobile: input.mobile,
      name: input.name,
      client_reference: input.clientReference,
    };
    return payoutFromWire(await this.call('POST', '/v1/payout', { body, idempotencyKey: input.idempotencyKey }));
  }

  async getPayout(payoutId: string): Promise<Payout> {
    return payoutFromWire(await this.call('GET', `/v1/payout/${seg(payoutId)}`));
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    opts: { body?: unknown; idempotencyKey?: string } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new PaymentProviderError(
        `payment provider ${timedOut ? 'timed out' : 'unreachable'} (${method} ${path}): ${(err as Error).message}`,
        true,
      );
    }
    if (!res.ok) {
      const { code, message } = errorOf(text);
      const retryable = res.status === 429 || res.status >= 500;
      const retryAfter = retryable ? parseRetryAfter(res.headers.get('retry-after'), this.clock.now()) : undefined;
      throw new PaymentProviderError(
        `payment provider answered ${res.status}${code ? ` ${code}` : ''}: ${message ?? text.slice(0, 200)}`,
        retryable,
        res.status,
        code,
        retryAfter,
      );
    }
    if (text === '') return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new WireFormatError(`payment provider answered ${method} ${path} with something other than JSON`);
    }
  }
}

const seg = (id: string) => encodeURIComponent(id);

/** The provider's error body: `{code, message, details?}`. */
function errorOf(text: string): { code?: string; message?: string } {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    return {
      code: typeof body.code === 'string' ? body.code : undefined,
      message: typeof body.message === 'string' ? body.message : undefined,
    };
  } catch {
    return {};
  }
}
