import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../shared/startup-error.js';
import { LOCK_FILE, lockDataDir } from './data-dir-lock.js';

const root = mkdtempSync(join(tmpdir(), 'foodsave-lock-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
/** A data directory whose lock names `pid`. */
function lockedBy(pid: number): string {
  const dir = mkdtempSync(join(root, `d${n++}-`));
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, host: 'elsewhere' }));
  return dir;
}
const holder = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid as number;
const running = (cmd: string, args: string[]) => {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
};

describe('the data directory lock', () => {
  it('is taken with our pid and released', () => {
    const dir = mkdtempSync(join(root, 'fresh-'));
    const release = lockDataDir(dir);
    expect(holder(dir)).toBe(process.pid);
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('refuses while another node process holds it, naming the pid and the host', () => {
    const pid = running(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const dir = lockedBy(pid);
    expect(() => lockDataDir(dir)).toThrow(StartupError);
    expect(() => lockDataDir(dir)).toThrow(
      `DATA_DIR ${dir} is in use by another process (pid ${pid} on host elsewhere)`,
    );
    expect(holder(dir)).toBe(pid);
  });

  it('takes over the lock of a process that is gone, of our own pid, and of a pid now running something else', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    // What a live pid runs is read from /proc (Linux); elsewhere a live pid counts as a holder.
    const other = existsSync('/proc') ? [running('sleep', ['60'])] : [];
    for (const pid of [dead, process.pid, ...other]) {
      const dir = lockedBy(pid);
      const release = lockDataDir(dir);
      expect(holder(dir)).toBe(process.pid);
      release();
    }
  });

  it('treats an unreadable lock as stale', () => {
    const dir = mkdtempSync(join(root, 'garbled-'));
    writeFileSync(join(dir, LOCK_FILE), '{"pid":');
    lockDataDir(dir)();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
