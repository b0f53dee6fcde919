import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { preparedPer, type Executor } from '../../db/client.js';
import { sessions, users } from '../../db/schema/users.js';

export type SessionRecord = typeof sessions.$inferSelect;

export async function insertSession(ex: Executor, session: typeof sessions.$inferInsert): Promise<void> {
  await ex.insert(sessions).values(session);
}

// Built once per database handle: this runs on every authenticated request.
const sessionUser = preparedPer((ex) =>
  ex
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.id, sql.placeholder('sessionId')),
        eq(sessions.userId, sql.placeholder('userId')),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, sql.placeholder('now')),
      ),
    )
    .limit(1)
    .prepare('session_user'),
);

/** The signed-in user behind a live session: the one query every authenticated request makes. */
export async function findActiveSessionUser(ex: Executor, sessionId: string, userId: string, now: Date) {
  const [row] = await sessionUser(ex).execute({ sessionId, userId, now });
  return row?.user;
}

export async function lockSession(ex: Executor, sessionId: string): Promise<SessionRecord | undefined> {
  const [row] = await ex.select().from(sessions).where(eq(sessions.id, sessionId)).for('update').limit(1);
  return row;
}

export async function rotateSession(ex: Executor, sessionId: string, refreshJti: string, now: Date, expiresAt: Date) {
  await ex.update(sessions).set({ refreshJti, lastUsedAt: now, expiresAt }).where(eq(sessions.id, sessionId));
}

export async function revokeSession(ex: Executor, sessionId: string, now: Date, reason: string): Promise<void> {
  await ex
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}

export async function revokeUserSessions(
  ex: Executor,
  userId: string,
  now: Date,
  reason: string,
  exceptSessionId?: string,
) {
  const conds = [eq(sessions.userId, userId), isNull(sessions.revokedAt)];
  if (exceptSessionId) conds.push(ne(sessions.id, exceptSessionId));
  await ex
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(...conds));
}

/**
 * Sign-in's one write: the new session and the user's last sign-in time in a single statement
 * (one round trip, one commit), since sign-in is the hottest write path.
 */
export async function insertSessionStampingUser(ex: Executor, s: typeof sessions.$inferInsert): Promise<void> {
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;
  await ex.execute(sql`with opened as (
      insert into ${sessions} (id, user_id, refresh_jti, ip, user_agent, created_at, last_used_at, expires_at)
      values (${s.id}, ${s.userId}, ${s.refreshJti}, ${s.ip ?? null}, ${s.userAgent ?? null}, ${at(s.createdAt)}, ${at(s.lastUsedAt)}, ${at(s.expiresAt)})
      returning user_id, created_at)
    update ${users} set last_login_at = opened.created_at from opened where ${users.id} = opened.user_id`);
}
