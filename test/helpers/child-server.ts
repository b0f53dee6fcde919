import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

// Servers started as real processes (`npm start`, `node src/server.ts`), for the tests of what
// only a process shows: signals, exit codes, start-up messages, files left on disk.

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The sources as `npm run dev` runs them. */
export const FROM_SOURCES = [process.execPath, '--import', 'tsx', 'src/server.ts'];

/** Ready within this long even on a loaded machine; the test's own timeout must be longer. */
export const READY_TIMEOUT_MS = 120_000;

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** True while something accepts connections on the port. */
export const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** The environment of a bare machine: none of the application's variables, except `extra`. */
export function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development' };
  for (const key of [
    'DATABASE_URL',
    'REDIS_URL',
    'LOG_LEVEL',
    'SMS_PROVIDER',
    'EMAIL_PROVIDER',
    'SUPER_ADMIN_PHONE',
    'SUPER_ADMIN_PASSWORD',
    'RATE_LIMIT_MAX',
    'AUTH_RATE_LIMIT_MAX',
    'HOST',
    'PORT',
    'DATA_DIR',
    'FILES_DIR',
  ])
    delete env[key];
  return { ...env, ...extra };
}

const running = new Set<ChildProcess>();

/** Kills what a failed test left running (call from afterAll). */
export function killLeftovers(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface ChildServer {
  child: ChildProcess;
  port: number;
  api: string;
  /** Standard output and error so far, interleaved as they came. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Polls `/health` until it answers 200; fails with the output if the process exits or the time runs out. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** Sends the signal and waits for the exit (SIGKILL after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
  /** An error whose message ends with the process's output, for assertions about it. */
  fail(message: string): Error;
}

export interface SpawnOptions {
  /** The command and its arguments (default: the server from the sources). */
  command?: string[];
  /** The whole environment (see bareEnv); PORT and HOST are added unless it has them. */
  env: NodeJS.ProcessEnv;
  /** Default: a free port. */
  port?: number;
  /** The output is also appended to this file. */
  logFile?: string;
}

export async function spawnServer(opts: SpawnOptions): Promise<ChildServer> {
  const port = opts.port ?? (await freePort());
  const [cmd, ...args] = opts.command ?? FROM_SOURCES;
  const child = spawn(cmd!, args, {
    cwd: projectRoot,
    env: { PORT: String(port), HOST: '127.0.0.1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (opts.logFile) appendFileSync(opts.logFile, chunk);
  };
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const api = `http://127.0.0.1:${port}/api/v1`;
  const fail = (message: string) =>
    new Error(`${message}\n--- output of \`${[cmd, ...args].join(' ')}\` ---\n${output.trim()}\n---`);

  return {
    child,
    port,
    api,
    output: () => output,
    exited,
    fail,
    async waitReady(timeoutMs = READY_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw fail(`the server exited (${await exited}) before it was ready`);
        const ok = await fetch(`${api}/health`, { signal: AbortSignal.timeout(5000) }).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw fail(`the server was not ready within ${timeoutMs / 1000} s`);
    },
    async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
