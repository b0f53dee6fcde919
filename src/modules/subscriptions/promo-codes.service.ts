import { randomInt } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { commissionOf } from '../../shared/money.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { recordAdminAction } from '../audit/index.js';
import * as promoRepo from './promo-codes.repository.js';
import type { PromoRecord } from './promo-codes.repository.js';
import * as repo from './subscriptions.repository.js';
import type { PlanRecord } from './subscriptions.repository.js';
import type {
  BulkPromoBody,
  CreatePromoBody,
  PromoListQuery,
  PromoReason,
  UpdatePromoBody,
} from './subscriptions.schemas.js';

/**
 * Bulk codes: 10 characters from 31 that cannot be mistaken for one another (no 0/O, 1/I/L):
 * 31^10 is about 2^49.5 codes, far beyond guessing through a rate-limited validation route.
 */
export const BULK_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const BULK_CODE_LENGTH = 10;

export interface Quote {
  valid: boolean;
  reason: PromoReason | null;
  listPrice: number;
  discountAmount: number;
  price: number;
  currency: string;
}

export type PromoCodesService = ReturnType<typeof createPromoCodesService>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const toPublicPromo = (p: PromoRecord) => ({
  code: p.code,
  description: p.description,
  discountBps: p.discountBps,
  discountAmount: p.discountAmount,
  currency: p.currency,
  planIds: p.planIds,
  validUntil: iso(p.validUntil),
  firstSubscriptionOnly: p.firstSubscriptionOnly,
});

