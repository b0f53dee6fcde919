import type { Executor } from '../../db/client.js';
import type { PaymentSubjectType } from '../../db/schema/payments.js';
import type { PaymentRecord } from './payments.repository.js';

/**
 * What a payment pays for, declared once per subject type by the module that owns the subject.
 * The payments module (webhook, reconciliation, refunds) calls these inside the transaction that
 * applies a provider event, after locking the subject and then the payment (the fixed lock order of
 * every money path: subject, then payment, then whatever the subject's money moves).
 * docs/payments.md ("Paying for something other than an order") shows how to declare one.
 */
/** What `lock` answers: at least who pays; the handler may carry what it read for its other calls. */
export interface LockedSubject {
  payerUserId: string;
}

export interface PaymentSubjectHandler<S extends LockedSubject = any> {
  /** Locks the subject's row; answers it (who pays, at least), or undefined when it is gone. */
  lock(tx: Executor, subjectId: string): Promise<S | undefined>;

  /**
   * Where the money of a succeeded payment is credited (`payment_received`: provider_clearing ->
   * this account), posted by the payments module before `succeeded` runs. Absent: `succeeded` posts
   * it itself (orders: escrow.hold). `subject` is what `lock` answered (an account may depend on it).
   */
  creditAccount?: (p: PaymentRecord, subject: S) => string;

  /**
   * The payment's money came in. `late`: the attempt had been closed (EXPIRED or CANCELLED) before
   * the provider took the money. Answers 'applied' (the subject has its money), 'refund' (nobody wants
   * this money: the payments module sends it back from `creditAccount`) or 'refunded' (the handler
   * started the refund itself).
   */
  succeeded(
    tx: Executor,
    p: PaymentRecord,
    subject: S,
    opts: { late: boolean },
  ): Promise<'applied' | 'refund' | 'refunded'>;

  /** The attempt FAILED at the provider or its session EXPIRED (the attempt is already moved). */
  failed?(tx: Executor, p: PaymentRecord, subject: S, status: 'FAILED' | 'EXPIRED'): Promise<void>;

  /** A refund of one of the subject's payments was completed by the provider (posted and moved already). */
  refunded?(tx: Executor, p: PaymentRecord, subject: S): Promise<void>;
}

/** The handlers, one per subject type; a payment of a type nobody declared is never settled. */
export class PaymentSubjects {
  private readonly handlers = new Map<PaymentSubjectType, PaymentSubjectHandler>();

  register<S extends LockedSubject>(type: PaymentSubjectType, handler: PaymentSubjectHandler<S>): void {
    if (this.handlers.has(type)) throw new Error(`payment subject ${type} is declared twice`);
    this.handlers.set(type, handler);
  }

  get(type: PaymentSubjectType): PaymentSubjectHandler {
    const h = this.handlers.get(type);
    if (!h) throw new Error(`no payment subject handler for ${type}`);
    return h;
  }
}

/** The ledger idempotency keys of a payment's own movements (the money invariants read the first). */
export const paymentLedgerKeys = {
  received: (paymentId: string) => `payment:${paymentId}:received`,
  refund: (paymentId: string) => `payment:${paymentId}:refund`,
  refunded: (paymentId: string) => `payment:${paymentId}:refunded`,
};
