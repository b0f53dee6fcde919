/** The API's roles and account states, in the order the console offers them. */
export const ROLES = [
  'CLIENT',
  'SUPPLIER_FOOD',
  'SUPPLIER_DEALS',
  'ASSOCIATION',
  'ADVERTISER',
  'ADMIN',
  'SUPER_ADMIN',
] as const;
export const STATUSES = ['ACTIVE', 'SUSPENDED', 'DELETED'] as const;

/** Roles only a super administrator may grant, remove or act on (src/modules/users). */
export const PRIVILEGED: readonly string[] = ['ADMIN', 'SUPER_ADMIN'];

/** Roles the signed-in administrator may give: a SUPER_ADMIN any, an ADMIN none of the privileged ones. */
export const grantableRoles = (actorRole: string | undefined) =>
  ROLES.filter((role) => actorRole === 'SUPER_ADMIN' || !PRIVILEGED.includes(role));

/**
 * Why the signed-in administrator may not change this account, as the API decides it; undefined
 * when he may. Self: no locking oneself out; an administrator's account: super administrators only.
 */
export function refusalFor(
  actor: { id: string; role: string } | undefined,
  target: { id: string; role: string; status: string },
) {
  if (!actor) return 'signedOut';
  if (actor.id === target.id) return 'self';
  if (actor.role !== 'SUPER_ADMIN' && PRIVILEGED.includes(target.role)) return 'adminOnly';
  if (target.status === 'DELETED') return 'deleted';
  return undefined;
}
