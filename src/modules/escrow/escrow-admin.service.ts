import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import { type PayoutRecord, type PayoutState, toPayoutView, type PayoutsApi } from '../payouts/index.js';
import type { AuthUser } from '../../http/access.js';
import { notFound } from '../../shared/errors.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { listAdminActions, recordAdminAction } from '../audit/index.js';
import type { LedgerTransaction, LedgerApi } from '../ledger/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { PaymentsApi } from '../payments/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import * as repo from './escrow-admin.repository.js';
import type { EscrowListQuery } from './escrow-admin.schemas.js';
import { splitOf, type EscrowReleases } from './escrow-release.js';
import { ESCROW_TRANSITIONS } from './escrow-status.js';
import type { EscrowRecord, EscrowService } from './escrow.service.js';

export interface EscrowAdminDeps {
  escrow: EscrowService;
  releases: EscrowReleases;
  ledger: LedgerApi;
  payouts: PayoutsApi;
  payments: PaymentsApi;
  suppliers: SuppliersApi;
  notifications: NotificationsApi;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
const AUDIT_TARGET = 'escrow';

function toEscrowView(r: repo.EscrowListRow, payout: Parameters<typeof toPayoutView>[0] | undefined) {
  const e = r.escrow;
  const { commission, net } = splitOf(e.amount, r.commissionBps);
  const disputed = e.disputeOpenedAt !== null;
  return {
    orderId: e.orderId,
    paymentId: e.paymentId,
    state: e.state,
    amount: e.amount,
    currency: e.currency,
    commissionBps: r.commissionBps,
    commission,
    net,
    heldAt: e.heldAt.toISOString(),
    releaseAfter: iso(e.releaseAfter),
    releasedAt: iso(e.releasedAt),
    refundedAt: iso(e.refundedAt),
    refundReason: e.refundReason,
    dispute: disputed
      ? { reason: e.disputeReason, openedAt: iso(e.disputeOpenedAt), resolvedAt: iso(e.disputeResolvedAt) }
      : null,
    order: {
      status: r.orderStatus,
      createdAt: r.createdAt.toISOString(),
      completedAt: iso(r.completedAt),
      client: { id: r.clientId, firstName: r.clientFirstName, lastName: r.clientLastName },
      supplier: { id: r.supplierId, businessName: r.businessName },
      store: { id: r.storeId, name: r.storeName },
    },
    payout: payout ? toPayoutView(payout) : null,
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** Each order's newest payout (`payouts.ofOrders` answers newest first). */
function newestPerOrder(ps: PayoutRecord[]): Map<string, PayoutRecord> {
  const out = new Map<string, PayoutRecord>();
  for (const p of ps) if (p.orderId && !out.has(p.orderId)) out.set(p.orderId, p);
  return out;
}

const toLedgerView = (t: LedgerTransaction) => ({
  id: t.id,
  kind: t.kind,
  reference: t.reference,
  memo: t.memo,
  currency: t.currency,
  createdAt: t.createdAt.toISOString(),
  lines: t.lines,
});

type Action = 'release' | 'refund' | 'dispute_open' | 'resolve_supplier' | 'resolve_client';

export type EscrowAdminService = ReturnType<typeof createEscrowAdminService>;

export function createEscrowAdminService(ctx: AppContext, deps: EscrowAdminDeps) {
  const now = () => ctx.clock.now();

  /** `payouts`: the order's payouts when the caller has them already. */
  async function view(ex: Executor, orderId: string, payouts?: PayoutRecord[]) {
    const row = await repo.escrowWithOrder(ex, orderId);
    if (!row) throw notFound('Escrow of this order');
    return toEscrowView(row, (payouts ?? (await deps.payouts.ofOrders(ex, [orderId])))[0]);
  }

  /** Tells the client and the supplier what an administrator decided, in the decision's transaction. */
  async function tellParties(tx: Executor, e: EscrowRecord, action: Action, reason: string) {
    const order = (await repo.orderFacts(tx, e.orderId))!;
    const supplierUser = (await deps.suppliers.findProfile(order.supplierId, tx))?.userId;
    const base = { orderId: e.orderId, amount: e.amount, currency: e.currency, reason };
    const source = { sourceKey: `escrow:${e.orderId}:${action}` };
    const both = async (
      type: 'escrow_released' | 'escrow_refunded' | 'escrow_disputed',
      extra: (forSupplier: boolean) => Record<string, unknown>,
    ) => {
      await deps.notifications.notify(tx, order.clientId, type, { ...base, ...extra(false) }, source);
      if (supplierUser)
        await deps.notifications.notify(tx, supplierUser, type, { ...base, ...extra(true), forSupplier: true }, source);
    };
    if (action === 'dispute_open') await both('escrow_disputed', () => ({}));
    else if (action === 'release' || action === 'resolve_supplier') {
      const { commission, net } = splitOf(e.amount, order.commissionBps);
      await both('escrow_released', (s) => (s ? { commission, net } : { forClient: true }));
    } else await both('escrow_refunded', () => ({}));
  }

  /** One administrator decision: the change, its audit row and the parties' notifications, in one transaction. */
  async function act(user: AuthUser, orderId: string, action: Action, reason: string) {
    return ctx.db.transaction(async (tx) => {
      let e: EscrowRecord;
      if (action === 'release') e = (await deps.releases.release(tx, orderId, 'RELEASED')).escrow;
      else if (action === 'resolve_supplier')
        e = (await deps.releases.release(tx, orderId, 'RESOLVED_SUPPLIER')).escrow;
      else if (action === 'dispute_open') e = await deps.releases.openDispute(tx, orderId, reason);
      else {
        // /refund takes a HELD escrow, /dispute/resolve-client a DISPUTED one: the table says which.
        const held = await deps.releases.lockEscrow(tx, orderId);
        assertTransition(
          ESCROW_TRANSITIONS,
          held.state,
          action === 'refund' ? 'REFUNDED' : 'RESOLVED_CLIENT',
          'Escrow',
        );
        e = await deps.escrow.refund(tx, orderId, reason, { userId: user.id, role: 'ADMIN' });
      }
      await recordAdminAction(tx, {
        actorId: user.id,
        action: `escrow.${action}`,
        targetType: AUDIT_TARGET,
        targetId: orderId,
        reason,
        data: { state: e.state, amount: e.amount },
        at: now(),
      });
      await tellParties(tx, e, action, reason);
      return view(tx, orderId);
    });
  }

  return {
    release: (user: AuthUser, orderId: string, reason: string) => act(user, orderId, 'release', reason),
    refund: (user: AuthUser, orderId: string, reason: string) => act(user, orderId, 'refund', reason),
    openDispute: (user: AuthUser, orderId: string, reason: string) => act(user, orderId, 'dispute_open', reason),
    resolveForSupplier: (user: AuthUser, orderId: string, reason: string) =>
      act(user, orderId, 'resolve_supplier', reason),
    resolveForClient: (user: AuthUser, orderId: string, reason: string) => act(user, orderId, 'resolve_client', reason),

    async list(q: EscrowListQuery) {
      const filter: repo.EscrowListFilter = {
        ...(q.state && { state: q.state }),
        ...(q.supplierId && { supplierId: q.supplierId }),
        ...(q.storeId && { storeId: q.storeId }),
        ...(q.from && { from: new Date(q.from) }),
        ...(q.to && { to: new Date(q.to) }),
        ...(q.payout && { payout: q.payout.toUpperCase() as PayoutState | 'NONE' }),
      };
      const { items, total } = await repo.listEscrows(ctx.db, filter, {
        limit: q.limit,
        offset: pageOffset(q),
        sort: q.sort,
      });
      const payouts = newestPerOrder(
        await deps.payouts.ofOrders(
          ctx.db,
          items.map((r) => r.escrow.orderId),
        ),
      );
      return { items: items.map((r) => toEscrowView(r, payouts.get(r.escrow.orderId))), meta: pageMeta(q, total) };
    },

    async get(orderId: string) {
      const payouts = await deps.payouts.ofOrders(ctx.db, [orderId]);
      const escrow = await view(ctx.db, orderId, payouts);
      const [payments, audit, orderTxs] = await Promise.all([
        deps.payments.listOfOrder(ctx.db, orderId),
        listAdminActions(ctx.db, AUDIT_TARGET, orderId),
        deps.ledger.transactionsFor(ctx.db, { type: 'order', id: orderId }),
      ]);
      // Refund confirmations are about the payment, payouts about themselves.
      const more = await Promise.all([
        ...payments.map((p) => deps.ledger.transactionsFor(ctx.db, { type: 'payment', id: p.id })),
        ...payouts.map((p) => deps.ledger.transactionsFor(ctx.db, { type: 'payout', id: p.id })),
      ]);
      const ledger = [...orderTxs, ...more.flat()].sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
      );
      const events = await repo.providerEventsOf(
        ctx.db,
        payments.map((p) => p.id),
      );
      return {
        escrow,
        payments: payments.map((p) => ({
          transactionId: p.id,
          attempt: p.attempt,
          method: p.method,
          status: p.status,
          amount: p.amount,
          currency: p.currency,
          providerSessionId: p.providerSessionId,
          paidAt: iso(p.paidAt),
          refundedAt: iso(p.refundedAt),
          refundFailedAt: iso(p.refundFailedAt),
          refundFailureReason: p.refundFailureReason,
        })),
        ledger: ledger.map(toLedgerView),
        providerEvents: events.map((e) => ({ ...e, receivedAt: e.receivedAt.toISOString() })),
        payouts: payouts.map(toPayoutView),
        audit: audit.map((a) => ({
          action: a.action,
          actorId: a.actorId,
          reason: a.reason,
          at: a.createdAt.toISOString(),
        })),
      };
    },
  };
}
