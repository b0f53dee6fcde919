import { and, eq, gt, lte, sql } from 'drizzle-orm';
import { placeholders, preparedPer, type Executor } from '../db/client.js';
import { idempotencyKeys } from '../db/schema/idempotency.js';

export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A key still `running` after this long belongs to a request whose process died. */
export const ABANDONED_AFTER_MS = 60 * 1000;

export interface Request {
  userId: string;
  key: string;
  route: string;
  requestHash: string;
  now: Date;
}
export interface StoredResponse {
  statusCode: number;
  body: string;
  headers: Record<string, string>;
}
export type Claim =
  /**
   * `resumed`: the key was taken over from a run of this same request whose process died before its
   * answer was stored, with what that run recorded it made (null: nothing recorded, or not committed).
   */
  | { kind: 'owner'; startedAt: Date; resumed?: { made: string | null } }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'reused' }
  | { kind: 'in_use' };

const t = idempotencyKeys;
const own = (r: Request) => and(eq(t.userId, r.userId), eq(t.key, r.key));

/**
 * Decides what a request carrying a key does: run (it holds the key now), replay the stored answer,
 * or be refused. Each statement is its own short transaction; the primary key makes one request
 * the owner however many arrive at once.
 */
export async function claim(db: Executor, r: Request): Promise<Claim> {
  const fresh = {
    route: r.route,
    requestHash: r.requestHash,
    state: 'running' as const,
    statusCode: null,
    responseBody: null,
    responseHeaders: null,
    made: null,
    startedAt: r.now,
    expiresAt: new Date(r.now.getTime() + KEY_LIFETIME_MS),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insert(t)
      .values({ userId: r.userId, key: r.key, createdAt: r.now, ...fresh })
      .onConflictDoNothing()
      .returning({ startedAt: t.startedAt });
    if (inserted.length) return { kind: 'owner', startedAt: r.now };
    const [row] = await db.select().from(t).where(own(r));
    if (!row) continue; // purged in between: insert again
    // An expired key is forgotten: the request starts afresh, whatever it carries.
    if (row.expiresAt <= r.now) {
      const taken = await db
        .update(t)
        .set({ ...fresh, createdAt: r.now })
        .where(and(own(r), lte(t.expiresAt, r.now)))
        .returning({ k: t.key });
      if (taken.length) return { kind: 'owner', startedAt: r.now };
      continue;
    }
    if (row.route !== r.route || row.requestHash !== r.requestHash) return { kind: 'reused' };
    if (row.state === 'done' && row.statusCode !== null && row.responseBody !== null) {
      return {
        kind: 'replay',
        response: { statusCode: row.statusCode, body: row.responseBody, headers: row.responseHeaders ?? {} },
      };
    }
    if (row.startedAt.getTime() > r.now.getTime() - ABANDONED_AFTER_MS) return { kind: 'in_use' };
    // Abandoned by a process that died mid-request: the same request takes it over and runs again.
    const taken = await db
      .update(t)
      .set({ startedAt: r.now })
      .where(and(own(r), eq(t.state, 'running'), eq(t.startedAt, row.startedAt)))
      .returning({ k: t.key });
    if (taken.length) return { kind: 'owner', startedAt: r.now, resumed: { made: row.made } };
  }
  return { kind: 'in_use' };
}

/**
 * Claims a new key inside the caller's transaction: true when it was free. The row commits (and
 * the key is held) only if the business commits; a concurrent request with the same key waits on
 * the primary key until then, and false sends it through `claim` (replay, 409 or 422). With the
 * answer, the row is inserted done: nothing is written after the commit. `made`: what the business made
 * (see `Claim`'s `resumed`).
 */
export async function claimIn(
  tx: Executor,
  r: Request,
  answer?: StoredResponse,
  made: string | null = null,
): Promise<boolean> {
  const inserted = await claimInStatement(tx).execute({
    userId: r.userId,
    key: r.key,
    route: r.route,
    requestHash: r.requestHash,
    now: r.now,
    expiresAt: new Date(r.now.getTime() + KEY_LIFETIME_MS),
    state: answer ? 'done' : 'running',
    statusCode: answer?.statusCode ?? null,
    responseBody: answer?.body ?? null,
    responseHeaders: answer?.headers ?? null,
    made,
  });
  return inserted.length > 0;
}
// Prepared, as `complete`: every order with a key runs one of them.
const claimInStatement = preparedPer((ex) => {
  const now = sql.placeholder('now');
  return ex
    .insert(t)
    .values({
      ...placeholders([
        'userId',
        'key',
        'route',
        'requestHash',
        'expiresAt',
        'state',
        'statusCode',
        'responseBody',
        'responseHeaders',
        'made',
      ]),
      startedAt: now as never,
      createdAt: now as never,
    })
    .onConflictDoNothing()
    .returning({ startedAt: t.startedAt })
    .prepare('idempotency_claim_in');
});

/** Whether an earlier request with this key ran or runs (its row is alive): a read, nothing claimed. */
export async function isKept(db: Executor, r: Request): Promise<boolean> {
  const [row] = await db
    .select({ key: t.key })
    .from(t)
    .where(and(own(r), gt(t.expiresAt, r.now)))
    .limit(1);
  return row !== undefined;
}

/** Stores the answer of a request that holds no row (its claim rolled back with a refusal), unless the key was taken meanwhile. */
export async function record(db: Executor, r: Request, response: StoredResponse): Promise<void> {
  await db
    .insert(t)
    .values({
      userId: r.userId,
      key: r.key,
      route: r.route,
      requestHash: r.requestHash,
      state: 'done',
      statusCode: response.statusCode,
      responseBody: response.body,
      responseHeaders: response.headers,
      startedAt: r.now,
      createdAt: r.now,
      expiresAt: new Date(r.now.getTime() + KEY_LIFETIME_MS),
    })
    .onConflictDoNothing();
}

/** Stores the answer, unless another request took the key over meanwhile. */
export async function complete(
  db: Executor,
  r: Pick<Request, 'userId' | 'key'>,
  startedAt: Date,
  response: StoredResponse,
): Promise<void> {
  await completeStatement(db).execute({
    userId: r.userId,
    key: r.key,
    startedAt,
    statusCode: response.statusCode,
    responseBody: response.body,
    responseHeaders: response.headers,
  });
}
const completeStatement = preparedPer((ex) =>
  ex
    .update(t)
    .set({ state: 'done', ...placeholders(['statusCode', 'responseBody', 'responseHeaders']) })
    .where(
      and(
        eq(t.userId, sql.placeholder('userId')),
        eq(t.key, sql.placeholder('key')),
        eq(t.state, 'running'),
        eq(t.startedAt, sql.placeholder('startedAt')),
      ),
    )
    .prepare('idempotency_complete'),
);

/** Frees the key (the request failed without effect): a retry runs the handler again. */
export async function release(db: Executor, r: Pick<Request, 'userId' | 'key'>, startedAt: Date): Promise<void> {
  await db.delete(t).where(and(own(r as Request), eq(t.state, 'running'), eq(t.startedAt, startedAt)));
}

export async function purgeExpired(db: Executor, now: Date): Promise<number> {
  const gone = await db.delete(t).where(lte(t.expiresAt, now)).returning({ k: t.key });
  return gone.length;
}
