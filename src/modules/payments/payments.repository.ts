import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { placeholders, preparedPer, type Executor } from '../../db/client.js';
import {
  payments,
  providerEvents,
  type PaymentStatus,
  type PaymentSubjectType,
  type ProviderEventOutcome,
} from '../../db/schema/payments.js';

export type PaymentRecord = typeof payments.$inferSelect;

const NEW_PAYMENT_KEYS = [
  'id',
  'subjectType',
  'subjectId',
  'orderId',
  'attempt',
  'method',
  'amount',
  'currency',
  'payerPhone',
  'provider',
  'providerSessionId',
  'launchUrl',
  'createdAt',
  'updatedAt',
  'expiresAt',
] as const;
/** A new attempt: every key is sent (null when absent: no session yet). */
export type NewPayment = {
  [K in (typeof NEW_PAYMENT_KEYS)[number]]-?: Exclude<(typeof payments.$inferInsert)[K], undefined>;
};
// Every order inserts one: prepared.
const insertStatement = preparedPer((ex) =>
  ex.insert(payments).values(placeholders(NEW_PAYMENT_KEYS)).returning().prepare('payments_insert'),
);

export async function insertPayment(ex: Executor, values: NewPayment): Promise<PaymentRecord> {
  const [row] = await insertStatement(ex).execute(values);
  return row!;
}

export async function findPayment(ex: Executor, id: string): Promise<PaymentRecord | undefined> {
  const [row] = await ex.select().from(payments).where(eq(payments.id, id)).limit(1);
  return row;
}

export interface PaymentSubject {
  type: PaymentSubjectType;
  id: string;
}
const ofSubject = (s: PaymentSubject) => and(eq(payments.subjectType, s.type), eq(payments.subjectId, s.id));

/** The next attempt number of a subject (1 for its first payment). */
export async function nextAttempt(ex: Executor, subject: PaymentSubject): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`coalesce(max(${payments.attempt}), 0)::int` })
    .from(payments)
    .where(ofSubject(subject));
  return (row?.n ?? 0) + 1;
}

/** Every attempt of a subject, latest first. */
export function listOfSubject(ex: Executor, subject: PaymentSubject): Promise<PaymentRecord[]> {
  return ex.select().from(payments).where(ofSubject(subject)).orderBy(desc(payments.attempt));
}

/** Every attempt of an order, latest first. */
export function listOfOrder(ex: Executor, orderId: string): Promise<PaymentRecord[]> {
  return ex.select().from(payments).where(eq(payments.orderId, orderId)).orderBy(desc(payments.attempt));
}

/** The latest attempt of each order, and how many attempts each has. */
export async function latestOfOrders(
  ex: Executor,
  orderIds: readonly string[],
): Promise<Map<string, { payment: PaymentRecord; attempts: number }>> {
  if (!orderIds.length) return new Map();
  const rows = await ex
    .select()
    .from(payments)
    .where(inArray(payments.orderId, [...orderIds]))
    .orderBy(payments.orderId, desc(payments.attempt));
  const out = new Map<string, { payment: PaymentRecord; attempts: number }>();
  for (const p of rows) {
    const seen = out.get(p.orderId!);
    if (seen) seen.attempts++;
    else out.set(p.orderId!, { payment: p, attempts: 1 });
  }
  return out;
}

/** The latest attempt of each subject of a type (a page of bookings shows each one's payment). */
export async function latestOfSubjects(
  ex: Executor,
  type: PaymentSubjectType,
  ids: readonly string[],
): Promise<Map<string, PaymentRecord>> {
  if (!ids.length) return new Map();
  const rows = await ex
    .select()
    .from(payments)
    .where(and(eq(payments.subjectType, type), inArray(payments.subjectId, [...ids])))
    .orderBy(payments.subjectId, desc(payments.attempt));
  const out = new Map<string, PaymentRecord>();
  for (const p of rows) if (!out.has(p.subjectId)) out.set(p.subjectId, p);
  return out;
}

/** Stores the provider session of a payment still waiting for one; undefined when it no longer is. */
export async function setSession(
  ex: Executor,
  id: string,
  s: { provider: string; providerSessionId: string; launchUrl: string; expiresAt: Date },
  now: Date,
): Promise<PaymentRecord | undefined> {
  const [row] = await ex
    .update(payments)
    .set({ ...s, updatedAt: now })
    .where(and(eq(payments.id, id), eq(payments.status, 'PENDING'), isNull(payments.providerSessionId)))
    .returning();
  return row;
}

