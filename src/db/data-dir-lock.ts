import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { StartupError } from '../shared/startup-error.js';

export const LOCK_FILE = 'foodsave.lock';

interface Holder {
  pid: number;
  host?: string;
}

/**
 * The embedded database is one process's files: two servers on the same DATA_DIR would both
 * write them and corrupt them. The first takes `DATA_DIR/foodsave.lock` (created exclusively,
 * holding its pid); another process refuses to start while that pid lives. A lock left by a
 * process that died without closing (killed, crashed) is taken over.
 *
 * A pid equal to ours is a lock from an earlier life of this process (a container restarted,
 * where the server is always pid 1); a live pid that is not a node process is a number reused
 * after a reboot or in a new container. The host name is kept for the message only: a new
 * container on the same volume has another one.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw asStartupError(err, dataDir, path);
      const holder = readHolder(path);
      if (holder && isRunning(holder.pid)) {
        const where = holder.host && holder.host !== hostname() ? ` on host ${holder.host}` : '';
        throw new StartupError(
          `DATA_DIR ${dataDir} is in use by another process (pid ${holder.pid}${where}): stop it first, or give this server another DATA_DIR`,
        );
      }
      // Stale: its process is gone. Removed and created again; a server starting at the same
      // moment that wins the creation makes this one refuse on the second attempt.
      unlinkSync(path);
    }
  }
  return () => {
    if (readHolder(path)?.pid === process.pid) unlinkSync(path);
  };
}

function readHolder(path: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    return Number.isInteger(holder.pid) ? holder : null;
  } catch {
    return null; // unreadable or half written: treated as stale
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync(cmdline)) return true; // no /proc to tell more
  try {
    return readFileSync(cmdline, 'utf8').includes('node');
  } catch {
    return true;
  }
}

function asStartupError(err: unknown, dataDir: string, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EEXIST')
    return new StartupError(`DATA_DIR ${dataDir} is being opened by another process at the same time`);
  if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
    return new StartupError(`DATA_DIR ${dataDir} is not writable (${code} on ${path})`);
  }
  return err as Error;
}
