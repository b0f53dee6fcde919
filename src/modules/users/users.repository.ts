import { and, asc, count, desc, eq, gt, ilike, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { preparedPer, type Executor } from '../../db/client.js';
import { nameOrderKey, unaccented } from '../../db/folding.js';
import { byteOrderKey, toOrderBy, type SortKey } from '../../db/sorting.js';
import { users, type Role, type UserStatus } from '../../db/schema/users.js';
import type { SortOf } from '../../shared/schemas.js';
import type { UserSortField } from './users.schemas.js';

export type UserRecord = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export async function insertUser(ex: Executor, user: NewUser): Promise<UserRecord> {
  const [row] = await ex.insert(users).values(user).returning();
  return row!;
}

export async function findUserById(ex: Executor, id: string): Promise<UserRecord | undefined> {
  const [row] = await ex.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

// Every password sign-in starts with this lookup.
const byPhone = preparedPer((ex) =>
  ex
    .select()
    .from(users)
    .where(eq(users.phoneNumber, sql.placeholder('phoneNumber')))
    .limit(1)
    .prepare('user_by_phone'),
);

export async function findUserByPhone(ex: Executor, phoneNumber: string): Promise<UserRecord | undefined> {
  const [row] = await byPhone(ex).execute({ phoneNumber });
  return row;
}

export async function findUserByEmail(ex: Executor, email: string): Promise<UserRecord | undefined> {
  const [row] = await ex.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

export async function lockUser(ex: Executor, id: string): Promise<UserRecord | undefined> {
  const [row] = await ex.select().from(users).where(eq(users.id, id)).for('update').limit(1);
  return row;
}

export async function updateUser(ex: Executor, id: string, patch: Partial<NewUser>): Promise<UserRecord> {
  const [row] = await ex.update(users).set(patch).where(eq(users.id, id)).returning();
  return row!;
}

export interface UserFilter {
  role?: Role;
  status?: UserStatus;
  verified?: boolean;
  search?: string;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The digits of a search written as a phone number (`77 123 45 67`, `+221 77-123-45-67`, `00221...`),
 * matched against the stored E.164 number; undefined when the search is not one.
 */
function phoneDigits(search: string): string | undefined {
  if (!/^[+\d\s().-]+$/.test(search)) return undefined;
  const digits = search.replace(/\D/g, '').replace(/^00/, '');
  return digits.length >= 3 ? digits : undefined;
}

/**
 * Every word of the search is found in the name (first and last, accents ignored), the email or the
 * phone number, so `awa ndiaye` finds Awa Ndiayé and `ndiaye awa` too; a search written as a phone
 * number also matches its digits whatever the spaces or dashes.
 */
function searchCondition(search: string): SQL | undefined {
  const name = unaccented(sql`${users.firstName} || ' ' || ${users.lastName}`);
  const words = search
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      const like = likePattern(word);
      return or(
        sql`${name} ilike ${unaccented(sql`${like}::text`)}`,
        ilike(users.email, like),
        ilike(users.phoneNumber, like),
      );
    });
  const digits = phoneDigits(search);
  return digits ? or(and(...words), ilike(users.phoneNumber, likePattern(digits))) : and(...words);
}

function filterConditions(f: UserFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (f.role) conds.push(eq(users.role, f.role));
  if (f.status) conds.push(eq(users.status, f.status));
  if (f.verified !== undefined) conds.push(f.verified ? isNotNull(users.verifiedAt) : isNull(users.verifiedAt));
  if (f.search) conds.push(searchCondition(f.search));
  return and(...conds);
}

// Users are the largest list: a key computed per row is sorted through its index (the last name's)
// or not offered; last_login_at stays without one, as every sign-in writes it.
const SORT_KEYS: Record<UserSortField, SortKey> = {
  createdAt: users.createdAt,
  lastLoginAt: users.lastLoginAt,
  lastName: nameOrderKey(users.lastName),
  // E.164: a plus and digits, in the same order under every collation.
  phoneNumber: users.phoneNumber,
  // Stored lower-cased (normalizeEmail).
  email: { by: byteOrderKey(users.email), nullable: true },
  role: byteOrderKey(users.role),
  status: byteOrderKey(users.status),
};

export async function listUsers(
  ex: Executor,
  f: UserFilter,
  limit: number,
  offset: number,
  sort: SortOf<UserSortField> = '-createdAt',
) {
  const where = filterConditions(f);
  const [items, [total]] = await Promise.all([
    ex
      .select()
      .from(users)
      .where(where)
      .orderBy(...toOrderBy(sort, SORT_KEYS, users.id))
      .limit(limit)
      .offset(offset),
    ex.select({ n: count() }).from(users).where(where),
  ]);
  return { items, total: total?.n ?? 0 };
}

// Who a platform-wide message reaches: accounts in use (active, phone verified), of one role or all.
const reachable = (role?: Role) =>
  and(eq(users.status, 'ACTIVE'), isNotNull(users.verifiedAt), role ? eq(users.role, role) : undefined);

/** How many accounts a message reaches now, and the greatest of their ids (null when none). */
export async function countReachable(ex: Executor, role?: Role): Promise<{ count: number; lastId: string | null }> {
  const last = ex.select({ id: users.id }).from(users).where(reachable(role)).orderBy(desc(users.id)).limit(1);
  const [row] = await ex
    .select({ n: count(), lastId: sql<string | null>`(${last})` })
    .from(users)
    .where(reachable(role));
  return { count: row?.n ?? 0, lastId: row?.lastId ?? null };
}

/** The next `limit` reachable ids after `after` (keyset by id), up to `through` included. */
export async function reachableIdsAfter(
  ex: Executor,
  q: { role?: Role; after: string | null; through: string; limit: number },
): Promise<string[]> {
  const found = await ex
    .select({ id: users.id })
    .from(users)
    .where(and(reachable(q.role), q.after ? gt(users.id, q.after) : undefined, lte(users.id, q.through)))
    .orderBy(asc(users.id))
    .limit(q.limit);
  return found.map((r) => r.id);
}
