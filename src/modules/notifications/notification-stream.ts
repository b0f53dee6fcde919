import type { Redis } from 'ioredis';

const CHANNEL = 'foodsave:notifications:stream';

/** `payment`: a payment's outcome, told to its payer as it happens so the app need not poll (not kept). */
export type LiveEvent = 'payment';

export interface StreamEvent {
  event: 'notification' | 'unread' | LiveEvent;
  data: unknown;
}

type Listener = (e: StreamEvent) => void;

/**
 * Delivers live events to the users' open streams (GET /notifications/stream). With Redis every
 * event goes through one pub/sub channel, so a client connected to any instance hears what
 * another instance produced; without Redis only this instance's clients exist to hear it.
 */
export class NotificationStream {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closers = new Set<() => void>();
  private readonly everyEvent: ((userId: string, e: StreamEvent) => void)[] = [];
  private subscriber: Redis | null = null;

  constructor(private readonly redis: Redis | null) {}

  async start(onError: (err: unknown) => void): Promise<void> {
    if (!this.redis) return;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        const { userId, ...event } = JSON.parse(message) as StreamEvent & { userId: string };
        this.dispatch(userId, event);
      } catch {
        // A message this version cannot read is skipped.
      }
    });
    await this.subscriber.subscribe(CHANNEL);
  }

  publish(userId: string, event: StreamEvent): void {
    // Nobody listens anywhere when no instance has subscribers; Redis cannot tell, so always send.
    if (this.redis) this.redis.publish(CHANNEL, JSON.stringify({ userId, ...event })).catch(() => undefined);
    else this.dispatch(userId, event);
  }

  /** Hears every user's events on this instance, wherever they were produced (cache invalidation). */
  onEveryEvent(listener: (userId: string, e: StreamEvent) => void): void {
    this.everyEvent.push(listener);
  }

  /** Listens to a user's events; `close` is called at shutdown. Returns the unsubscribe function. */
  subscribe(userId: string, listener: Listener, close: () => void): () => void {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    this.closers.add(close);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(userId);
      this.closers.delete(close);
    };
  }

  get connections(): number {
    return this.closers.size;
  }

  /** Ends every open stream (server shutdown must not wait for clients that never hang up). */
  closeAll(): void {
    for (const close of [...this.closers]) close();
  }

  async close(): Promise<void> {
    this.closeAll();
    await this.subscriber?.quit().catch(() => undefined);
  }

  private dispatch(userId: string, event: StreamEvent): void {
    for (const l of this.everyEvent) l(userId, event);
    for (const l of this.listeners.get(userId) ?? []) l(event);
  }
}
