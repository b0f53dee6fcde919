import { and, count, desc, eq, inArray, isNull, notInArray, sql, type SQL } from 'drizzle-orm';
import { preparedPer, type Executor } from '../../db/client.js';
import { deviceTokens, notificationPreferences, notifications } from '../../db/schema/notifications.js';

export type NotificationRecord = typeof notifications.$inferSelect;
export type NewNotification = typeof notifications.$inferInsert;
export type PreferencesRecord = typeof notificationPreferences.$inferSelect;
export type DeviceTokenRecord = typeof deviceTokens.$inferSelect;

const n = notifications;

/** Inserts unless the same cause already notified this user; answers the row either way. */
export async function insertNotification(
  ex: Executor,
  row: NewNotification,
): Promise<{ row: NotificationRecord; created: boolean }> {
  const [inserted] = await ex
    .insert(n)
    .values(row)
    .onConflictDoNothing({ target: [n.userId, n.sourceKey] })
    .returning();
  if (inserted) return { row: inserted, created: true };
  const [existing] = await ex
    .select()
    .from(n)
    .where(and(eq(n.userId, row.userId), eq(n.sourceKey, row.sourceKey!)))
    .limit(1);
  return { row: existing!, created: false };
}

export async function findNotification(ex: Executor, id: string): Promise<NotificationRecord | undefined> {
  const [row] = await ex.select().from(n).where(eq(n.id, id)).limit(1);
  return row;
}

