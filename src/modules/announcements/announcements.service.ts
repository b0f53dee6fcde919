import type { AppContext } from '../../context.js';
import type { AnnouncementStatus } from '../../db/schema/announcements.js';
import type { AuthUser } from '../../http/access.js';
import { notFound } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import { pageMeta, pageOffset } from '../../shared/schemas.js';
import { assertTransition } from '../../shared/state-machine.js';
import { recordAdminAction } from '../audit/index.js';
import type { NotificationsApi } from '../notifications/index.js';
import type { UsersApi } from '../users/index.js';
import { ANNOUNCEMENT_TRANSITIONS } from './announcement-status.js';
import * as repo from './announcements.repository.js';
import type { AnnouncementRecord } from './announcements.repository.js';
import type { AnnouncementBody, AnnouncementListQuery, AnnouncementView } from './announcements.schemas.js';

export const BATCH_JOB = 'announcements.send_batch';
export const DEFAULT_BATCH_SIZE = 500;

export interface AnnouncementsOptions {
  /** Users notified per batch job (one transaction each). */
  batchSize?: number;
}

/** A batch starts after `after` (null: the first batch), which must be where the last committed batch stopped. */
interface BatchJob {
  announcementId: string;
  after: string | null;
}

export type AnnouncementsService = ReturnType<typeof createAnnouncementsService>;

const toView = (a: AnnouncementRecord): AnnouncementView => ({
  id: a.id,
  title: a.title,
  message: a.message,
  role: a.role,
  status: a.status,
  recipients: a.recipients,
  sent: a.sent,
  createdBy: a.createdBy,
  createdAt: a.createdAt.toISOString(),
  finishedAt: a.finishedAt?.toISOString() ?? null,
});

/**
 * Administrators' announcements to every user or one role: the request stores the announcement and
 * enqueues its first batch; each batch notifies the next users by id in its own transaction (the
 * in-app row, then push, SMS and email as each user's preferences say) and enqueues the next.
 */
export function createAnnouncementsService(
  ctx: AppContext,
  deps: { users: UsersApi; notifications: NotificationsApi },
  opts: AnnouncementsOptions = {},
) {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  const now = () => ctx.clock.now();

  /**
   * Safe to run twice: a batch whose successor already committed finds the announcement moved past
   * its starting point and does nothing; and `notify` keys each notification by the announcement,
   * so no user is told twice whatever runs.
   */
  async function sendBatch(job: BatchJob): Promise<void> {
    await ctx.db.transaction(async (tx) => {
      const a = await repo.findAnnouncement(tx, job.announcementId, { lock: true });
      if (!a || a.status === 'SENT' || a.sentThrough !== job.after) return;
      const at = now();
      const start = a.status === 'QUEUED' ? await deps.users.countReachable(tx, a.role ?? undefined) : undefined;
      const through = start ? start.lastId : a.audienceEnd;
      const ids = through
        ? await deps.users.reachableIdsAfter(tx, {
            role: a.role ?? undefined,
            after: a.sentThrough,
            through,
            limit: batchSize,
          })
        : [];
      const data = { announcementId: a.id, title: a.title, message: a.message };
      for (const userId of ids) {
        await deps.notifications.notify(tx, userId, 'system_announcement', data, { sourceKey: `announcement:${a.id}` });
      }
      const last = ids.length < batchSize;
      const status: AnnouncementStatus = last ? 'SENT' : 'SENDING';
      if (status !== a.status) assertTransition(ANNOUNCEMENT_TRANSITIONS, a.status, status, 'Announcement status');
      const sentThrough = ids.at(-1) ?? a.sentThrough;
      await repo.updateAnnouncement(tx, a.id, {
        status,
        sent: a.sent + ids.length,
        sentThrough,
        ...(start && { recipients: start.count, audienceEnd: start.lastId, startedAt: at }),
        ...(last && { finishedAt: at }),
      });
      if (!last)
        await ctx.jobs.send(BATCH_JOB, { announcementId: a.id, after: sentThrough } satisfies BatchJob, { tx });
    });
  }
  ctx.jobs.work(BATCH_JOB, sendBatch);

  return {
    async create(actor: AuthUser, body: AnnouncementBody): Promise<AnnouncementView> {
      return ctx.db.transaction(async (tx) => {
        const at = now();
        const row = await repo.insertAnnouncement(tx, {
          id: uuidv7(at.getTime()),
          title: body.title,
          message: body.message,
          role: body.role ?? null,
          status: 'QUEUED',
          createdBy: actor.id,
          createdAt: at,
        });
        await recordAdminAction(tx, {
          actorId: actor.id,
          action: 'announcement.send',
          targetType: 'announcement',
          targetId: row.id,
          data: { title: row.title, role: row.role },
          at,
        });
        await ctx.jobs.send(BATCH_JOB, { announcementId: row.id, after: null } satisfies BatchJob, { tx });
        return toView(row);
      });
    },

    async list(q: AnnouncementListQuery) {
      const { items, total } = await repo.listAnnouncements(ctx.db, q.limit, pageOffset(q));
      return { items: items.map(toView), meta: pageMeta(q, total) };
    },

    async get(id: string): Promise<AnnouncementView> {
      const row = await repo.findAnnouncement(ctx.db, id);
      if (!row) throw notFound('Announcement');
      return toView(row);
    },
  };
}
