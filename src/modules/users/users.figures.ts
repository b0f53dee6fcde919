import { count, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';
import { ROLES, USER_STATUSES, users, type Role, type UserStatus } from '../../db/schema/users.js';
import type { PeriodUnit } from '../ledger/index.js';

/*
 * The users' figures of the administrators' dashboard and growth report, from the users table
 * only: counts by role and status read users_role_status_idx alone.
 */

const zeroes = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export async function userCounts(ex: Executor) {
  const found = await ex
    .select({ role: users.role, status: users.status, n: count() })
    .from(users)
    .groupBy(users.role, users.status);
  const byRole = zeroes(ROLES);
  const byStatus = zeroes(USER_STATUSES);
  const byRoleAndStatus = Object.fromEntries(ROLES.map((r) => [r, zeroes(USER_STATUSES)])) as Record<
    Role,
    Record<UserStatus, number>
  >;
  let total = 0;
  for (const r of found) {
    total += r.n;
    byRole[r.role] += r.n;
    byStatus[r.status] += r.n;
    byRoleAndStatus[r.role][r.status] += r.n;
  }
  return { total, byRole, byStatus, byRoleAndStatus };
}

/** Accounts created in [from, to) per UTC period (weeks from Monday) and role, whatever they became since. */
export async function newUsersByPeriod(ex: Executor, r: { from: Date; to: Date; unit: PeriodUnit }) {
  const found = await rows<{ period: string; role: Role; n: number }>(
    ex,
    sql`select to_char(p, 'YYYY-MM-DD') as period, role, n from (
          select date_trunc(${r.unit}, created_at at time zone 'UTC') as p, role, count(*)::int as n
          from users where created_at >= ${r.from} and created_at < ${r.to} group by 1, 2) x`,
  );
  return found.map((x) => ({ period: x.period, role: x.role, count: Number(x.n) }));
}
