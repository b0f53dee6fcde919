import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { InvitationStatus, StoreMemberRole } from '../../db/schema/staff.js';
import type { AuthUser } from '../../http/access.js';
import { AppError, conflict, notFound, validationError } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { normalizeEmail, normalizePhone } from '../../shared/phone.js';
import { pageMeta, pageOffset, type PageQuery } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { STORE_ROLE_CAPABILITIES, type StoreCapability, type StoresApi } from '../stores/index.js';
import type { SuppliersApi } from '../suppliers/index.js';
import type { UsersApi } from '../users/index.js';
import { INVITATION_TRANSITIONS } from './invitation-status.js';
import type { StoreMembersService } from './members.service.js';
import * as repo from './staff.repository.js';
import type { Contact, InvitationRecord, MemberRecord } from './staff.repository.js';
import type {
  InvitationView,
  InviteBody,
  MemberView,
  MyInvitationView,
  MyRoleView,
  MyStoreView,
  StaffList,
} from './staff.schemas.js';

export const INVITATION_TTL_MS = 7 * 86_400_000;
/** Members plus pending invitations of one store: keeps the staff list short and invitations from being sprayed. */
export const MAX_STAFF_PER_STORE = 100;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const ROLE_WORDS: Record<StoreMemberRole, string> = { MANAGER: 'manager', STAFF: 'staff member' };

function toInvitationView(i: InvitationRecord): InvitationView {
  return {
    id: i.id,
    storeId: i.storeId,
    role: i.role,
    phoneNumber: i.phoneNumber,
    email: i.email,
    status: i.status,
    expiresAt: i.expiresAt.toISOString(),
    createdAt: i.createdAt.toISOString(),
  };
}

/** Exactly one of phoneNumber and email, normalised the way accounts store them. */
function contactOf(body: InviteBody): Contact {
  if (body.phoneNumber && body.email) throw validationError('body.email', 'give either phoneNumber or email, not both');
  if (body.phoneNumber) return { phoneNumber: normalizePhone(body.phoneNumber, 'body.phoneNumber') };
  if (body.email) return { email: normalizeEmail(body.email) };
  throw validationError('body.phoneNumber', 'give phoneNumber or email');
}

/** An invitation is for the person who holds, verified, the phone number or email it was sent to. */
function isFor(account: AuthUser['account'], i: InvitationRecord): boolean {
  if (i.phoneNumber) return account.phoneNumber === i.phoneNumber && account.verifiedAt !== null;
  return account.email === i.email && account.emailVerifiedAt !== null;
}

export type StaffService = ReturnType<typeof createStaffService>;

