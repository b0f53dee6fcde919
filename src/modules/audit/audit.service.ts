import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { adminActions } from '../../db/schema/audit.js';
import { uuidv7 } from '../../shared/ids.js';

export interface AdminActionInput {
  actorId: string;
  action: string;
  targetType: string;
  targetId: string;
  reason?: string | null;
  data?: Record<string, unknown>;
  at: Date;
}

/** Written in the same transaction as the decision it records. */
export async function recordAdminAction(ex: Executor, a: AdminActionInput): Promise<void> {
  await ex.insert(adminActions).values({
    id: uuidv7(a.at.getTime()),
    actorId: a.actorId,
    action: a.action,
    targetType: a.targetType,
    targetId: a.targetId,
    reason: a.reason ?? null,
    data: a.data ?? null,
    createdAt: a.at,
  });
}

export function listAdminActions(ex: Executor, targetType: string, targetId: string, limit = 50) {
  return ex
    .select()
    .from(adminActions)
    .where(and(eq(adminActions.targetType, targetType), eq(adminActions.targetId, targetId)))
    .orderBy(desc(adminActions.createdAt), desc(adminActions.id))
    .limit(limit);
}
