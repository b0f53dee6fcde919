import { and, eq, lt } from 'drizzle-orm';
import type { Db, Executor } from '../db/client.js';
import { eventHandlings } from '../db/schema/events.js';
import type { Clock } from '../shared/clock.js';
import { uuidv7 } from '../shared/ids.js';
import type { DomainEvents, EventName } from './event-types.js';
import type { JobQueue } from './queue.js';

export interface EventMeta {
  eventId: string;
  occurredAt: Date;
}
export type EventHandler<E extends EventName> = (payload: DomainEvents[E], meta: EventMeta) => Promise<void>;

export interface Events {
  publish<E extends EventName>(tx: Executor, name: E, payload: DomainEvents[E]): Promise<void>;
  subscribe<E extends EventName>(name: E, handler: string, fn: EventHandler<E>): void;
}

interface EventJob {
  eventId: string;
  occurredAt: string;
  payload: unknown;
}

/** The job that delivers event `name` to one handler. */
export const eventJobName = (name: EventName, handler: string) => `${name}:${handler}`;

const HANDLER_NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const PRUNE_JOB = 'events.prune_handlings';
const KEEP_HANDLINGS_DAYS = 30;

/**
 * Domain events on the job queue. Publishing writes, in the business transaction, one job per
 * subscribed handler: each (event, handler) pair runs after commit, is retried alone, and lands in
 * its own dead-letter queue. A handler that has applied an event is recorded, so a redelivered job
 * does not apply it twice.
 */
export class EventBus implements Events {
  private readonly subscribers = new Map<EventName, string[]>();

  constructor(
    private readonly jobs: JobQueue,
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    jobs.work(PRUNE_JOB, async () => {
      const before = new Date(this.clock.now().getTime() - KEEP_HANDLINGS_DAYS * 86_400_000);
      await this.db.delete(eventHandlings).where(lt(eventHandlings.handledAt, before));
    });
    jobs.schedule(PRUNE_JOB, '17 3 * * *');
  }

  subscribe<E extends EventName>(name: E, handler: string, fn: EventHandler<E>): void {
    if (!HANDLER_NAME.test(handler)) throw new Error(`event handler name "${handler}" must match ${HANDLER_NAME}`);
    const list = this.subscribers.get(name) ?? [];
    if (list.includes(handler)) throw new Error(`"${handler}" subscribed twice to ${name}`);
    list.push(handler);
    this.subscribers.set(name, list);
    this.jobs.work(eventJobName(name, handler), async (job: EventJob) => {
      const done = await this.db
        .select({ h: eventHandlings.handler })
        .from(eventHandlings)
        .where(and(eq(eventHandlings.eventId, job.eventId), eq(eventHandlings.handler, handler)));
      if (done.length > 0) return;
      await fn(job.payload as DomainEvents[E], { eventId: job.eventId, occurredAt: new Date(job.occurredAt) });
      await this.db
        .insert(eventHandlings)
        .values({ eventId: job.eventId, handler, handledAt: this.clock.now() })
        .onConflictDoNothing();
    });
  }

  async publish<E extends EventName>(tx: Executor, name: E, payload: DomainEvents[E]): Promise<void> {
    const occurredAt = this.clock.now();
    const job: EventJob = { eventId: uuidv7(occurredAt.getTime()), occurredAt: occurredAt.toISOString(), payload };
    for (const handler of this.subscribers.get(name) ?? [])
      await this.jobs.send(eventJobName(name, handler), job, { tx });
  }

  /** Every (event, handler) pair registered, for the documentation check. */
  subscriptions(): { event: EventName; handler: string }[] {
    return [...this.subscribers].flatMap(([event, handlers]) => handlers.map((handler) => ({ event, handler })));
  }
}
