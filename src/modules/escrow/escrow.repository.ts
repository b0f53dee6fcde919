import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { escrows, type EscrowState } from '../../db/schema/escrow.js';

export type EscrowRecord = typeof escrows.$inferSelect;
export type EscrowPatch = Partial<Omit<EscrowRecord, 'orderId' | 'paymentId' | 'amount' | 'currency' | 'heldAt'>>;

/** Inserts the order's escrow; undefined when the order already has one (a repeated delivery, or a second payment). */
export async function insertEscrow(
  ex: Executor,
  values: typeof escrows.$inferInsert,
): Promise<EscrowRecord | undefined> {
  const [row] = await ex.insert(escrows).values(values).onConflictDoNothing({ target: escrows.orderId }).returning();
  return row;
}

/** The order's escrow; `lock` takes its row until the transaction ends. */
export async function findEscrow(
  ex: Executor,
  orderId: string,
  opts: { lock?: boolean } = {},
): Promise<EscrowRecord | undefined> {
  const q = ex.select().from(escrows).where(eq(escrows.orderId, orderId)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

/** Moves an escrow from `from` to another state; undefined when it was no longer in `from` (a concurrent change). */
export async function moveEscrow(
  ex: Executor,
  orderId: string,
  from: EscrowState,
  patch: EscrowPatch & { state: EscrowState },
): Promise<EscrowRecord | undefined> {
  const [row] = await ex
    .update(escrows)
    .set(patch)
    .where(and(eq(escrows.orderId, orderId), eq(escrows.state, from)))
    .returning();
  return row;
}