export function createStaffService(
  ctx: AppContext,
  deps: { stores: StoresApi; users: UsersApi; suppliers: SuppliersApi; members: StoreMembersService },
) {
  const now = () => ctx.clock.now();
  deps.suppliers.onProfileDeleted((tx, supplierId, at) =>
    deps.members.revokePendingInvitationsOfSupplier(tx, supplierId, at),
  );

  // Enqueued in the invitation's transaction: the message leaves once it commits.
  async function deliver(
    tx: Executor,
    contact: Contact,
    storeName: string,
    role: StoreMemberRole,
    token: string,
  ): Promise<void> {
    const text =
      `You are invited to join the team of "${storeName}" on FoodSave as ${ROLE_WORDS[role]}. ` +
      `Invitation code: ${token}\nIt is valid for 7 days; accept or decline it in the app, signed in with this ` +
      `${contact.phoneNumber ? 'phone number' : 'email address'}.`;
    if (contact.phoneNumber) await ctx.messages.sms(tx, contact.phoneNumber, text);
    else
      await ctx.messages.email(tx, {
        to: contact.email!,
        subject: `Invitation to join ${storeName} on FoodSave`,
        text,
      });
  }

  async function toMemberView(ex: Executor, m: MemberRecord): Promise<MemberView> {
    const u = await deps.users.findById(m.userId, ex);
    return {
      userId: m.userId,
      role: m.role,
      firstName: u?.firstName ?? '',
      lastName: u?.lastName ?? '',
      phoneNumber: u?.phoneNumber ?? null,
      email: u?.email ?? null,
      joinedAt: m.createdAt.toISOString(),
      updatedAt: m.updatedAt.toISOString(),
    };
  }

  /** Loads the invitation behind a code for the signed-in person; 404 for anyone else. */
  async function respond(user: AuthUser, token: string, to: Extract<InvitationStatus, 'ACCEPTED' | 'REJECTED'>) {
    const t = now();
    const outcome = await ctx.db.transaction(async (tx) => {
      const inv = await repo.findInvitationByTokenHash(tx, hashToken(token));
      if (!inv || !isFor(user.account, inv)) throw notFound('Invitation');
      if (inv.status === 'EXPIRED' || (inv.status === 'PENDING' && inv.expiresAt <= t)) {
        // Recorded even though the answer is an error: the next look finds it EXPIRED.
        if (inv.status === 'PENDING') await repo.updateInvitation(tx, inv.id, { status: 'EXPIRED' });
        return { expired: true as const };
      }
      assertTransition(INVITATION_TRANSITIONS, inv.status, to, 'Invitation');
      let member: MemberRecord | undefined;
      if (to === 'ACCEPTED') {
        const store = await deps.stores.findStore(tx, inv.storeId);
        if (!store) throw notFound('Invitation');
        const own = await deps.suppliers.findOwnProfile(user.id, tx);
        if (own?.id === store.supplierId) throw conflict('CONFLICT', 'You own this store');
        // Someone already on the team takes the role of the newer invitation.
        const existing = await repo.findMember(tx, inv.storeId, user.id, { lock: true });
        member = existing
          ? await repo.updateMember(tx, existing.id, { role: inv.role, invitationId: inv.id, updatedAt: t })
          : await repo.insertMember(tx, {
              id: uuidv7(t.getTime()),
              storeId: inv.storeId,
              userId: user.id,
              role: inv.role,
              invitationId: inv.id,
              createdAt: t,
              updatedAt: t,
            });
      }
      await repo.updateInvitation(tx, inv.id, { status: to, respondedAt: t, respondedBy: user.id });
      return { expired: false as const, member };
    });
    if (outcome.expired)
      throw new AppError(410, 'INVITATION_EXPIRED', 'This invitation has expired; ask the store owner for a new one');
    return outcome.member;
  }

  return {
    /**
     * For other modules: the user's role on the store must allow `capability` (see
     * store-permissions.ts). No role: 404, or 403 NOT_OWNER with `change` on a store the public
     * can see; a role without the capability: 403 FORBIDDEN. Returns the store and the role.
     */
    assertStoreCapability: (
      ex: Executor,
      userId: string,
      storeId: string,
      capability: StoreCapability,
      opts: { change?: boolean; lock?: boolean } = {},
    ) => deps.stores.authorize(ex, userId, storeId, capability, opts),

    async invite(user: AuthUser, storeId: string, body: InviteBody): Promise<InvitationView> {
      const contact = contactOf(body);
      if (
        contact.phoneNumber ? contact.phoneNumber === user.account.phoneNumber : contact.email === user.account.email
      ) {
        throw validationError(
          contact.phoneNumber ? 'body.phoneNumber' : 'body.email',
          'is your own; the owner already has every right on the store',
        );
      }
      const token = randomBytes(32).toString('base64url');
      const t = now();
      const { invitation } = await ctx.db.transaction(async (tx) => {
        // The store row lock makes concurrent invitations to one store queue, so the checks below hold.
        const { store } = await deps.stores.authorize(tx, user.id, storeId, 'staff.manage', {
          change: true,
          lock: true,
        });
        const invitee = contact.phoneNumber
          ? await deps.users.findByPhone(contact.phoneNumber, tx)
          : await deps.users.findByEmail(contact.email!, tx);
        if (invitee && (await deps.members.roleOf(tx, storeId, invitee.id)))
          throw conflict('ALREADY_MEMBER', "This person is already on the store's team");
        await repo.expireStale(tx, storeId, contact, t);
        if (await repo.findPending(tx, storeId, contact, t))
          throw conflict('ALREADY_INVITED', 'This person already has a pending invitation to this store');
        const counts = await deps.members.staffCounts(tx, storeId);
        if (counts.members + counts.pendingInvitations >= MAX_STAFF_PER_STORE) {
          throw conflict(
            'STAFF_LIMIT_REACHED',
            `A store has at most ${MAX_STAFF_PER_STORE} members and pending invitations`,
          );
        }
        const invitation = await repo.insertInvitation(tx, {
          id: uuidv7(t.getTime()),
          storeId,
          invitedBy: user.id,
          phoneNumber: contact.phoneNumber ?? null,
          email: contact.email ?? null,
          role: body.role,
          tokenHash: hashToken(token),
          expiresAt: new Date(t.getTime() + INVITATION_TTL_MS),
          createdAt: t,
        });
        await deliver(tx, contact, store.name, body.role, token);
        await ctx.events.publish(tx, 'staff.invited', {
          invitationId: invitation.id,
          storeId,
          ...(invitee && { userId: invitee.id }),
          ...(contact.phoneNumber ? { phoneNumber: contact.phoneNumber } : { email: contact.email! }),
        });
        return { invitation };
      });
      return toInvitationView(invitation);
    },

    async listMyInvitations(user: AuthUser, q: PageQuery) {
      const a = user.account;
      const contacts = { phoneNumber: a.verifiedAt ? a.phoneNumber : null, email: a.emailVerifiedAt ? a.email : null };
      const { items, total } = await repo.listPendingForContacts(ctx.db, contacts, now(), q.limit, pageOffset(q));
      const stores = await deps.stores.viewsByIds(ctx.db, [...new Set(items.map((i) => i.storeId))]);
      const views: MyInvitationView[] = items.map((i) => {
        const s = stores.get(i.storeId)!;
        return {
          id: i.id,
          role: i.role,
          status: i.status,
          sentTo: i.phoneNumber ? 'phone' : 'email',
          expiresAt: i.expiresAt.toISOString(),
          createdAt: i.createdAt.toISOString(),
          store: { id: s.id, name: s.name, address: s.address, city: s.city },
        };
      });
      return { items: views, meta: pageMeta(q, total) };
    },

    async accept(user: AuthUser, token: string): Promise<MyStoreView> {
      const member = (await respond(user, token, 'ACCEPTED'))!;
      const store = (await deps.stores.viewsByIds(ctx.db, [member.storeId])).get(member.storeId)!;
      return { role: member.role, since: member.createdAt.toISOString(), store };
    },

    async reject(user: AuthUser, token: string): Promise<{ message: string }> {
      await respond(user, token, 'REJECTED');
      return { message: 'Invitation declined' };
    },

    async listStaff(user: AuthUser, storeId: string): Promise<StaffList> {
      await deps.stores.authorize(ctx.db, user.id, storeId, 'staff.view');
      const members = await repo.listStoreMembers(ctx.db, storeId);
      const pending = await repo.listStorePendingInvitations(ctx.db, storeId, now());
      return {
        storeId,
        members: await Promise.all(members.map((m) => toMemberView(ctx.db, m))),
        pendingInvitations: pending.map(toInvitationView),
      };
    },

    async myRole(user: AuthUser, storeId: string): Promise<MyRoleView> {
      const { role } = await deps.stores.resolveRole(ctx.db, user.id, storeId);
      if (!role) throw notFound('Store role');
      return { storeId, role, capabilities: [...STORE_ROLE_CAPABILITIES[role]] };
    },

    async myStores(user: AuthUser, q: PageQuery) {
      const { items, total } = await repo.listUserMemberships(ctx.db, user.id, q.limit, pageOffset(q));
      const stores = await deps.stores.viewsByIds(
        ctx.db,
        items.map((m) => m.storeId),
      );
      const views: MyStoreView[] = items.map((m) => ({
        role: m.role,
        since: m.createdAt.toISOString(),
        store: stores.get(m.storeId)!,
      }));
      return { items: views, meta: pageMeta(q, total) };
    },

    async updateMember(user: AuthUser, storeId: string, memberId: string, role: StoreMemberRole): Promise<MemberView> {
      return ctx.db.transaction(async (tx) => {
        await deps.stores.authorize(tx, user.id, storeId, 'staff.manage', { change: true, lock: true });
        const member = await repo.findMember(tx, storeId, memberId, { lock: true });
        if (!member) throw notFound('Member');
        const updated =
          member.role === role ? member : await repo.updateMember(tx, member.id, { role, updatedAt: now() });
        return toMemberView(tx, updated);
      });
    },

    async removeMember(user: AuthUser, storeId: string, memberId: string): Promise<{ message: string }> {
      await ctx.db.transaction(async (tx) => {
        await deps.stores.authorize(tx, user.id, storeId, 'staff.manage', { change: true, lock: true });
        const member = await repo.findMember(tx, storeId, memberId, { lock: true });
        if (!member) throw notFound('Member');
        const t = now();
        await repo.updateMember(tx, member.id, { removedAt: t, updatedAt: t });
      });
      return { message: 'Member removed' };
    },
  };
}
