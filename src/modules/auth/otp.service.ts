import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/client.js';
import type { OtpChannel, OtpPurpose } from '../../db/schema/users.js';
import { AppError, badRequest, tooManyRequests } from '../../shared/errors.js';
import { uuidv7 } from '../../shared/ids.js';
import * as repo from './otp.repository.js';

export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;
export const OTP_SENDS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;

export interface OtpTarget {
  channel: OtpChannel;
  destination: string;
  purpose: OtpPurpose;
}

const MESSAGES: Record<OtpPurpose, string> = {
  registration: 'Your FoodSave verification code is',
  login: 'Your FoodSave sign-in code is',
  password_reset: 'Your FoodSave password reset code is',
};

export type OtpService = ReturnType<typeof createOtpService>;

export function createOtpService(ctx: AppContext) {
  const digest = (t: OtpTarget, code: string) =>
    createHmac('sha256', ctx.config.OTP_SECRET).update(`${t.purpose}:${t.destination}:${code}`).digest('hex');

  // Enqueued in the caller's transaction: the message leaves once it commits.
  async function deliver(tx: Executor, t: OtpTarget, code: string): Promise<void> {
    const text = `${MESSAGES[t.purpose]} ${code}. It expires in 10 minutes. Never share it.`;
    if (t.channel === 'sms') await ctx.messages.sms(tx, t.destination, text);
    else
      await ctx.messages.email(tx, { to: t.destination, subject: `${MESSAGES[t.purpose].replace(/ is$/, '')}`, text });
  }

  /** Whether `userId` holds an unexpired, still open code for this purpose and destination. */
  async function hasOpenCode(ex: Executor, t: OtpTarget, userId: string): Promise<boolean> {
    const open = await repo.findOpenCode(ex, t.destination, t.purpose);
    return open !== undefined && open.userId === userId && open.expiresAt > ctx.clock.now();
  }

  return {
    hasOpenCode,
    /** Serialises the caller's transaction with every other send to this destination. */
    lockDestination: (ex: Executor, destination: string) => repo.lockDestination(ex, destination),

    /**
     * Counts a send against the destination's hourly limit and, when `userId` is given, replaces
     * any open code with a new one. Without a user nothing is sent, but the answer and the limit
     * are the same, so the endpoints do not tell whether an account exists. With `replaceOnly`
     * a code is only sent in place of an unexpired open one of the same user. The message is
     * enqueued in the caller's transaction and leaves after it commits.
     */
    async issue(
      ex: Executor,
      t: OtpTarget,
      userId: string | null,
      opts: { replaceOnly?: boolean } = {},
    ): Promise<void> {
      const now = ctx.clock.now();
      await repo.lockDestination(ex, t.destination);
      const recent = await repo.sendsSince(ex, t.destination, new Date(now.getTime() - HOUR_MS));
      if (recent.count >= OTP_SENDS_PER_HOUR) {
        const retryAfter = ((recent.first?.getTime() ?? now.getTime()) + HOUR_MS - now.getTime()) / 1000;
        throw tooManyRequests(
          'OTP_RESEND_LIMIT',
          `At most ${OTP_SENDS_PER_HOUR} codes can be sent per hour; try again later`,
          retryAfter,
        );
      }
      await repo.recordSend(ex, uuidv7(now.getTime()), t.destination, now);
      if (!userId || (opts.replaceOnly && !(await hasOpenCode(ex, t, userId)))) return;
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await repo.closeOpenCodes(ex, t.destination, t.purpose, now);
      await repo.insertCode(ex, {
        id: uuidv7(now.getTime()),
        userId,
        ...t,
        codeHash: digest(t, code),
        createdAt: now,
        expiresAt: new Date(now.getTime() + OTP_TTL_MS),
      });
      await deliver(ex, t, code);
    },

    /**
     * Checks a code without using it up. The try is counted before the comparison, so parallel
     * guesses cannot all be compared; the fifth wrong one closes the code.
     */
    async check(t: OtpTarget, code: string): Promise<repo.OtpRecord> {
      const now = ctx.clock.now();
      const open = await repo.findOpenCode(ctx.db, t.destination, t.purpose);
      if (!open) throw badRequest('INVALID_OTP', 'The code is wrong or no longer valid; request a new one');
      if (open.expiresAt <= now) {
        await repo.closeCode(ctx.db, open.id, now);
        throw badRequest('OTP_EXPIRED', 'The code has expired; request a new one');
      }
      const attempts = await repo.takeTry(ctx.db, open.id, OTP_MAX_ATTEMPTS);
      if (attempts === undefined)
        throw badRequest('INVALID_OTP', 'The code is wrong or no longer valid; request a new one');
      const expected = Buffer.from(open.codeHash, 'hex');
      const given = Buffer.from(digest(t, code), 'hex');
      if (!timingSafeEqual(expected, given)) {
        const left = OTP_MAX_ATTEMPTS - attempts;
        if (left <= 0) await repo.closeCode(ctx.db, open.id, now);
        throw badRequest(
          'INVALID_OTP',
          left > 0 ? `The code is wrong; ${left} tries left` : 'Too many wrong codes; request a new one',
        );
      }
      await repo.giveBackTry(ctx.db, open.id);
      return open;
    },

    /** Uses the code up inside the caller's transaction; a code used concurrently fails here. */
    async consume(ex: Executor, code: repo.OtpRecord): Promise<void> {
      if (!(await repo.closeCode(ex, code.id, ctx.clock.now()))) {
        throw new AppError(400, 'INVALID_OTP', 'The code is wrong or no longer valid; request a new one');
      }
    },
  };
}
