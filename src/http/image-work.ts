import { AppError } from '../shared/errors.js';

const RETRY_AFTER_SECONDS = 5;

/**
 * At most `concurrency` image operations (decode, re-encode, resize) at once in this process, and
 * at most `queueMax` waiting for their turn; beyond that the request is refused with 503 and
 * `Retry-After`. Each running operation holds one thread of libuv's pool, the pool that also hashes
 * passwords (argon2), reads files and resolves names: keeping `concurrency` below the pool's size
 * (UV_THREADPOOL_SIZE) leaves threads for sign-ins however many pictures arrive, and the bounded
 * queue bounds the memory that waiting uploads hold.
 */
export class ImageWork {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {}

  get active() {
    return this.#active;
  }

  get waiting() {
    return this.#waiting.length;
  }

  /** Runs `fn` once a place is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Takes a place (waiting for one if need be); the caller must call the returned release once. */
  async acquire(): Promise<() => void> {
    if (this.#active < this.concurrency) {
      this.#active++;
    } else {
      if (this.#waiting.length >= this.queueMax) {
        throw new AppError(
          503,
          'SERVICE_UNAVAILABLE',
          'Too many pictures are being processed; try again in a few seconds',
          undefined,
          {
            'retry-after': String(RETRY_AFTER_SECONDS),
          },
        );
      }
      // The place is handed over by the releasing operation: `active` stays counted.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    };
  }
}
