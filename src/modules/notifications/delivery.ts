import type { AppContext } from '../../context.js';
import { PushRetryableError } from '../../providers/push/push.js';
import type { UsersApi } from '../users/index.js';
import * as repo from './notifications.repository.js';
import type { NotificationRecord } from './notifications.repository.js';

export const PUSH_JOB = 'notifications.push';
export const SMS_JOB = 'notifications.sms';
export const EMAIL_JOB = 'notifications.email';

/** Sends to a device token that keeps failing for a temporary reason stop after this many tries. */
export const MAX_PUSH_ATTEMPTS = 6;

export interface PushJob {
  notificationId: string;
  /** On a retry, only the devices not reached yet. */
  tokenIds?: string[];
  attempt?: number;
}

/** FCM data values are strings: ids stay as they are, anything else is sent as JSON. */
function pushData(n: NotificationRecord): Record<string, string> {
  const out: Record<string, string> = { notificationId: n.id, type: n.type, category: n.category };
  for (const [k, v] of Object.entries(n.data)) if (!(k in out)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/**
 * The jobs that carry a notification out of the process, registered once at start. Each loads
 * the notification when it runs: one the user deleted meanwhile is not sent.
 */
export function registerDeliveryJobs(ctx: AppContext, users: UsersApi): void {
  ctx.jobs.work(PUSH_JOB, async (job: PushJob) => {
    const n = await repo.findNotification(ctx.db, job.notificationId);
    if (!n) return;
    const devices = await repo.listDeviceTokens(ctx.db, n.userId, job.tokenIds);
    const dead: string[] = [];
    const again: string[] = [];
    let retryAfter = 0;
    for (const d of devices) {
      try {
        const outcome = await ctx.push.send({ token: d.token, title: n.title, body: n.body, data: pushData(n) });
        if (outcome === 'invalid_token') dead.push(d.id);
      } catch (err) {
        if (!(err instanceof PushRetryableError)) {
          ctx.log.warn({ err, notificationId: n.id, deviceTokenId: d.id }, 'push refused');
          continue;
        }
        again.push(d.id);
        retryAfter = Math.max(retryAfter, err.retryAfterSeconds ?? 0);
      }
    }
    await repo.deleteDeviceTokensById(ctx.db, dead);
    if (again.length === 0) return;
    // The provider says when to come back (Retry-After); otherwise back off exponentially. Only
    // the devices not reached yet are tried again, so none gets the message twice.
    const attempt = (job.attempt ?? 1) + 1;
    if (attempt > MAX_PUSH_ATTEMPTS) {
      ctx.log.warn({ notificationId: n.id, devices: again.length }, 'push given up after its last try');
      return;
    }
    const delay = retryAfter > 0 ? retryAfter : 10 * 2 ** (attempt - 2);
    await ctx.jobs.send(PUSH_JOB, { notificationId: n.id, tokenIds: again, attempt } satisfies PushJob, {
      startAfterSeconds: delay,
    });
  });

  ctx.jobs.work(SMS_JOB, async (job: { notificationId: string }) => {
    const n = await repo.findNotification(ctx.db, job.notificationId);
    const user = n && (await users.findById(n.userId));
    if (!n || !user?.phoneNumber || user.status === 'DELETED') return;
    await ctx.sms.send(user.phoneNumber, `${n.title} : ${n.body}`);
  });

  ctx.jobs.work(EMAIL_JOB, async (job: { notificationId: string }) => {
    const n = await repo.findNotification(ctx.db, job.notificationId);
    const user = n && (await users.findById(n.userId));
    // Only to an address the user proved is theirs.
    if (!n || !user?.email || !user.emailVerifiedAt || user.status === 'DELETED') return;
    await ctx.email.send({ to: user.email, subject: n.title, text: n.body });
  });
}
