import { write, writeSync } from 'node:fs';

/**
 * Where the process's log lines go: a file descriptor (standard output) written without ever
 * holding the process. The logger's own output retried a failed write forever in its flush at exit
 * (sleeping between tries), so a server whose log reader had stopped reading, or had gone, never
 * exited. Here a line waits in memory while the output is busy (up to `maxBuffered` characters,
 * beyond which new lines are dropped), a full pipe is tried again later, and any other failure
 * (EPIPE, EBADF...) stops the output for good: the process goes on without its log.
 */
export interface LogOutput {
  write(line: string): void;
  /** At exit: what is still waiting, written at once, giving up after `EXIT_FLUSH_MS` of a full pipe. */
  flushSync(): void;
}

const RETRY_MS = 100;
const EXIT_FLUSH_MS = 1000;
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function createLogOutput(fd: number, maxBuffered = 8 * 1024 * 1024): LogOutput {
  let waiting: string[] = [];
  let size = 0;
  // The bytes being written (or to write again once the pipe has room).
  let current: Buffer | undefined;
  let writing = false;
  // The pipe was full: new lines wait for the next try rather than each trying at once.
  let full: NodeJS.Timeout | undefined;
  let broken = false;

  const take = () => {
    const chunk = Buffer.from(waiting.join(''));
    waiting = [];
    size = 0;
    return chunk;
  };
  const stop = () => {
    broken = true;
    waiting = [];
    current = undefined;
    clearTimeout(full);
  };
  const pump = (): void => {
    if (broken || writing || full) return;
    current ??= waiting.length ? take() : undefined;
    if (!current) return;
    writing = true;
    write(fd, current, (err, n) => {
      writing = false;
      if (err?.code === 'EAGAIN') {
        full = setTimeout(() => {
          full = undefined;
          pump();
        }, RETRY_MS).unref();
        return;
      }
      if (err) return stop();
      current = n < current!.length ? current!.subarray(n) : undefined;
      pump();
    });
  };

  return {
    write(line) {
      if (broken || size + line.length > maxBuffered) return;
      waiting.push(line);
      size += line.length;
      pump();
    },
    flushSync() {
      if (broken) return;
      clearTimeout(full);
      // A write under way is left to land on its own: only what follows it is written here.
      let rest = Buffer.concat([...(writing || !current ? [] : [current]), take()]);
      const deadline = Date.now() + EXIT_FLUSH_MS;
      while (rest.length > 0) {
        try {
          rest = rest.subarray(writeSync(fd, rest));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= deadline) return stop();
          pause(10);
        }
      }
    },
  };
}
