import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './child-server.js';

// A PostgreSQL server of the test's own, made from the machine's binaries, that the test may stop
// and start again: the shared server of a run is never stopped.

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's binaries, if any. */
function binaries(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT).filter(
    (v) => existsSync(join(ROOT, v, 'bin/pg_ctl')) && existsSync(join(ROOT, v, 'bin/initdb')),
  );
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest && join(ROOT, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` account. */
function runAs(): { uid: number; gid: number } | undefined | 'impossible' {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) return 'impossible';
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/** Why a server of its own cannot be made here, or undefined when it can. */
export function ownPostgresUnavailable(): string | undefined {
  if (!binaries()) return `no PostgreSQL binaries under ${ROOT}`;
  if (runAs() === 'impossible') return 'running as root without a postgres account to run the server as';
  return undefined;
}

export interface OwnPostgres {
  /** A URL of its `postgres` database (superuser, no password). */
  url: string;
  start(): void;
  /** `pg_ctl stop` in the given mode: `fast` ends the sessions (57P01), `immediate` drops them. */
  stop(mode: 'fast' | 'immediate'): void;
  /** Stops the server (if running) and removes its files. */
  remove(): void;
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const bin = binaries()!;
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-pg-'));
  if (user && user !== 'impossible') chownSync(dir, user.uid, user.gid);
  const port = await freePort();
  const run = (tool: string, args: string[]) => {
    const [cmd, all] = user ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    try {
      execFileSync(cmd, all, { stdio: 'pipe', timeout: 120_000 });
    } catch (err) {
      const e = err as { stderr?: Buffer; stdout?: Buffer; message: string };
      throw new Error(
        `${tool} ${args.join(' ')}: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`,
      );
    }
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=30`;
  const server: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']),
    stop: (mode) => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    remove: () => {
      if (existsSync(join(data, 'postmaster.pid'))) server.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  return server;
}
