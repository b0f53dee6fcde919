import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, freePort, killLeftovers, portOpen, projectRoot, READY_TIMEOUT_MS, spawnServer } from './helpers/child-server.js';

// `npm start` as a user or a container runs it: the process started is npm, and signals sent to
// it must reach the server, which drains and exits, leaving no process behind.

const dir = mkdtempSync(join(tmpdir(), 'foodsave-npm-start-'));
const STAMP = join(projectRoot, 'dist/.build-stamp');
const npmStart = () => spawnServer({ command: ['npm', 'start'], env: bareEnv({ DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' }) });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** The server's own pid, from its first log line. */
const serverPid = (output: string) => Number(/"pid":(\d+)/.exec(output)?.[1]);

beforeAll(() => {
  // dist/ current before the runs below, whatever state the working copy is in.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: projectRoot });
}, READY_TIMEOUT_MS);
afterAll(() => {
  killLeftovers();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('drains and stops the server on SIGTERM sent to npm, and does not rebuild an up-to-date dist/', async () => {
    const builtAt = statSync(STAMP).mtimeMs;
    for (const run of [1, 2]) {
      const server = await npmStart();
      await server.waitReady();
      const pid = serverPid(server.output());
      if (!pid || pid === server.child.pid) throw server.fail(`run ${run}: no server pid distinct from npm's in the log`);
      const code = await server.stop('SIGTERM');
      const output = server.output();
      if (code !== 0 || !output.includes('"signal":"SIGTERM"') || !output.includes('shutting down')) {
        throw server.fail(`run ${run}: npm exited with ${code}; expected 0 after the server's graceful shutdown`);
      }
      expect(await portOpen(server.port), 'the port is closed').toBe(false);
      expect(alive(pid), 'no server process is left behind').toBe(false);
      expect(output).not.toContain('Built dist/');
    }
    expect(statSync(STAMP).mtimeMs, 'dist/ was not rebuilt').toBe(builtAt);
  }, 3 * READY_TIMEOUT_MS);
});

describe('a log reader that stops reading, then goes away', () => {
  // What a supervisor does when it sends SIGTERM and exits: the pipe of the server's standard output
  // is full of lines nobody reads, then has no reader at all.
  const GRACE_MS = 25_000;
  const roles = [
    { script: 'start', portVar: 'PORT' },
    { script: 'worker', portVar: 'WORKER_PORT' },
  ];
  it.each(roles)('npm $script still stops on SIGTERM within the grace period', async ({ script, portVar }) => {
    const port = await freePort();
    const env = bareEnv({ DATA_DIR: join(dir, `data-${script}`), LOG_LEVEL: 'info', [portVar]: String(port) });
    const server = await spawnServer({ command: ['npm', 'run', script], env, port });
    await server.waitReady();
    const pid = serverPid(server.output());
    if (!pid) throw server.fail('no server pid in the log');
    try {
      const stdout = server.child.stdout!;
      stdout.removeAllListeners('data');
      stdout.pause();
      // Each request logs two lines (a long URL in each): far more than a pipe holds.
      const url = `${server.api}/health?filler=${'x'.repeat(2000)}`;
      for (let i = 0; i < 200; i++) await fetch(url).then((r) => r.arrayBuffer());
      server.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      stdout.destroy();
      const bound = new Promise<'alive'>((r) => setTimeout(() => r('alive'), GRACE_MS + 15_000).unref());
      const outcome = await Promise.race([server.exited, bound]);
      if (outcome === 'alive') throw server.fail(`npm run ${script} was still running ${(GRACE_MS + 15_000) / 1000} s after SIGTERM`);
      expect(outcome, 'the drain ended normally').toBe(0);
      expect(alive(pid), 'no server process is left behind').toBe(false);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 3 * READY_TIMEOUT_MS);
});

describe('the start-time build step', () => {
  const build = (cwd: string) => spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd, encoding: 'utf8' });
  /** A deployment: the build script and what it was given, without the sources or esbuild. */
  const deployment = (withDist: boolean) => {
    const root = mkdtempSync(join(dir, 'deploy-'));
    mkdirSync(join(root, 'scripts'));
    cpSync(join(projectRoot, 'scripts/build.mjs'), join(root, 'scripts/build.mjs'));
    if (withDist) {
      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'dist/.build-stamp'), 'prebuilt\n');
    }
    return root;
  };

  it('runs a prebuilt dist/ without sources or esbuild, writing nothing', () => {
    const root = deployment(true);
    const res = build(root);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(readdirSync(root).sort()).toEqual(['dist', 'scripts']);
    expect(readdirSync(join(root, 'dist'))).toEqual(['.build-stamp']);
  });

  it('says in one line what to do when dist/ is missing and esbuild is not installed', () => {
    const res = build(deployment(false));
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Cannot build dist/ (dist/ has not been built): esbuild is not installed. Build where dev dependencies are installed (npm ci; npm run build), or ship dist/.',
    );
  });
});
