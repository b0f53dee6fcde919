import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bareEnv,
  freePort,
  killLeftovers,
  portOpen,
  projectRoot,
  READY_TIMEOUT_MS,
  spawnServer,
} from './helpers/child-server.js';

// `npm start` as a user or a container runs it: the process started is npm, and signals sent to
// it must reach the server, which drains and exits, leaving no process behind.

const dir = mkdtempSync(join(tmpdir(), 'foodsave-npm-start-'));
const STAMP = join(projectRoot, 'dist/.build-stamp');
const CONSOLE_STAMP = join(projectRoot, 'console/dist/.build-stamp');
const npmStart = () =>
  spawnServer({ command: ['npm', 'start'], env: bareEnv({ DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' }) });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** The server's own pid, from its first log line. */
const pidIn = (output: string) => Number(/"pid":(\d+)/.exec(output)?.[1]);

/** The server's pid from its log. The log line comes through a pipe, which can lag behind the
 *  answer of /health on a loaded machine: wait for it a little. */
async function serverPid(output: () => string): Promise<number> {
  for (let i = 0; i < 50 && !pidIn(output()); i++) await new Promise((r) => setTimeout(r, 100));
  return pidIn(output());
}

beforeAll(() => {
  // dist/ and the console current before the runs below, whatever state the working copy is in.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: projectRoot });
  execFileSync(process.execPath, ['scripts/build-console.mjs', '--if-stale'], { cwd: projectRoot });
}, READY_TIMEOUT_MS);

/** The console's page and the script it names, from the running server. */
async function consoleLoads(port: number) {
  const base = `http://127.0.0.1:${port}`;
  const page = await fetch(`${base}/console/`);
  const html = await page.text();
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const asset = script ? await fetch(`${base}${script}`) : undefined;
  await asset?.arrayBuffer();
  return { page: page.status, script, asset: asset?.status, type: asset?.headers.get('content-type') };
}
afterAll(() => {
  killLeftovers();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it(
    'drains and stops the server on SIGTERM sent to npm, and does not rebuild an up-to-date dist/ or console',
    async () => {
      const builtAt = statSync(STAMP).mtimeMs;
      const consoleBuiltAt = statSync(CONSOLE_STAMP).mtimeMs;
      for (const run of [1, 2]) {
        const server = await npmStart();
        await server.waitReady();
        const pid = await serverPid(server.output);
        if (!pid || pid === server.child.pid)
          throw server.fail(`run ${run}: no server pid distinct from npm's in the log`);
        if (run === 1) {
          expect(await consoleLoads(server.port), 'the console and its script').toMatchObject({
            page: 200,
            asset: 200,
            type: expect.stringContaining('javascript'),
          });
        }
        const code = await server.stop('SIGTERM');
        const output = server.output();
        if (code !== 0 || !output.includes('"signal":"SIGTERM"') || !output.includes('shutting down')) {
          throw server.fail(`run ${run}: npm exited with ${code}; expected 0 after the server's graceful shutdown`);
        }
        expect(await portOpen(server.port), 'the port is closed').toBe(false);
        expect(alive(pid), 'no server process is left behind').toBe(false);
        expect(output).not.toContain('Built dist/');
        expect(output).not.toContain('Built console/dist');
      }
      expect(statSync(STAMP).mtimeMs, 'dist/ was not rebuilt').toBe(builtAt);
      expect(statSync(CONSOLE_STAMP).mtimeMs, 'the console was not rebuilt').toBe(consoleBuiltAt);
    },
    3 * READY_TIMEOUT_MS,
  );
});

describe('a log reader that stops reading, then goes away', () => {
  // What a supervisor does when it sends SIGTERM and exits: the pipe of the server's standard output
  // is full of lines nobody reads, then has no reader at all.
  const GRACE_MS = 25_000;
  const roles = [
    { script: 'start', portVar: 'PORT' },
    { script: 'worker', portVar: 'WORKER_PORT' },
  ];
  it.each(roles)(
    'npm $script still stops on SIGTERM within the grace period',
    async ({ script, portVar }) => {
      const port = await freePort();
      const env = bareEnv({ DATA_DIR: join(dir, `data-${script}`), LOG_LEVEL: 'info', [portVar]: String(port) });
      const server = await spawnServer({ command: ['npm', 'run', script], env, port });
      await server.waitReady();
      const pid = await serverPid(server.output);
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
        if (outcome === 'alive')
          throw server.fail(`npm run ${script} was still running ${(GRACE_MS + 15_000) / 1000} s after SIGTERM`);
        expect(outcome, 'the drain ended normally').toBe(0);
        expect(alive(pid), 'no server process is left behind').toBe(false);
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    },
    3 * READY_TIMEOUT_MS,
  );
});

describe('the start-time build step', () => {
  const build = (cwd: string, script = 'scripts/build.mjs') =>
    spawnSync(process.execPath, [script, '--if-stale'], { cwd, encoding: 'utf8' });
  const buildConsole = (cwd: string) => build(cwd, 'scripts/build-console.mjs');
  /** A deployment: the build scripts and what it was given, without the sources, esbuild or vite. */
  const deployment = (withDist: boolean) => {
    const root = mkdtempSync(join(dir, 'deploy-'));
    mkdirSync(join(root, 'scripts'));
    for (const script of ['build.mjs', 'build-console.mjs'])
      cpSync(join(projectRoot, 'scripts', script), join(root, 'scripts', script));
    if (withDist) {
      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'dist/.build-stamp'), 'prebuilt\n');
      mkdirSync(join(root, 'console/dist'), { recursive: true });
      writeFileSync(join(root, 'console/dist/index.html'), '<!doctype html>\n');
    }
    return root;
  };

  it('runs a prebuilt dist/ and console without sources, esbuild or vite, writing nothing', () => {
    const root = deployment(true);
    for (const res of [build(root), buildConsole(root)]) {
      expect(res.status, res.stderr).toBe(0);
      expect(res.stderr).toBe('');
    }
    expect(readdirSync(root).sort()).toEqual(['console', 'dist', 'scripts']);
    expect(readdirSync(join(root, 'dist'))).toEqual(['.build-stamp']);
    expect(readdirSync(join(root, 'console/dist'))).toEqual(['index.html']);
  });

  it('has no console to build, and says nothing, without its sources', () => {
    const res = buildConsole(deployment(false));
    expect([res.status, res.stderr]).toEqual([0, '']);
  });

  it('says in one line what to do when the console must be built and vite is not installed', () => {
    const root = deployment(false);
    mkdirSync(join(root, 'console'));
    writeFileSync(join(root, 'console/index.html'), '<!doctype html>\n');
    const res = buildConsole(root);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Cannot build console/dist (console/dist has not been built): vite is not installed. Build where dev dependencies are installed (npm ci; npm run build), or ship console/dist.',
    );
  });

  it('says in one line what to do when dist/ is missing and esbuild is not installed', () => {
    const res = build(deployment(false));
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Cannot build dist/ (dist/ has not been built): esbuild is not installed. Build where dev dependencies are installed (npm ci; npm run build), or ship dist/.',
    );
  });
});
