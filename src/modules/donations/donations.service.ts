import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { FoodDonationStatus } from '../../db/schema/donations.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound, validationError, type ErrorDetail } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset, type PageQuery } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import type { AssociationsApi } from '../associations/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { FinancialService } from './financial.service.js';
import type { ProductsApi } from '../products/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import { requireFeature, type SettingsReader } from '../settings/index.js';
import {
  FOOD_DONATION_TRANSITIONS,
  GIVES_STOCK_BACK,
  MOVED_BY,
  OPEN_STATUSES,
  type DonationParty,
} from './donation-status.js';
import * as figures from './donations.figures.js';
import * as repo from './donations.repository.js';
import type { DonationRecord } from './donations.repository.js';
import type { AssociationStatsView, CreateFoodBody, ListQuery, MyStatsView } from './donations.schemas.js';
import { DONATION_CURRENCY } from './financial.service.js';
import { toDetailView, toDonationView } from './donations.views.js';

/** Conversion factors of the impact figures (docs/donations.md). */
export const GRAMS_PER_MEAL = 420;
export const CO2E_KG_PER_KG = 2.5;
/** How far ahead a pickup window may start. */
const MAX_WINDOW_LEAD_MS = 30 * 24 * 60 * 60 * 1000;

export interface DonationsDeps {
  products: ProductsApi;
  suppliers: SuppliersApi;
  associations: AssociationsApi;
  notifications: NotificationsApi;
  financial: FinancialService;
  settings: SettingsReader;
}

export interface MoveInput {
  reason?: string;
  pickupAt?: string;
  note?: string;
}

export type DonationsService = ReturnType<typeof createDonationsService>;

