import { and, eq, gt, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { placeholders, preparedPer, type Db, type Executor } from '../../db/client.js';
import { sandboxCheckoutSessions as sessions, sandboxPayouts as payouts } from '../../db/schema/sandbox-payments.js';
import type { Clock } from '../../shared/clock.js';
import {
  PaymentProviderError,
  type CheckoutSession,
  type CreatePayoutInput,
  type CreateSessionInput,
  type PaymentProvider,
  type Payout,
} from './types.js';
import { payoutToWire, sessionToWire, type WirePayout, type WireSession } from './wire.js';

/** Sessions stay open this long, as with the real provider. */
export const SANDBOX_SESSION_MINUTES = 30;
/** A payout to a number ending in these digits fails, so that failures can be tried by hand. */
export const SANDBOX_FAILING_SUFFIX = '0000';
export const SANDBOX_PAGE_PATH = '/api/v1/payments/sandbox/checkout';

type SessionRow = typeof sessions.$inferSelect;
type PayoutRow = typeof payouts.$inferSelect;
export type SandboxEvent = { id: string; type: string; data: WireSession | WirePayout };
/** What a delivery sent and what the webhook answered (0: it could not be reached). */
export interface SandboxDelivered {
  event: SandboxEvent;
  rawBody: string;
  signature: string;
  statusCode: number;
}
/** Sends a provider event to the API's own webhook (set by the sandbox pages when they are registered). */
export type SandboxDelivery = (event: SandboxEvent) => Promise<SandboxDelivered | undefined>;

// Prepared: with the sandbox, every order opens a session in its own transaction.
const SESSION_KEYS = [
  'id',
  'idempotencyKey',
  'amount',
  'currency',
  'clientReference',
  'successUrl',
  'errorUrl',
  'payerMobile',
  'createdAt',
  'expiresAt',
] as const;
const insertSession = preparedPer((ex) =>
  ex
    .insert(sessions)
    .values({ ...placeholders(SESSION_KEYS), checkoutStatus: 'open', paymentStatus: 'processing' })
    .onConflictDoNothing({ target: sessions.idempotencyKey })
    .returning()
    .prepare('sandbox_session_insert'),
);

/**
 * The payment provider inside the API (MOBILEMONEY_PROVIDER=sandbox, the default on a bare
 * machine; refused in production). Sessions and payouts live in the database; the launch URL is a
 * page of this API whose Pay and Fail buttons complete the session and send the same signed
 * webhook the real provider would.
 */
export class SandboxPayments implements PaymentProvider {
  readonly name = 'sandbox' as const;
  private deliver: SandboxDelivery = async () => undefined;
  /** Called after each delivery (development tools and tests watch what the webhook received). */
  readonly deliveryListeners = new Set<(d: SandboxDelivered) => void>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly publicBaseUrl: string,
    readonly webhookSecrets: string[],
  ) {}

  setDelivery(deliver: SandboxDelivery): void {
    this.deliver = deliver;
  }

  /** Sends an event to the API's webhook as the provider would (a no-op until the pages set the delivery). */
  async send(event: SandboxEvent): Promise<void> {
    const delivered = await this.deliver(event);
    if (delivered) this.deliveryListeners.forEach((listener) => listener(delivered));
  }

  createSession(input: CreateSessionInput): Promise<CheckoutSession> {
    return this.createSessionIn(this.db, input);
  }

  async createSessionIn(ex: Executor, input: CreateSessionInput): Promise<CheckoutSession> {
    const now = this.clock.now();
    const id = `cos-sbx-${randomUUID()}`;
    const [created] = await insertSession(ex).execute({
      id,
      idempotencyKey: input.idempotencyKey,
      amount: input.amount,
      currency: input.currency,
      clientReference: input.clientReference,
      successUrl: input.successUrl,
      errorUrl: input.errorUrl,
      payerMobile: input.payerPhone ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SANDBOX_SESSION_MINUTES * 60_000),
    });
    if (created) return this.toSession(created);
    const [existing] = await ex.select().from(sessions).where(eq(sessions.idempotencyKey, input.idempotencyKey));
    if (!existing) throw new PaymentProviderError('sandbox: session vanished', true);
    if (
      existing.amount !== input.amount ||
      existing.clientReference !== input.clientReference ||
      existing.currency !== input.currency
    ) {
      throw new PaymentProviderError('Idempotency-Key reused with another request', false, 422, 'idempotency-mismatch');
    }
    return this.toSession(existing);
  }

  async getSession(sessionId: string): Promise<CheckoutSession> {
    return this.toSession(await this.row(sessionId));
  }

  /** The session with the URLs it was created with, in the provider's wire format. */
  async getWireSession(sessionId: string): Promise<WireSession> {
    return this.wire(await this.row(sessionId));
  }

  async expireSession(sessionId: string): Promise<CheckoutSession> {
    await this.db
      .update(sessions)
      .set({ checkoutStatus: 'expired', paymentStatus: 'cancelled' })
      .where(and(eq(sessions.id, sessionId), eq(sessions.checkoutStatus, 'open')));
    return this.getSession(sessionId);
  }

  async refundSession(sessionId: string, _idempotencyKey: string): Promise<void> {
    const row = await this.row(sessionId);
    if (row.paymentStatus !== 'succeeded')
      throw new PaymentProviderError('Only a paid session can be refunded', false, 409, 'checkout-refund-failed');
    // Refunded once whatever the key: a second refund of the same session changes nothing.
    await this.db
      .update(sessions)
      .set({ refundedAt: sql`coalesce(${sessions.refundedAt}, ${this.clock.now()})` })
      .where(eq(sessions.id, sessionId));
  }

  /** Whether (and when) a session was refunded: the sandbox's own view, for its page and tests. */
  async refundedAt(sessionId: string): Promise<Date | null> {
    return (await this.row(sessionId)).refundedAt;
  }

  /**
   * The Pay button: completes an open, unexpired session. Returns the session in wire format,
   * and `changed` false when it was not open (a second click, an expired page).
   */
  async pay(sessionId: string): Promise<{ session: WireSession; changed: boolean }> {
    const now = this.clock.now();
    const [row] = await this.db
      .update(sessions)
      .set({
        checkoutStatus: 'complete',
        paymentStatus: 'succeeded',
        transactionId: `TSBX${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`,
        completedAt: now,
        lastPaymentError: null,
      })
      .where(and(eq(sessions.id, sessionId), eq(sessions.checkoutStatus, 'open'), gt(sessions.expiresAt, now)))
      .returning();
    return row
      ? { session: this.wire(row), changed: true }
      : { session: await this.getWireSession(sessionId), changed: false };
  }

  /** The Fail button: the attempt failed, the session stays open for another try (as with the real provider). */
  async failPayment(sessionId: string): Promise<{ session: WireSession; changed: boolean }> {
    const now = this.clock.now();
    const [row] = await this.db
      .update(sessions)
      .set({
        paymentStatus: 'processing',
        lastPaymentError: { code: 'payment-declined', message: 'The payment was declined in the sandbox' },
      })
      .where(and(eq(sessions.id, sessionId), eq(sessions.checkoutStatus, 'open'), gt(sessions.expiresAt, now)))
      .returning();
    return row
      ? { session: this.wire(row), changed: true }
      : { session: await this.getWireSession(sessionId), changed: false };
  }

  async createPayout(input: CreatePayoutInput): Promise<Payout> {
    const fails = input.mobile.endsWith(SANDBOX_FAILING_SUFFIX);
    const [created] = await this.db
      .insert(payouts)
      .values({
        id: `pt-sbx-${randomUUID()}`,
        idempotencyKey: input.idempotencyKey,
        amount: input.amount,
        currency: input.currency,
        mobile: input.mobile,
        name: input.name,
        clientReference: input.clientReference,
        status: fails ? 'failed' : 'succeeded',
        error: fails
          ? {
              code: 'recipient-not-found',
              message: `Sandbox: payouts to numbers ending in ${SANDBOX_FAILING_SUFFIX} fail`,
            }
          : null,
        createdAt: this.clock.now(),
      })
      .onConflictDoNothing({ target: payouts.idempotencyKey })
      .returning();
    if (!created) {
      const [existing] = await this.db.select().from(payouts).where(eq(payouts.idempotencyKey, input.idempotencyKey));
      if (!existing) throw new PaymentProviderError('sandbox: payout vanished', true);
      if (
        existing.amount !== input.amount ||
        existing.mobile !== input.mobile ||
        existing.clientReference !== input.clientReference
      ) {
        throw new PaymentProviderError(
          'Idempotency-Key reused with another request',
          false,
          422,
          'idempotency-mismatch',
        );
      }
      return toPayout(existing);
    }
    // The real provider also reports the outcome by webhook. Sent after this call returns, so that
    // a caller still holding locks on its own rows is not waiting on the webhook handler.
    const event = {
      id: `EV_sbx_${randomUUID()}`,
      type: fails ? 'payout.failed' : 'payout.completed',
      data: payoutToWire(toPayout(created), created.name, created.createdAt),
    };
    this.track(new Promise<void>((r) => setImmediate(r)).then(() => this.send(event)));
    return toPayout(created);
  }

  async getPayout(payoutId: string): Promise<Payout> {
    const [row] = await this.db.select().from(payouts).where(eq(payouts.id, payoutId));
    if (!row) throw new PaymentProviderError('payout not found', false, 404, 'payout-not-found');
    return toPayout(row);
  }

  /** Resolves once every webhook the sandbox sent on its own (payouts) was delivered. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async row(sessionId: string): Promise<SessionRow> {
    const [row] = await this.db.select().from(sessions).where(eq(sessions.id, sessionId));
    if (!row) throw new PaymentProviderError('checkout session not found', false, 404, 'checkout-session-not-found');
    return row;
  }

  /** An open session past its time reads as expired (as the provider reports it), without a write. */
  private toSession(row: SessionRow): CheckoutSession {
    const lapsed = row.checkoutStatus === 'open' && row.expiresAt.getTime() <= this.clock.now().getTime();
    return {
      id: row.id,
      amount: row.amount,
      currency: row.currency,
      clientReference: row.clientReference,
      checkoutStatus: lapsed ? 'expired' : row.checkoutStatus,
      paymentStatus: lapsed ? 'cancelled' : row.paymentStatus,
      launchUrl: `${this.publicBaseUrl}${SANDBOX_PAGE_PATH}/${encodeURIComponent(row.id)}`,
      transactionId: row.transactionId,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      completedAt: row.completedAt,
      lastPaymentError: row.lastPaymentError,
    };
  }

  private wire(row: SessionRow): WireSession {
    return sessionToWire(this.toSession(row), {
      successUrl: row.successUrl,
      errorUrl: row.errorUrl,
      payerMobile: row.payerMobile,
    });
  }
}

const toPayout = (row: PayoutRow): Payout => ({
  id: row.id,
  status: row.status,
  amount: row.amount,
  currency: row.currency,
  mobile: row.mobile,
  clientReference: row.clientReference,
  error: row.error,
});