/**
 * Records the session a provider event names for a payment that has none stored, whatever its
 * state: it was opened at the provider but not saved (the process stopped in between).
 */
export async function adoptSession(
  ex: Executor,
  id: string,
  s: { provider: string; providerSessionId: string; launchUrl: string },
  now: Date,
): Promise<PaymentRecord | undefined> {
  const [row] = await ex
    .update(payments)
    .set({ ...s, updatedAt: now })
    .where(and(eq(payments.id, id), isNull(payments.providerSessionId)))
    .returning();
  return row;
}

/** Closes the subject's waiting payment (an order cancelled or timed out, a charge abandoned). */
export function closePending(
  ex: Executor,
  subject: PaymentSubject,
  status: 'CANCELLED' | 'EXPIRED',
  now: Date,
): Promise<PaymentRecord[]> {
  return ex
    .update(payments)
    .set({ status, updatedAt: now })
    .where(and(ofSubject(subject), eq(payments.status, 'PENDING')))
    .returning();
}

/** The subject's refused attempts whose provider page is still open (the payer could pay them still). */
export function failedWithSession(ex: Executor, subject: PaymentSubject): Promise<PaymentRecord[]> {
  return ex
    .select()
    .from(payments)
    .where(and(ofSubject(subject), eq(payments.status, 'FAILED'), isNotNull(payments.providerSessionId)));
}

/** The payment row, locked until the transaction ends (callers lock the subject first: subject, then payment). */
export async function lockPayment(ex: Executor, id: string): Promise<PaymentRecord | undefined> {
  const [row] = await ex.select().from(payments).where(eq(payments.id, id)).limit(1).for('update');
  return row;
}

/** Moves a payment from `from` to `patch.status`; undefined when it was no longer in `from`. */
export async function transition(
  ex: Executor,
  id: string,
  from: PaymentStatus,
  patch: Partial<Omit<PaymentRecord, 'id' | 'orderId' | 'subjectType' | 'subjectId'>> & { status: PaymentStatus },
  now: Date,
): Promise<PaymentRecord | undefined> {
  const [row] = await ex
    .update(payments)
    .set({ ...patch, updatedAt: now })
    .where(and(eq(payments.id, id), eq(payments.status, from)))
    .returning();
  return row;
}

export async function markRefundFailed(ex: Executor, id: string, reason: string, now: Date): Promise<void> {
  await ex
    .update(payments)
    .set({ refundFailedAt: now, refundFailureReason: reason, updatedAt: now })
    .where(and(eq(payments.id, id), eq(payments.status, 'REFUND_PENDING')));
}

/** Attempts whose provider session may have moved without telling us, oldest first. */
export function toReconcile(ex: Executor, createdBefore: Date, limit: number): Promise<PaymentRecord[]> {
  return ex
    .select()
    .from(payments)
    .where(
      and(
        inArray(payments.status, ['PENDING', 'FAILED']),
        lt(payments.createdAt, createdBefore),
        isNotNull(payments.providerSessionId),
      ),
    )
    .orderBy(asc(payments.createdAt))
    .limit(limit);
}

/** Records a provider event under its id; false when it was recorded before (a repeated delivery). */
export async function insertProviderEvent(ex: Executor, e: typeof providerEvents.$inferInsert): Promise<boolean> {
  const rows = await ex
    .insert(providerEvents)
    .values(e)
    .onConflictDoNothing({ target: providerEvents.id })
    .returning({ id: providerEvents.id });
  return rows.length > 0;
}

export async function setEventOutcome(
  ex: Executor,
  id: string,
  outcome: ProviderEventOutcome,
  paymentId: string | null,
): Promise<void> {
  await ex.update(providerEvents).set({ outcome, paymentId }).where(eq(providerEvents.id, id));
}

export async function findProviderEvent(ex: Executor, id: string) {
  const [row] = await ex.select().from(providerEvents).where(eq(providerEvents.id, id)).limit(1);
  return row;
}

/** Refunds the provider refused for good, newest first. */
export function refundFailures(ex: Executor, limit = 100): Promise<PaymentRecord[]> {
  return ex
    .select()
    .from(payments)
    .where(isNotNull(payments.refundFailedAt))
    .orderBy(desc(payments.refundFailedAt))
    .limit(limit);
}
