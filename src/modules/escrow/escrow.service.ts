import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { EscrowActorRole } from '../../db/schema/escrow.js';
import { notFound } from '../../shared/errors.js';
import { assertTransition } from '../../shared/state-machine.js';
import { escrow as escrowAccount, providerClearing, refundsPending, type LedgerApi } from '../ledger/index.js';
import { ESCROW_TRANSITIONS, REFUND_TARGET } from './escrow-status.js';
import * as repo from './escrow.repository.js';
import type { EscrowRecord } from './escrow.repository.js';

export type { EscrowRecord };

/** Who moves an escrow: an administrator, the order's people, or the platform (webhook, jobs). */
export interface EscrowActor {
  userId: string | null;
  role: EscrowActorRole;
}

/** What a refund out of escrow hands to the payments module, inside the same transaction. */
export interface EscrowRefund {
  orderId: string;
  paymentId: string;
  amount: number;
  currency: string;
  /** The ledger transaction escrow -> refunds_pending; the provider call's idempotency key derives from it. */
  ledgerTransactionId: string;
  reason: string;
  actor: EscrowActor;
  /** A payment the order's escrow row never held (a second payment, or one taken after we stopped waiting). */
  extra: boolean;
}
export type RefundListener = (tx: Executor, refund: EscrowRefund) => Promise<void>;

export interface EscrowDeps {
  ledger: LedgerApi;
}

export type EscrowService = ReturnType<typeof createEscrowService>;

/** Ledger idempotency keys of the escrow's movements, one per cause. */
const escrowKeys = {
  received: (paymentId: string) => `payment:${paymentId}:received`,
  refund: (paymentId: string) => `payment:${paymentId}:refund`,
};

/**
 * The money of paid orders while the platform holds it: one row per order (its state) and the
 * ledger account `escrow:<orderId>` (its balance), always changed together in the caller's
 * transaction. The refund's provider side belongs to the payments module, which listens here.
 */
export function createEscrowService(ctx: AppContext, deps: EscrowDeps) {
  const refundListeners: RefundListener[] = [];

  return {
    /** The payments module's part of a refund (payment REFUND_PENDING, the provider job). */
    onRefund(fn: RefundListener): void {
      refundListeners.push(fn);
    },

    /**
     * A payment of the order was received: provider_clearing -> escrow:<orderId> and the order's
     * escrow row HELD. `created: false` when the order already had an escrow row (answered as it is).
     */
    async hold(
      tx: Executor,
      p: { orderId: string; paymentId: string; amount: number; currency: string },
    ): Promise<{ escrow: EscrowRecord; created: boolean }> {
      const t = ctx.clock.now();
      await postReceived(tx, p);
      const inserted = await repo.insertEscrow(tx, {
        orderId: p.orderId,
        paymentId: p.paymentId,
        state: 'HELD',
        amount: p.amount,
        currency: p.currency,
        heldAt: t,
        updatedAt: t,
      });
      if (inserted) return { escrow: inserted, created: true };
      return { escrow: (await repo.findEscrow(tx, p.orderId, { lock: true }))!, created: false };
    },

    /**
     * Sends the order's held money back to the client: HELD -> REFUNDED, or DISPUTED ->
     * RESOLVED_CLIENT; escrow:<orderId> -> refunds_pending:<paymentId>; then the payments module
     * marks the payment REFUND_PENDING and enqueues the provider refund. Already refunded: answers
     * the escrow unchanged (safe to call twice). Any other state: 409 INVALID_TRANSITION.
     */
    async refund(tx: Executor, orderId: string, reason: string, actor: EscrowActor): Promise<EscrowRecord> {
      const e = await repo.findEscrow(tx, orderId, { lock: true });
      if (!e) throw notFound('Escrow');
      if (e.state === 'REFUNDED' || e.state === 'RESOLVED_CLIENT') return e;
      const to = REFUND_TARGET[e.state] ?? 'REFUNDED';
      assertTransition(ESCROW_TRANSITIONS, e.state, to, 'Escrow');
      const t = ctx.clock.now();
      const moved = await repo.moveEscrow(tx, orderId, e.state, {
        state: to,
        refundedAt: t,
        refundReason: reason,
        updatedAt: t,
        ...(to === 'RESOLVED_CLIENT' && { disputeResolvedAt: t }),
      });
      if (!moved) throw new Error(`escrow ${orderId} changed under its row lock`);
      await moveToRefund(tx, {
        orderId,
        paymentId: e.paymentId,
        amount: e.amount,
        currency: e.currency,
        reason,
        actor,
        extra: false,
      });
      return moved;
    },

    /**
     * A payment the order's escrow row will not hold (the order already holds another payment, or
     * the money came after we stopped waiting for it while the order stays open): received into
     * the order's escrow account and moved straight on to refunds; the row, if any, is untouched.
     */
    async refundExtra(
      tx: Executor,
      p: { orderId: string; paymentId: string; amount: number; currency: string },
      reason: string,
      actor: EscrowActor,
    ): Promise<void> {
      await postReceived(tx, p);
      await moveToRefund(tx, { ...p, reason, actor, extra: true });
    },

    find: (ex: Executor, orderId: string) => repo.findEscrow(ex, orderId),
  };

  async function postReceived(
    tx: Executor,
    p: { orderId: string; paymentId: string; amount: number; currency: string },
  ): Promise<void> {
    await deps.ledger.post(tx, {
      kind: 'payment_received',
      reference: { type: 'order', id: p.orderId },
      idempotencyKey: escrowKeys.received(p.paymentId),
      currency: p.currency,
      memo: `payment ${p.paymentId}`,
      lines: [
        { account: providerClearing, amount: p.amount },
        { account: escrowAccount(p.orderId), amount: -p.amount },
      ],
    });
  }

  async function moveToRefund(tx: Executor, r: Omit<EscrowRefund, 'ledgerTransactionId'>): Promise<void> {
    const { transactionId } = await deps.ledger.post(tx, {
      kind: 'refund_started',
      reference: { type: 'order', id: r.orderId },
      idempotencyKey: escrowKeys.refund(r.paymentId),
      currency: r.currency,
      memo: r.reason.slice(0, 200),
      lines: [
        { account: escrowAccount(r.orderId), amount: r.amount },
        { account: refundsPending(r.paymentId), amount: -r.amount },
      ],
    });
    for (const fn of refundListeners) await fn(tx, { ...r, ledgerTransactionId: transactionId });
  }
}
