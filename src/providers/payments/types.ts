/*
 * The payment provider: the checkout-session protocol of West African mobile-money providers
 * (DESIGN.md section 5). Two adapters implement it: `CheckoutSessionPayments` (HTTP, the
 * MOBILEMONEY_* variables) and `SandboxPayments` (inside the API, the default on a bare machine).
 * Amounts are integers in the currency's minor unit; the wire format's strings stay in the adapter.
 */
import type { Executor } from '../../db/client.js';
import type { PaymentMethod } from '../../shared/payment-methods.js';

export { PAYMENT_METHODS, type PaymentMethod } from '../../shared/payment-methods.js';

export type CheckoutStatus = 'open' | 'complete' | 'expired';
export type SessionPaymentStatus = 'processing' | 'cancelled' | 'succeeded';

export interface CheckoutSession {
  /** The provider's id ("cos-..."). */
  id: string;
  amount: number;
  currency: string;
  /** Our payment id, as given at creation. */
  clientReference: string;
  checkoutStatus: CheckoutStatus;
  paymentStatus: SessionPaymentStatus;
  /** The page the client opens to pay. */
  launchUrl: string;
  /** The provider's transaction id, once paid. */
  transactionId: string | null;
  createdAt: Date;
  expiresAt: Date;
  completedAt: Date | null;
  lastPaymentError: { code: string; message: string } | null;
}

export interface CreateSessionInput {
  amount: number;
  currency: string;
  clientReference: string;
  method: PaymentMethod;
  successUrl: string;
  errorUrl: string;
  /** E.164; only this wallet may pay when given. */
  payerPhone?: string;
  /** Same key, same session: a retried call never opens a second one. */
  idempotencyKey: string;
}

export type PayoutStatus = 'processing' | 'succeeded' | 'failed';

export interface Payout {
  /** The provider's id ("pt-..."). */
  id: string;
  status: PayoutStatus;
  amount: number;
  currency: string;
  mobile: string;
  clientReference: string;
  error: { code: string; message: string } | null;
}

export interface CreatePayoutInput {
  amount: number;
  currency: string;
  /** E.164 wallet number that receives the money. */
  mobile: string;
  name: string;
  clientReference: string;
  idempotencyKey: string;
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'checkout';
  /** Secrets a webhook signature may be made with (several during a rotation); the webhook route checks against them. */
  readonly webhookSecrets: string[];
  createSession(input: CreateSessionInput): Promise<CheckoutSession>;
  /**
   * Only a provider whose sessions live in the application's own database (the sandbox): opens the
   * session inside the caller's transaction, so the payment is inserted with its session (one
   * commit, no call after it). Remote providers are called after commit instead.
   */
  createSessionIn?(ex: Executor, input: CreateSessionInput): Promise<CheckoutSession>;
  getSession(sessionId: string): Promise<CheckoutSession>;
  /** Closes an unpaid session; expiring one already expired or complete is not an error. */
  expireSession(sessionId: string): Promise<CheckoutSession>;
  /** Refunds a paid session in full; refunding it twice with the same key is not an error. */
  refundSession(sessionId: string, idempotencyKey: string): Promise<void>;
  createPayout(input: CreatePayoutInput): Promise<Payout>;
  getPayout(payoutId: string): Promise<Payout>;
}

/**
 * A call the provider did not carry out. `retryable` is true for outages (network errors,
 * timeouts, 429, 5xx): the job retries; false when the provider refused for good (4xx).
 */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly code?: string,
    /** From the provider's Retry-After (429, 503), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** What the provider posts to `POST /payments/mobilemoney/webhook`, parsed from the wire format. */
export type ProviderEvent =
  | { id: string; type: 'checkout.session.completed' | 'checkout.session.payment_failed'; session: CheckoutSession }
  | { id: string; type: 'payout.completed' | 'payout.failed'; payout: Payout };