export const toPromoView = (p: PromoRecord) => ({
  ...toPublicPromo(p),
  id: p.id,
  validFrom: iso(p.validFrom),
  maxUses: p.maxUses,
  maxUsesPerSupplier: p.maxUsesPerSupplier,
  isPublic: p.isPublic,
  disabled: p.disabledAt !== null,
  disabledAt: iso(p.disabledAt),
  usesCount: p.usesCount,
  batchId: p.batchId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

function randomCode(prefix: string | undefined): string {
  let s = '';
  for (let i = 0; i < BULK_CODE_LENGTH; i++) s += BULK_ALPHABET[randomInt(BULK_ALPHABET.length)];
  return prefix ? `${prefix.toUpperCase()}-${s}` : s;
}

/** The discount of `promo` on `price` (never more than the price), halves rounded up for percentages. */
export const discountOf = (promo: PromoRecord, price: number) =>
  Math.min(price, promo.discountBps !== null ? commissionOf(price, promo.discountBps) : promo.discountAmount!);

/**
 * Promo codes: administration, and the rules that say whether a code applies to a plan for a supplier.
 * A code's uses are the charges naming it that are waiting for payment (a reservation) or paid; the
 * billing code evaluates a code under its row lock, so two suppliers racing for the last use get one.
 */
export function createPromoCodesService(ctx: AppContext) {
  const now = () => ctx.clock.now();

  /** Why `promo` does not apply to `plan` for the supplier now, or null when it does. `uses` counts waiting and paid charges. */
  async function refusal(
    ex: Executor,
    promo: PromoRecord | undefined,
    plan: PlanRecord,
    supplierId: string,
  ): Promise<PromoReason | null> {
    if (!promo) return 'PROMO_NOT_FOUND';
    const t = now();
    if (promo.disabledAt) return 'PROMO_DISABLED';
    if (promo.validFrom && promo.validFrom > t) return 'PROMO_NOT_STARTED';
    if (promo.validUntil && promo.validUntil <= t) return 'PROMO_EXPIRED';
    if (
      plan.priceAmount === 0 ||
      (promo.planIds.length > 0 && !promo.planIds.includes(plan.id)) ||
      (promo.discountAmount !== null && promo.currency !== plan.currency)
    )
      return 'PROMO_NOT_APPLICABLE';
    if (promo.firstSubscriptionOnly && (await repo.hasPaidCharge(ex, supplierId)))
      return 'PROMO_FIRST_SUBSCRIPTION_ONLY';
    const uses = (await repo.promoUses(ex, [promo.id], supplierId)).get(promo.id) ?? { total: 0, bySupplier: 0 };
    if (promo.maxUses !== null && uses.total >= promo.maxUses) return 'PROMO_EXHAUSTED';
    if (promo.maxUsesPerSupplier !== null && uses.bySupplier >= promo.maxUsesPerSupplier)
      return 'PROMO_SUPPLIER_LIMIT_REACHED';
    return null;
  }

  function quoteOf(plan: PlanRecord, promo: PromoRecord | undefined, reason: PromoReason | null): Quote {
    const discountAmount = promo && !reason ? discountOf(promo, plan.priceAmount) : 0;
    return {
      valid: reason === null,
      reason,
      listPrice: plan.priceAmount,
      discountAmount,
      price: plan.priceAmount - discountAmount,
      currency: plan.currency,
    };
  }

  async function checkPlans(ex: Executor, planIds: string[] | undefined): Promise<void> {
    if (planIds?.length && (await repo.countPlans(ex, planIds)) !== planIds.length)
      throw validationError('body.planIds', 'names a plan that does not exist');
  }

  function checkShape(
    b: { discountBps?: number; discountAmount?: number; validFrom?: string | null; validUntil?: string | null },
    existing?: PromoRecord,
  ): void {
    const bps =
      b.discountBps !== undefined
        ? b.discountBps
        : b.discountAmount !== undefined
          ? null
          : (existing?.discountBps ?? null);
    const amount =
      b.discountAmount !== undefined
        ? b.discountAmount
        : b.discountBps !== undefined
          ? null
          : (existing?.discountAmount ?? null);
    if ((bps === null) === (amount === null))
      throw validationError('body.discountBps', 'give either discountBps or discountAmount');
    const from = b.validFrom !== undefined ? b.validFrom && new Date(b.validFrom) : existing?.validFrom;
    const until = b.validUntil !== undefined ? b.validUntil && new Date(b.validUntil) : existing?.validUntil;
    if (from && until && until <= from) throw validationError('body.validUntil', 'must be after validFrom');
  }

  const fieldsOf = (b: Omit<CreatePromoBody, 'code'>) => ({
    ...(b.description !== undefined && { description: b.description.trim() }),
    ...(b.discountBps !== undefined && { discountBps: b.discountBps, discountAmount: null }),
    ...(b.discountAmount !== undefined && { discountAmount: b.discountAmount, discountBps: null }),
    ...(b.planIds !== undefined && { planIds: b.planIds }),
    ...(b.validFrom !== undefined && { validFrom: b.validFrom ? new Date(b.validFrom) : null }),
    ...(b.validUntil !== undefined && { validUntil: b.validUntil ? new Date(b.validUntil) : null }),
    ...(b.maxUses !== undefined && { maxUses: b.maxUses }),
    ...(b.maxUsesPerSupplier !== undefined && { maxUsesPerSupplier: b.maxUsesPerSupplier }),
    ...(b.firstSubscriptionOnly !== undefined && { firstSubscriptionOnly: b.firstSubscriptionOnly }),
    ...(b.isPublic !== undefined && { isPublic: b.isPublic }),
  });

  return {
    refusal,
    quoteOf,
    findByCode: promoRepo.findPromoByCode,
    lock: promoRepo.lockPromo,
    countUse: (ex: Executor, id: string) => promoRepo.countUse(ex, id, now()),

    /** `validate {code, planId}`: the price the supplier would pay, or why the code does not apply. */
    async quote(supplierId: string, plan: PlanRecord, code: string): Promise<Quote> {
      const promo = await promoRepo.findPromoByCode(ctx.db, code);
      return quoteOf(plan, promo, await refusal(ctx.db, promo, plan, supplierId));
    },

    /** Public codes this supplier could use now on some plan (uses left, its own limit, first subscription). */
    async available(supplierId: string) {
      const codes = await promoRepo.publicValid(ctx.db, now(), 100);
      const [uses, paidBefore] = await Promise.all([
        repo.promoUses(
          ctx.db,
          codes.map((c) => c.id),
          supplierId,
        ),
        repo.hasPaidCharge(ctx.db, supplierId),
      ]);
      return codes
        .filter((c) => {
          const u = uses.get(c.id) ?? { total: 0, bySupplier: 0 };
          return (
            (c.maxUses === null || u.total < c.maxUses) &&
            (c.maxUsesPerSupplier === null || u.bySupplier < c.maxUsesPerSupplier) &&
            !(c.firstSubscriptionOnly && paidBefore)
          );
        })
        .map(toPublicPromo);
    },

    async list(q: PromoListQuery) {
      const { rows, total } = await promoRepo.listPromos(ctx.db, q, {
        limit: q.limit,
        offset: pageOffset(q),
        sort: q.sort,
      });
      return { data: rows.map(toPromoView), meta: pageMeta(q, total) };
    },

    async create(admin: AuthUser, body: CreatePromoBody) {
      checkShape(body);
      const t = now();
      const created = await ctx.db.transaction(async (tx) => {
        await checkPlans(tx, body.planIds);
        const [row] = await promoRepo.insertPromos(tx, [
          {
            id: uuidv7(t.getTime()),
            code: body.code,
            ...fieldsOf(body),
            createdBy: admin.id,
            createdAt: t,
            updatedAt: t,
          },
        ]);
        if (!row)
          throw new AppError(
            409,
            'ALREADY_EXISTS',
            `The code ${body.code} exists (codes are compared whatever their case)`,
          );
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'promo_code.created',
          targetType: 'promo_code',
          targetId: row.id,
          data: { code: row.code },
          at: t,
        });
        return row;
      });
      return toPromoView(created);
    },

    /** N new codes sharing a batch id: all are created or none (a taken code is drawn again). */
    async createBulk(admin: AuthUser, body: BulkPromoBody) {
      checkShape(body);
      const t = now();
      const batchId = uuidv7(t.getTime());
      const { prefix, count, ...rest } = body;
      const rows = await ctx.db.transaction(async (tx) => {
        await checkPlans(tx, rest.planIds);
        const made: PromoRecord[] = [];
        for (let round = 0; made.length < count; round++) {
          if (round > 5) throw new Error('could not draw free promo codes');
          const wanted = new Set<string>();
          while (wanted.size < count - made.length) wanted.add(randomCode(prefix));
          made.push(
            ...(await promoRepo.insertPromos(
              tx,
              [...wanted].map((code) => ({
                id: uuidv7(),
                code,
                ...fieldsOf(rest),
                batchId,
                createdBy: admin.id,
                createdAt: t,
                updatedAt: t,
              })),
            )),
          );
        }
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'promo_code.bulk_created',
          targetType: 'promo_code_batch',
          targetId: batchId,
          data: { count, prefix: prefix ?? null },
          at: t,
        });
        return made;
      });
      return { batchId, count: rows.length, codes: rows.map((r) => r.code) };
    },

    async update(admin: AuthUser, id: string, body: UpdatePromoBody) {
      const t = now();
      const updated = await ctx.db.transaction(async (tx) => {
        const before = await promoRepo.lockPromo(tx, id);
        if (!before) throw notFound('Promo code');
        checkShape(body, before);
        await checkPlans(tx, body.planIds);
        const { disabled, ...rest } = body;
        const patch = {
          ...fieldsOf(rest),
          ...(disabled !== undefined && { disabledAt: disabled ? (before.disabledAt ?? t) : null }),
          updatedAt: t,
        };
        const after = (await promoRepo.updatePromo(tx, id, patch))!;
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'promo_code.updated',
          targetType: 'promo_code',
          targetId: id,
          data: { changes: body },
          at: t,
        });
        return after;
      });
      return toPromoView(updated);
    },

    async disable(admin: AuthUser, id: string) {
      const t = now();
      const row = await ctx.db.transaction(async (tx) => {
        const before = await promoRepo.lockPromo(tx, id);
        if (!before) throw notFound('Promo code');
        if (before.disabledAt) return before;
        const after = (await promoRepo.updatePromo(tx, id, { disabledAt: t, updatedAt: t }))!;
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'promo_code.disabled',
          targetType: 'promo_code',
          targetId: id,
          at: t,
        });
        return after;
      });
      return toPromoView(row);
    },

    /** A code some charge used (or reserves) stays, for the record: 409, disable it instead. */
    async remove(admin: AuthUser, id: string): Promise<void> {
      const t = now();
      await ctx.db.transaction(async (tx) => {
        const promo = await promoRepo.lockPromo(tx, id);
        if (!promo) throw notFound('Promo code');
        const used = await repo.chargesOfPromo(tx, id);
        if (used > 0)
          throw new AppError(
            409,
            'PROMO_CODE_USED',
            `${used} subscription charge(s) used this code: disable it instead`,
          );
        await promoRepo.deletePromo(tx, id);
        await recordAdminAction(tx, {
          actorId: admin.id,
          action: 'promo_code.deleted',
          targetType: 'promo_code',
          targetId: id,
          data: { code: promo.code },
          at: t,
        });
      });
    },
  };
}