export function createDonationsService(ctx: AppContext, deps: DonationsDeps) {
  const now = () => ctx.clock.now();
  const invalid = (details: ErrorDetail[]) =>
    new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', details);

  // A supplier or product with units held by open donations cannot be deleted.
  ctx.workInProgress.register(async (ex, scope) => {
    if ('storeId' in scope) return null;
    const n = await repo.openCount(ex, scope);
    return n ? `${n} food donation${n > 1 ? 's' : ''} in progress` : null;
  });

  const stockLines = (items: { productId: string | null; quantity: number }[]) =>
    items.filter((i) => i.productId).map((i) => ({ productId: i.productId!, quantity: i.quantity }));

  async function detail(ex: Executor, d: DonationRecord, viewerId: string) {
    // The payment is the donor's business (its link, its failure); the association sees the donation only.
    const payment =
      d.kind === 'FINANCIAL' && viewerId === d.donorUserId ? await deps.financial.paymentOf(ex, d.id) : null;
    return toDetailView(d, await repo.itemsOf(ex, [d.id]), await repo.historyOf(ex, d.id), viewerId, payment);
  }

  async function page(viewerId: string, f: repo.ListFilter, q: PageQuery, order: 'newest' | 'pickup' = 'newest') {
    const { items, total } = await repo.list(ctx.db, f, { limit: q.limit, offset: pageOffset(q) }, order);
    const lines = await repo.itemsOf(
      ctx.db,
      items.map((d) => d.id),
    );
    return { items: items.map((d) => toDonationView(d, lines, viewerId)), meta: pageMeta(q, total) };
  }

  /** The caller's part in a donation; someone with none is told it does not exist. */
  async function partyOf(
    ex: Executor,
    user: AuthUser,
    d: DonationRecord,
  ): Promise<{ party: DonationParty; associationUserId: string }> {
    const association = await deps.associations.findById(d.associationId, ex);
    if (d.donorUserId === user.id) return { party: 'DONOR', associationUserId: association!.userId };
    if (association?.userId === user.id) return { party: 'ASSOCIATION', associationUserId: association.userId };
    throw notFound('Donation');
  }

  /** Checks the items' form: a catalog product, or a named item with its unit weight. */
  function checkItems(body: CreateFoodBody) {
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    body.items.forEach((item, n) => {
      const at = `body.items.${n}`;
      if (item.productId) {
        if (item.name !== undefined)
          details.push({ field: `${at}.name`, message: 'is not allowed with productId (the product gives its name)' });
        if (item.unitWeightGrams !== undefined)
          details.push({
            field: `${at}.unitWeightGrams`,
            message: 'is not allowed with productId (the product gives its weight)',
          });
        if (seen.has(item.productId))
          details.push({ field: `${at}.productId`, message: 'is given twice; put the whole quantity on one line' });
        seen.add(item.productId);
      } else {
        if (item.name === undefined) details.push({ field: `${at}.name`, message: 'is required without productId' });
        if (item.unitWeightGrams === undefined)
          details.push({ field: `${at}.unitWeightGrams`, message: 'is required without productId' });
      }
    });
    const start = new Date(body.pickupWindowStart);
    const end = new Date(body.pickupWindowEnd);
    if (end <= start) details.push({ field: 'body.pickupWindowEnd', message: 'must be after pickupWindowStart' });
    else if (end <= now()) details.push({ field: 'body.pickupWindowEnd', message: 'must be in the future' });
    if (start.getTime() > now().getTime() + MAX_WINDOW_LEAD_MS)
      details.push({ field: 'body.pickupWindowStart', message: 'must be within 30 days' });
    if (details.length) throw invalid(details);
    return { start, end };
  }

  async function move(user: AuthUser, donationId: string, to: FoodDonationStatus, input: MoveInput = {}) {
    return ctx.db.transaction(async (tx) => {
      const d = await repo.find(tx, donationId, true);
      if (!d) throw notFound('Donation');
      const { party, associationUserId } = await partyOf(tx, user, d);
      // A financial donation moves with its payment; its donor may only cancel it (see `cancel`).
      if (d.kind !== 'FOOD')
        throw conflict('INVALID_TRANSITION', `A financial donation cannot be moved to ${to}: it follows its payment`);
      const from = d.status as FoodDonationStatus;
      if (MOVED_BY[to] !== party) {
        throw new AppError(
          403,
          'FORBIDDEN',
          `Only the ${MOVED_BY[to] === 'DONOR' ? 'donor' : 'receiving association'} may move a donation to ${to}`,
        );
      }
      assertTransition(FOOD_DONATION_TRANSITIONS, from, to, 'Donation status');
      const at = now();
      const patch: Partial<repo.NewDonation> = { status: to, updatedAt: at };
      if (to === 'PICKUP_SCHEDULED') {
        if (!input.pickupAt) throw validationError('body.pickupAt', 'is required to schedule the pickup');
        const pickupAt = new Date(input.pickupAt);
        if (pickupAt < d.pickupWindowStart! || pickupAt > d.pickupWindowEnd!) {
          throw validationError(
            'body.pickupAt',
            `must be within the pickup window (${d.pickupWindowStart!.toISOString()} to ${d.pickupWindowEnd!.toISOString()})`,
          );
        }
        Object.assign(patch, { scheduledPickupAt: pickupAt, pickupNote: input.note ?? null });
      }
      if (to === 'COLLECTED') patch.collectedAt = at;
      if (GIVES_STOCK_BACK.includes(to)) patch.closingReason = input.reason ?? null;
      const items = await repo.itemsOf(tx, [d.id]);
      if (GIVES_STOCK_BACK.includes(to)) await deps.products.releaseStock(tx, stockLines(items));
      if (to === 'COLLECTED') await deps.products.markDonated(tx, stockLines(items));
      const row = await repo.update(tx, d.id, patch);
      await repo.addHistory(tx, {
        id: uuidv7(at.getTime()),
        donationId: d.id,
        fromStatus: from,
        toStatus: to,
        actorId: user.id,
        reason: input.reason ?? null,
        at,
      });
      const other = party === 'DONOR' ? associationUserId : d.donorUserId;
      await deps.notifications.notify(tx, other, 'donation_status_changed', {
        donationId: d.id,
        status: to,
        ...(row.scheduledPickupAt && to === 'PICKUP_SCHEDULED' && { pickupAt: row.scheduledPickupAt.toISOString() }),
        ...(input.reason && { reason: input.reason }),
      });
      return detail(tx, row, user.id);
    });
  }

  async function ownAssociation(user: AuthUser) {
    return deps.associations.requireOwn(user.id);
  }

  return {
    /** Dashboard and impact figures from this module's own tables (docs/analytics.md). */
    figures,
    /** A supplier gives catalog products (taken from stock) and free-form items to a verified association. */
    async createFood(user: AuthUser, body: CreateFoodBody) {
      await requireFeature(deps.settings, 'donationsEnabled');
      const window = checkItems(body);
      const supplier = await deps.suppliers.requireOwnProfile(user.id);
      return ctx.db.transaction(async (tx) => {
        const association = await deps.associations.requirePublic(body.associationId, tx).catch((err: unknown) => {
          if (err instanceof AppError && err.statusCode === 404)
            throw new AppError(404, 'NOT_FOUND', 'Association not found', [
              { field: 'body.associationId', message: 'no verified association with this id' },
            ]);
          throw err;
        });
        const at = now();
        const ids = body.items.flatMap((i) => (i.productId ? [i.productId] : []));
        const found = new Map((await deps.products.findForOrder(tx, ids)).map((r) => [r.product.id, r.product]));
        const donationId = uuidv7(at.getTime());
        const problems: ErrorDetail[] = [];
        const items = body.items.map((item, n) => {
          if (!item.productId)
            return {
              id: uuidv7(at.getTime()),
              donationId,
              productId: null,
              name: item.name!,
              quantity: item.quantity,
              unitWeightGrams: item.unitWeightGrams!,
            };
          const p = found.get(item.productId);
          if (!p || p.status === 'DELETED' || p.supplierId !== supplier.id) {
            throw new AppError(404, 'NOT_FOUND', 'Product not found', [
              { field: `body.items.${n}.productId`, message: 'no such product in your catalog' },
            ]);
          }
          if (p.expiresAt <= at)
            problems.push({
              field: `body.items.${n}.productId`,
              message: `${p.name} expired at ${p.expiresAt.toISOString()}`,
            });
          return {
            id: uuidv7(at.getTime()),
            donationId,
            productId: p.id,
            name: p.name,
            quantity: item.quantity,
            unitWeightGrams: p.unitWeightGrams,
          };
        });
        if (problems.length) throw new AppError(409, 'PRODUCT_EXPIRED', 'Expired food cannot be donated', problems);
        const totalWeightGrams = items.reduce((s, i) => s + i.quantity * i.unitWeightGrams, 0);
        if (totalWeightGrams > association.pickupCapacityKg * 1000) {
          throw conflict(
            'ABOVE_PICKUP_CAPACITY',
            `The donation weighs ${totalWeightGrams / 1000} kg; this association collects at most ${association.pickupCapacityKg} kg at a time`,
          );
        }
        const { donation, items: rows } = await repo.insert(
          tx,
          {
            id: donationId,
            kind: 'FOOD',
            donorUserId: user.id,
            supplierId: supplier.id,
            associationId: association.id,
            status: 'PENDING',
            totalWeightGrams,
            message: body.message ?? null,
            pickupWindowStart: window.start,
            pickupWindowEnd: window.end,
            createdAt: at,
            updatedAt: at,
          },
          items,
        );
        // Taken last, in product-id order, so concurrent donations wait for each other only here;
        // short of stock, everything above rolls back with the refusal.
        const short = new Set(await deps.products.reserveStock(tx, stockLines(items)));
        if (short.size) {
          const missing = items.map((i, n) => ({ i, n })).filter(({ i }) => i.productId && short.has(i.productId));
          throw new AppError(
            409,
            'INSUFFICIENT_STOCK',
            `Not enough stock of ${missing.map(({ i }) => i.name).join(', ')}`,
            missing.map(({ i, n }) => ({
              field: `body.items.${n}.quantity`,
              message: `${i.name}: not enough stock for ${i.quantity}`,
            })),
          );
        }
        await repo.addHistory(tx, {
          id: uuidv7(at.getTime()),
          donationId,
          fromStatus: null,
          toStatus: 'PENDING',
          actorId: user.id,
          reason: null,
          at,
        });
        await deps.notifications.notify(tx, association.userId, 'donation_received', {
          donationId,
          supplierName: supplier.businessName,
          weightKg: totalWeightGrams / 1000,
        });
        return toDetailView(donation, rows, await repo.historyOf(tx, donationId), user.id);
      });
    },

    async get(user: AuthUser, donationId: string) {
      const d = await repo.find(ctx.db, donationId);
      if (!d) throw notFound('Donation');
      await partyOf(ctx.db, user, d);
      return detail(ctx.db, d, user.id);
    },

    mine: (user: AuthUser, q: ListQuery) =>
      page(user.id, { donorUserId: user.id, statuses: q.status && [q.status], kind: q.kind }, q),

    /** A food donation goes back to stock; a financial one is cancelled only before it is paid (its payment is closed). */
    async cancel(user: AuthUser, id: string, reason?: string) {
      const kind = (await repo.find(ctx.db, id))?.kind;
      if (kind !== 'FINANCIAL') return move(user, id, 'CANCELLED', { reason });
      return ctx.db.transaction(async (tx) => {
        const d = await repo.find(tx, id, true);
        if (!d) throw notFound('Donation');
        const { associationUserId } = await partyOf(tx, user, d);
        const row = await deps.financial.cancel(tx, d, user, reason);
        await deps.notifications.notify(tx, associationUserId, 'donation_status_changed', {
          donationId: d.id,
          status: 'CANCELLED',
          ...(reason && { reason }),
        });
        return detail(tx, row, user.id);
      });
    },

    /** A financial donation with its payment, as its donor sees it right after creating it. */
    async financialAnswer(user: AuthUser, r: { donationId: string }) {
      const d = (await repo.find(ctx.db, r.donationId))!;
      const view = await detail(ctx.db, d, user.id);
      return { donation: view, payment: view.payment };
    },

    /** What the caller gave: counts, amounts, kg, and the impact of the food collected. */
    async myStats(user: AuthUser): Promise<MyStatsView> {
      const s = await repo.donorStatistics(ctx.db, user.id);
      const grams = s.food.grams;
      return {
        donations: s.total,
        food: { collected: s.food.n, kg: grams / 1000 },
        financial: s.money.map((m) => ({ currency: m.currency, count: m.n, amount: m.amount })),
        impact: {
          kgSaved: grams / 1000,
          mealsEquivalent: Math.floor(grams / GRAMS_PER_MEAL),
          co2eAvoidedKg: Math.round(grams * CO2E_KG_PER_KG) / 1000,
        },
        generatedAt: now().toISOString(),
      };
    },
    schedulePickup: (user: AuthUser, id: string, body: { pickupAt: string; note?: string }) =>
      move(user, id, 'PICKUP_SCHEDULED', body),
    confirmPickup: (user: AuthUser, id: string) => move(user, id, 'COLLECTED'),
    setStatus(user: AuthUser, id: string, body: { status: FoodDonationStatus } & MoveInput) {
      return body.status === 'CANCELLED' ? this.cancel(user, id, body.reason) : move(user, id, body.status, body);
    },

    // ---- the receiving association

    // A financial donation reaches the association's lists once paid: an unpaid one is nothing received yet.
    received: async (user: AuthUser, q: ListQuery) =>
      page(
        user.id,
        {
          associationId: (await ownAssociation(user)).id,
          kind: q.kind,
          statuses: q.status && [q.status],
          receivedOnly: true,
        },
        q,
      ),

    pendingPickups: async (user: AuthUser, q: PageQuery) =>
      page(
        user.id,
        {
          associationId: (await ownAssociation(user)).id,
          kind: 'FOOD',
          statuses: OPEN_STATUSES.filter((s) => s !== 'PENDING'),
        },
        q,
        'pickup',
      ),

    async associationStats(user: AuthUser, months: number): Promise<AssociationStatsView> {
      const a = await ownAssociation(user);
      const at = now();
      const since = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - (months - 1), 1));
      const [s, money] = await Promise.all([
        repo.associationStatistics(ctx.db, a.id, since),
        repo.associationMoney(ctx.db, a.id, since),
      ]);
      const byMonth = [];
      for (let i = 0; i < months; i++) {
        const m = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth() + i, 1)).toISOString().slice(0, 7);
        const c = s.collected.find((x) => x.month === m);
        byMonth.push({
          month: m,
          received: s.received.find((x) => x.month === m)?.n ?? 0,
          collected: c?.n ?? 0,
          kgCollected: (c?.grams ?? 0) / 1000,
          amountReceived: money.byMonth.find((x) => x.month === m)?.amount ?? 0,
        });
      }
      const grams = s.totals.grams;
      return {
        associationId: a.id,
        received: s.byStatus.reduce((sum, r) => sum + r.n, 0),
        byStatus: Object.fromEntries(s.byStatus.map((r) => [r.status, r.n])),
        financial: { count: money.totals.n, amount: money.totals.amount, currency: DONATION_CURRENCY },
        collected: { count: s.totals.n, kg: grams / 1000 },
        byMonth,
        impact: {
          kgCollected: grams / 1000,
          mealsEquivalent: Math.floor(grams / GRAMS_PER_MEAL),
          co2eAvoidedKg: Math.round(grams * CO2E_KG_PER_KG) / 1000,
        },
        generatedAt: at.toISOString(),
      };
    },
  };
}
