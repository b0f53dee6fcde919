import { and, asc, count, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { otpCodes, otpSends } from '../../db/schema/users.js';

export type OtpRecord = typeof otpCodes.$inferSelect;

/** Serialises sends to one destination so two requests cannot both pass the hourly limit. */
export async function lockDestination(ex: Executor, destination: string): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(hashtext(${`otp:${destination}`}))`);
}

export async function sendsSince(ex: Executor, destination: string, since: Date) {
  const [row] = await ex
    .select({ n: count(), first: sql<Date | string | null>`min(${otpSends.createdAt})` })
    .from(otpSends)
    .where(and(eq(otpSends.destination, destination), gt(otpSends.createdAt, since)));
  return { count: row?.n ?? 0, first: row?.first ? new Date(row.first) : null };
}

export async function recordSend(ex: Executor, id: string, destination: string, at: Date): Promise<void> {
  await ex.insert(otpSends).values({ id, destination, createdAt: at });
}

export async function closeOpenCodes(ex: Executor, destination: string, purpose: OtpRecord['purpose'], at: Date) {
  await ex
    .update(otpCodes)
    .set({ closedAt: at })
    .where(and(eq(otpCodes.destination, destination), eq(otpCodes.purpose, purpose), isNull(otpCodes.closedAt)));
}

export async function insertCode(ex: Executor, code: typeof otpCodes.$inferInsert): Promise<void> {
  await ex.insert(otpCodes).values(code);
}

export async function findOpenCode(ex: Executor, destination: string, purpose: OtpRecord['purpose']) {
  const [row] = await ex
    .select()
    .from(otpCodes)
    .where(and(eq(otpCodes.destination, destination), eq(otpCodes.purpose, purpose), isNull(otpCodes.closedAt)))
    .orderBy(desc(otpCodes.createdAt), asc(otpCodes.id))
    .limit(1);
  return row;
}

/**
 * Takes one of the code's tries before it is compared, in one statement: of any number of
 * simultaneous guesses at most `maxAttempts` get a row back, so no more are ever compared.
 */
export async function takeTry(ex: Executor, id: string, maxAttempts: number) {
  const [row] = await ex
    .update(otpCodes)
    .set({ attempts: sql`${otpCodes.attempts} + 1` })
    .where(and(eq(otpCodes.id, id), isNull(otpCodes.closedAt), lt(otpCodes.attempts, maxAttempts)))
    .returning({ attempts: otpCodes.attempts });
  return row?.attempts;
}

/** Gives back the try taken by a right code: only wrong codes use up the code's tries. */
export async function giveBackTry(ex: Executor, id: string): Promise<void> {
  await ex
    .update(otpCodes)
    .set({ attempts: sql`${otpCodes.attempts} - 1` })
    .where(and(eq(otpCodes.id, id), gt(otpCodes.attempts, 0)));
}

export async function closeCode(ex: Executor, id: string, at: Date): Promise<boolean> {
  const rows = await ex
    .update(otpCodes)
    .set({ closedAt: at })
    .where(and(eq(otpCodes.id, id), isNull(otpCodes.closedAt)))
    .returning({ id: otpCodes.id });
  return rows.length === 1;
}
