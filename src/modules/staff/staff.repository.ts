import { and, asc, count, desc, eq, gt, inArray, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { staffInvitations, storeMembers, type StoreMemberRole } from '../../db/schema/staff.js';
import { stores } from '../../db/schema/stores.js';
import { isLiveSupplier } from '../suppliers/index.js';

export type InvitationRecord = typeof staffInvitations.$inferSelect;
export type MemberRecord = typeof storeMembers.$inferSelect;

/** Where an invitation was sent: exactly one of the two. */
export type Contact = { phoneNumber: string; email?: undefined } | { email: string; phoneNumber?: undefined };

const contactIs = (c: Contact): SQL =>
  c.phoneNumber ? eq(staffInvitations.phoneNumber, c.phoneNumber) : eq(staffInvitations.email, c.email!);
const pendingAt = (now: Date) => and(eq(staffInvitations.status, 'PENDING'), gt(staffInvitations.expiresAt, now));
// A store that still exists: not deleted, and neither is its supplier's profile.
const liveStore = () => and(isNull(stores.deletedAt), isLiveSupplier(stores.supplierId));
const activeMember = (storeId: string, userId: string) =>
  and(eq(storeMembers.storeId, storeId), eq(storeMembers.userId, userId), isNull(storeMembers.removedAt));

// ---- invitations

export async function insertInvitation(
  ex: Executor,
  values: typeof staffInvitations.$inferInsert,
): Promise<InvitationRecord> {
  const [row] = await ex.insert(staffInvitations).values(values).returning();
  return row!;
}

export async function findInvitationByTokenHash(
  ex: Executor,
  tokenHash: string,
): Promise<InvitationRecord | undefined> {
  const [row] = await ex
    .select()
    .from(staffInvitations)
    .where(eq(staffInvitations.tokenHash, tokenHash))
    .for('update')
    .limit(1);
  return row;
}

export async function updateInvitation(
  ex: Executor,
  id: string,
  patch: Partial<InvitationRecord>,
): Promise<InvitationRecord> {
  const [row] = await ex.update(staffInvitations).set(patch).where(eq(staffInvitations.id, id)).returning();
  return row!;
}

/** Pending invitations past their date become EXPIRED, so a new one may be sent to the same person. */
export async function expireStale(ex: Executor, storeId: string, contact: Contact, now: Date): Promise<void> {
  await ex
    .update(staffInvitations)
    .set({ status: 'EXPIRED' })
    .where(
      and(
        eq(staffInvitations.storeId, storeId),
        contactIs(contact),
        eq(staffInvitations.status, 'PENDING'),
        lte(staffInvitations.expiresAt, now),
      ),
    );
}

export async function findPending(ex: Executor, storeId: string, contact: Contact, now: Date) {
  const [row] = await ex
    .select()
    .from(staffInvitations)
    .where(and(eq(staffInvitations.storeId, storeId), contactIs(contact), pendingAt(now)))
    .limit(1);
  return row;
}

export async function revokePendingForStore(ex: Executor, storeId: string, now: Date): Promise<void> {
  await ex
    .update(staffInvitations)
    .set({ status: 'REVOKED', respondedAt: now })
    .where(and(eq(staffInvitations.storeId, storeId), eq(staffInvitations.status, 'PENDING')));
}

/** Every pending invitation to the stores of a supplier whose profile is being deleted. */
export async function revokePendingForSupplier(ex: Executor, supplierId: string, now: Date): Promise<void> {
  await ex
    .update(staffInvitations)
    .set({ status: 'REVOKED', respondedAt: now })
    .where(
      and(
        eq(staffInvitations.status, 'PENDING'),
        inArray(
          staffInvitations.storeId,
          ex.select({ id: stores.id }).from(stores).where(eq(stores.supplierId, supplierId)),
        ),
      ),
    );
}

export async function listStorePendingInvitations(ex: Executor, storeId: string, now: Date) {
  return ex
    .select()
    .from(staffInvitations)
    .where(and(eq(staffInvitations.storeId, storeId), pendingAt(now)))
    .orderBy(asc(staffInvitations.createdAt), asc(staffInvitations.id));
}

/** Pending invitations sent to any of the user's verified contacts, on stores that still exist (and their supplier). */
export async function listPendingForContacts(
  ex: Executor,
  contacts: { phoneNumber: string | null; email: string | null },
  now: Date,
  limit: number,
  offset: number,
) {
  const matches = [
    contacts.phoneNumber ? eq(staffInvitations.phoneNumber, contacts.phoneNumber) : undefined,
    contacts.email ? eq(staffInvitations.email, contacts.email) : undefined,
  ].filter(Boolean) as SQL[];
  if (!matches.length) return { items: [], total: 0 };
  const where = and(or(...matches), pendingAt(now), liveStore());
  const items = await ex
    .select({ invitation: staffInvitations })
    .from(staffInvitations)
    .innerJoin(stores, eq(stores.id, staffInvitations.storeId))
    .where(where)
    .orderBy(desc(staffInvitations.createdAt), desc(staffInvitations.id))
    .limit(limit)
    .offset(offset);
  const [total] = await ex
    .select({ n: count() })
    .from(staffInvitations)
    .innerJoin(stores, eq(stores.id, staffInvitations.storeId))
    .where(where);
  return { items: items.map((r) => r.invitation), total: total?.n ?? 0 };
}

// ---- members

export async function findMember(ex: Executor, storeId: string, userId: string, opts: { lock?: boolean } = {}) {
  const q = ex.select().from(storeMembers).where(activeMember(storeId, userId)).limit(1);
  const [row] = opts.lock ? await q.for('update') : await q;
  return row;
}

export async function insertMember(ex: Executor, values: typeof storeMembers.$inferInsert): Promise<MemberRecord> {
  const [row] = await ex.insert(storeMembers).values(values).returning();
  return row!;
}

export async function updateMember(ex: Executor, id: string, patch: Partial<MemberRecord>): Promise<MemberRecord> {
  const [row] = await ex.update(storeMembers).set(patch).where(eq(storeMembers.id, id)).returning();
  return row!;
}

export async function listStoreMembers(ex: Executor, storeId: string): Promise<MemberRecord[]> {
  return ex
    .select()
    .from(storeMembers)
    .where(and(eq(storeMembers.storeId, storeId), isNull(storeMembers.removedAt)))
    .orderBy(asc(storeMembers.createdAt), asc(storeMembers.id));
}

/** The user's memberships on stores that still exist (and their supplier), newest first. */
export async function listUserMemberships(ex: Executor, userId: string, limit: number, offset: number) {
  const where = and(eq(storeMembers.userId, userId), isNull(storeMembers.removedAt), liveStore());
  const items = await ex
    .select({ member: storeMembers })
    .from(storeMembers)
    .innerJoin(stores, eq(stores.id, storeMembers.storeId))
    .where(where)
    .orderBy(desc(storeMembers.createdAt), desc(storeMembers.id))
    .limit(limit)
    .offset(offset);
  const [total] = await ex
    .select({ n: count() })
    .from(storeMembers)
    .innerJoin(stores, eq(stores.id, storeMembers.storeId))
    .where(where);
  return { items: items.map((r) => r.member), total: total?.n ?? 0 };
}

export async function memberRole(ex: Executor, storeId: string, userId: string): Promise<StoreMemberRole | null> {
  const [row] = await ex
    .select({ role: storeMembers.role })
    .from(storeMembers)
    .where(activeMember(storeId, userId))
    .limit(1);
  return row?.role ?? null;
}

export async function staffCounts(ex: Executor, storeId: string, now: Date) {
  const [members] = await ex
    .select({
      members: count(),
      managers: sql<number>`count(*) filter (where ${storeMembers.role} = 'MANAGER')`.mapWith(Number),
      staff: sql<number>`count(*) filter (where ${storeMembers.role} = 'STAFF')`.mapWith(Number),
    })
    .from(storeMembers)
    .where(and(eq(storeMembers.storeId, storeId), isNull(storeMembers.removedAt)));
  const [pending] = await ex
    .select({ n: count() })
    .from(staffInvitations)
    .where(and(eq(staffInvitations.storeId, storeId), pendingAt(now)));
  return {
    members: members?.members ?? 0,
    managers: members?.managers ?? 0,
    staff: members?.staff ?? 0,
    pendingInvitations: pending?.n ?? 0,
  };
}

/** The live stores the user is an active member of, with the role held on each. */
export async function memberStores(
  ex: Executor,
  userId: string,
): Promise<{ storeId: string; role: StoreMemberRole }[]> {
  return ex
    .select({ storeId: storeMembers.storeId, role: storeMembers.role })
    .from(storeMembers)
    .innerJoin(stores, eq(stores.id, storeMembers.storeId))
    .where(and(eq(storeMembers.userId, userId), isNull(storeMembers.removedAt), liveStore()));
}
