import { count, desc, eq } from 'drizzle-orm';
import { together, type Executor } from '../../db/client.js';
import { announcements } from '../../db/schema/announcements.js';

export type AnnouncementRecord = typeof announcements.$inferSelect;
export type NewAnnouncement = typeof announcements.$inferInsert;

export async function insertAnnouncement(ex: Executor, row: NewAnnouncement): Promise<AnnouncementRecord> {
  const [inserted] = await ex.insert(announcements).values(row).returning();
  return inserted!;
}

export async function findAnnouncement(
  ex: Executor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<AnnouncementRecord | undefined> {
  const q = ex.select().from(announcements).where(eq(announcements.id, id)).limit(1);
  const [row] = await (opts.lock ? q.for('update') : q);
  return row;
}

export async function updateAnnouncement(
  ex: Executor,
  id: string,
  patch: Partial<NewAnnouncement>,
): Promise<AnnouncementRecord> {
  const [row] = await ex.update(announcements).set(patch).where(eq(announcements.id, id)).returning();
  return row!;
}

/** Newest first, with the total. */
export async function listAnnouncements(ex: Executor, limit: number, offset: number) {
  const [items, [total]] = await together(ex, [
    () =>
      ex
        .select()
        .from(announcements)
        .orderBy(desc(announcements.createdAt), desc(announcements.id))
        .limit(limit)
        .offset(offset),
    () => ex.select({ n: count() }).from(announcements),
  ]);
  return { items, total: total?.n ?? 0 };
}