// A page and the total in one round trip (the list is read far more than anything else here):
// the count is a sub-select computed once, from the index alone, beside the `limit` rows read in
// index order. One prepared statement per combination of filters, each with a plan for its index.
const pageStatement = (unread: boolean, category: boolean) =>
  preparedPer((ex) => {
    const unreadSql = unread ? sql` and c.read_at is null` : sql``;
    const categorySql = category ? sql` and c.category = ${sql.placeholder('category')}` : sql``;
    const total = sql<number>`(select count(*) from ${n} c where c.user_id = ${sql.placeholder('userId')}${unreadSql}${categorySql})`;
    return ex
      .select({ row: n, total: total.mapWith(Number) })
      .from(n)
      .where(
        and(
          eq(n.userId, sql.placeholder('userId')),
          unread ? isNull(n.readAt) : undefined,
          category ? eq(n.category, sql.placeholder('category')) : undefined,
        ),
      )
      .orderBy(desc(n.createdAt), desc(n.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(`notifications_page_${Number(unread)}${Number(category)}`);
  });
const PAGES = [
  pageStatement(false, false),
  pageStatement(false, true),
  pageStatement(true, false),
  pageStatement(true, true),
];

export interface ListFilter {
  unread?: boolean;
  category?: string;
}

export async function listNotifications(ex: Executor, userId: string, f: ListFilter, limit: number, offset: number) {
  const statement = PAGES[Number(f.unread === true) * 2 + Number(f.category !== undefined)]!(ex);
  const rows = await statement.execute({ userId, category: f.category, limit, offset });
  // Past the last page the window has no row to carry the total: count apart.
  const total = rows[0]?.total ?? (offset > 0 ? await countNotifications(ex, userId, f) : 0);
  return { items: rows.map((r) => r.row), total };
}

async function countNotifications(ex: Executor, userId: string, f: ListFilter): Promise<number> {
  const [row] = await ex.select({ c: count() }).from(n).where(filterOf(userId, f));
  return row?.c ?? 0;
}

function filterOf(userId: string, f: ListFilter): SQL | undefined {
  return and(
    eq(n.userId, userId),
    f.unread ? isNull(n.readAt) : undefined,
    f.category ? eq(n.category, f.category) : undefined,
  );
}

const unreadStatement = preparedPer((ex) =>
  ex
    .select({ c: count() })
    .from(n)
    .where(and(eq(n.userId, sql.placeholder('userId')), isNull(n.readAt)))
    .prepare('notifications_unread_count'),
);

export async function countUnread(ex: Executor, userId: string): Promise<number> {
  const [row] = await unreadStatement(ex).execute({ userId });
  return row?.c ?? 0;
}

export async function markRead(
  ex: Executor,
  userId: string,
  id: string,
  at: Date,
): Promise<NotificationRecord | undefined> {
  const [row] = await ex
    .update(n)
    .set({ readAt: sql`coalesce(${n.readAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(n.id, id), eq(n.userId, userId)))
    .returning();
  return row;
}

export async function markAllRead(ex: Executor, userId: string, at: Date): Promise<number> {
  const rows = await ex
    .update(n)
    .set({ readAt: at })
    .where(and(eq(n.userId, userId), isNull(n.readAt)))
    .returning({ id: n.id });
  return rows.length;
}

export async function deleteNotification(ex: Executor, userId: string, id: string): Promise<boolean> {
  const rows = await ex
    .delete(n)
    .where(and(eq(n.id, id), eq(n.userId, userId)))
    .returning({ id: n.id });
  return rows.length > 0;
}

export async function deleteAllNotifications(ex: Executor, userId: string): Promise<number> {
  const rows = await ex.delete(n).where(eq(n.userId, userId)).returning({ id: n.id });
  return rows.length;
}

// Preferences

export async function findPreferences(ex: Executor, userId: string): Promise<PreferencesRecord | undefined> {
  const [row] = await ex
    .select()
    .from(notificationPreferences)
    .where(eq(notificationPreferences.userId, userId))
    .limit(1);
  return row;
}

export async function savePreferences(ex: Executor, row: PreferencesRecord): Promise<void> {
  const p = notificationPreferences;
  await ex
    .insert(p)
    .values(row)
    .onConflictDoUpdate({
      target: p.userId,
      set: {
        channels: row.channels,
        quietStart: row.quietStart,
        quietEnd: row.quietEnd,
        timezone: row.timezone,
        updatedAt: row.updatedAt,
      },
    });
}

// Device tokens

const t = deviceTokens;

/** Registers a token, moving it to `row.userId` when another user had it. */
export async function upsertDeviceToken(
  ex: Executor,
  row: typeof deviceTokens.$inferInsert,
): Promise<DeviceTokenRecord> {
  const [saved] = await ex
    .insert(t)
    .values(row)
    .onConflictDoUpdate({
      target: t.token,
      set: {
        userId: row.userId,
        platform: row.platform,
        deviceId: row.deviceId ?? null,
        appVersion: row.appVersion ?? null,
        sessionId: row.sessionId ?? null,
        updatedAt: row.updatedAt,
      },
    })
    .returning();
  return saved!;
}

/** Keeps the user's `keep` most recently registered tokens and deletes the rest. */
export async function trimDeviceTokens(ex: Executor, userId: string, keep: number): Promise<void> {
  const newest = ex
    .select({ id: t.id })
    .from(t)
    .where(eq(t.userId, userId))
    .orderBy(desc(t.updatedAt), desc(t.id))
    .limit(keep);
  await ex.delete(t).where(and(eq(t.userId, userId), notInArray(t.id, newest)));
}

export async function deleteDeviceToken(ex: Executor, userId: string, token: string): Promise<boolean> {
  const rows = await ex
    .delete(t)
    .where(and(eq(t.userId, userId), eq(t.token, token)))
    .returning({ id: t.id });
  return rows.length > 0;
}

export async function deleteDeviceTokensById(ex: Executor, ids: string[]): Promise<void> {
  if (ids.length) await ex.delete(t).where(inArray(t.id, ids));
}

export async function deleteAllDeviceTokens(ex: Executor, userId: string): Promise<number> {
  const rows = await ex.delete(t).where(eq(t.userId, userId)).returning({ id: t.id });
  return rows.length;
}

/** Tokens registered by sessions that ended: one session, or every session of a user but one. */
export async function deleteTokensOfSessions(
  ex: Executor,
  scope: { sessionId: string } | { userId: string; exceptSessionId?: string },
) {
  if ('sessionId' in scope) {
    await ex.delete(t).where(eq(t.sessionId, scope.sessionId));
    return;
  }
  const keep = scope.exceptSessionId ? sql`${t.sessionId} is distinct from ${scope.exceptSessionId}` : undefined;
  await ex.delete(t).where(and(eq(t.userId, scope.userId), keep));
}

export function listDeviceTokens(ex: Executor, userId: string, ids?: string[]): Promise<DeviceTokenRecord[]> {
  return ex
    .select()
    .from(t)
    .where(and(eq(t.userId, userId), ids ? inArray(t.id, ids) : undefined))
    .orderBy(desc(t.updatedAt));
}
