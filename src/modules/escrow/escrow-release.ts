import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { EscrowState } from '../../db/schema/escrow.js';
import { conflict, notFound } from '../../shared/errors.js';
import { commissionOf } from '../../shared/money.js';
import { assertTransition } from '../../shared/state-machine.js';
import { escrow as escrowAccount, platformCommission, supplierPayable, type LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import type { PayoutsApi } from '../payouts/index.js';
import type { SettingsReader } from '../settings/index.js';
import * as admin from './escrow-admin.repository.js';
import { ESCROW_TRANSITIONS } from './escrow-status.js';
import * as repo from './escrow.repository.js';
import type { EscrowRecord } from './escrow.repository.js';

/** Releases one order's escrow once its delay after completion has passed (safe twice). */
export const RELEASE_JOB = 'escrow.release';
/** Hourly safety net: releases held escrows whose time has passed and whose job was lost. */
export const RELEASE_DUE_JOB = 'escrow.release-due';
const RELEASE_DUE_BATCH = 100;

export interface ReleaseDeps {
  ledger: LedgerApi;
  payouts: PayoutsApi;
  settings: SettingsReader;
  suppliers: SuppliersApi;
  notifications: NotificationsApi;
}

export interface Release {
  escrow: EscrowRecord;
  order: admin.OrderFacts;
  commission: number;
  net: number;
  ledgerTransactionId: string;
}

/** The split of a release: commission at the order's frozen rate (half up), the rest to the supplier. */
export function splitOf(amount: number, commissionBps: number) {
  const commission = commissionOf(amount, commissionBps);
  return { commission, net: amount - commission };
}

export type EscrowReleases = ReturnType<typeof createEscrowReleases>;
type ReleaseTarget = Extract<EscrowState, 'RELEASED' | 'RESOLVED_SUPPLIER'>;

export function createEscrowReleases(ctx: AppContext, deps: ReleaseDeps) {
  const now = () => ctx.clock.now();

  /** Locks the order's escrow; 404 when the order has none (unknown, or never paid). */
  async function lockEscrow(tx: Executor, orderId: string) {
    const e = await repo.findEscrow(tx, orderId, { lock: true });
    if (!e) throw notFound('Escrow of this order');
    return e;
  }

  /**
   * Pays the held money out of escrow to the supplier, inside `tx`: escrow:<order> -> supplier
   * payable (net) + platform commission, and the payout of the net amount. `to` is RELEASED (from
   * HELD) or RESOLVED_SUPPLIER (from DISPUTED). The order must be COMPLETED: an order still open may
   * yet be cancelled and refunded.
   */
  async function release(tx: Executor, orderId: string, to: ReleaseTarget): Promise<Release> {
    const e = await lockEscrow(tx, orderId);
    assertTransition(ESCROW_TRANSITIONS, e.state, to, 'Escrow');
    const order = (await admin.orderFacts(tx, orderId))!;
    if (order.status !== 'COMPLETED')
      throw conflict(
        'ORDER_NOT_COMPLETED',
        `The order is ${order.status}: money is released only for a collected (COMPLETED) order`,
      );
    return releaseLocked(tx, e, order, to);
  }

  /** The release itself, once the escrow row is locked and the order known to be COMPLETED. */
  async function releaseLocked(
    tx: Executor,
    e: EscrowRecord,
    order: admin.OrderFacts,
    to: ReleaseTarget,
  ): Promise<Release> {
    const orderId = e.orderId;
    const { commission, net } = splitOf(e.amount, order.commissionBps);
    const lines = [{ account: escrowAccount(orderId), amount: e.amount }];
    if (net > 0) lines.push({ account: supplierPayable(order.supplierId), amount: -net });
    if (commission > 0) lines.push({ account: platformCommission, amount: -commission });
    const { transactionId } = await deps.ledger.post(tx, {
      kind: 'escrow_released',
      reference: { type: 'order', id: orderId },
      idempotencyKey: `order:${orderId}:release`,
      currency: e.currency,
      memo: `commission ${order.commissionBps} bps`,
      lines,
    });
    const t = now();
    const moved = await repo.moveEscrow(tx, orderId, e.state, {
      state: to,
      releasedAt: t,
      updatedAt: t,
      ...(to === 'RESOLVED_SUPPLIER' && { disputeResolvedAt: t }),
    });
    if (!moved) throw new Error(`escrow ${orderId} changed under its row lock`);
    await deps.payouts.createForRelease(tx, {
      supplierId: order.supplierId,
      orderId,
      releaseTransactionId: transactionId,
      amount: net,
      currency: e.currency,
    });
    return { escrow: moved, order, commission, net, ledgerTransactionId: transactionId };
  }

  /** HELD -> DISPUTED: the automatic release skips it until an administrator resolves it. */
  async function openDispute(tx: Executor, orderId: string, reason: string) {
    const e = await lockEscrow(tx, orderId);
    assertTransition(ESCROW_TRANSITIONS, e.state, 'DISPUTED', 'Escrow');
    const t = now();
    return (await repo.moveEscrow(tx, orderId, 'HELD', {
      state: 'DISPUTED',
      disputeReason: reason,
      disputeOpenedAt: t,
      updatedAt: t,
    }))!;
  }

  /** The automatic release: only a HELD escrow of a COMPLETED order whose time has come; otherwise nothing. */
  async function releaseIfDue(orderId: string): Promise<Release | null> {
    return ctx.db.transaction(async (tx) => {
      const e = await repo.findEscrow(tx, orderId, { lock: true });
      if (!e || e.state !== 'HELD' || !e.releaseAfter || e.releaseAfter > now()) return null;
      const order = await admin.orderFacts(tx, orderId);
      if (order?.status !== 'COMPLETED') return null;
      const r = await releaseLocked(tx, e, order, 'RELEASED');
      const supplierUser = (await deps.suppliers.findProfile(order.supplierId, tx))?.userId;
      const data = { orderId, amount: e.amount, commission: r.commission, net: r.net, currency: e.currency };
      if (supplierUser)
        await deps.notifications.notify(tx, supplierUser, 'escrow_released', data, {
          sourceKey: `escrow:${orderId}:release`,
        });
      return r;
    });
  }

  // A collected order's money is released after the business delay, unless disputed meanwhile.
  ctx.events.subscribe('orders.completed', 'escrow_release', async ({ orderId }) => {
    const { escrowReleaseDelayHours } = await deps.settings.get('business');
    await ctx.db.transaction(async (tx) => {
      const e = await repo.findEscrow(tx, orderId, { lock: true });
      if (!e || e.state !== 'HELD' || e.releaseAfter) return;
      const releaseAfter = new Date(now().getTime() + escrowReleaseDelayHours * 3_600_000);
      await repo.moveEscrow(tx, orderId, 'HELD', { state: 'HELD', releaseAfter, updatedAt: now() });
      await ctx.jobs.send(RELEASE_JOB, { orderId }, { tx, startAfterSeconds: escrowReleaseDelayHours * 3600 });
    });
  });

  ctx.jobs.work(RELEASE_JOB, async (job: { orderId: string }) => {
    await releaseIfDue(job.orderId);
  });
  ctx.jobs.work(RELEASE_DUE_JOB, async () => {
    for (const { orderId } of await admin.dueForRelease(ctx.db, now(), RELEASE_DUE_BATCH)) await releaseIfDue(orderId);
  });
  ctx.jobs.schedule(RELEASE_DUE_JOB, '23 * * * *');

  // Money held for a supplier's or a store's orders blocks deleting it.
  ctx.workInProgress.register(async (ex, scope) => {
    if ('productId' in scope) return null;
    const n = await admin.holdingCount(ex, scope);
    return n ? `${n} payment${n > 1 ? 's' : ''} held in escrow` : null;
  });

  return { lockEscrow, release, openDispute, releaseIfDue };
}
