// Builds the operators' console (console/, a Vite single-page app) into console/dist with Vite's
// programmatic API; the API serves it at /console (src/http/console.ts).
//
// `--if-stale` (what `npm start` and the tests' global setup run) builds only when console/dist is
// missing or older than a file of console/, clients/typescript/ (the typed client it imports),
// package-lock.json or this script. A deployment without console/ runs the console/dist it was given
// (or none: the API then answers 503 at /console) and writes nothing.
import { existsSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';

const ROOT = 'console';
const OUT = 'console/dist';
const STAMP = `${OUT}/.build-stamp`;
// Built output (console/dist, and the builds beside it) and installed packages are not sources.
const isInput = (name) => name !== 'node_modules' && !/^dist($|\.)/.test(name);

/** The first file under `dir` modified after `time`, or undefined. */
function newerFile(dir, time) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!isInput(e.name)) continue;
    const path = join(dir, e.name);
    const found = e.isDirectory() ? newerFile(path, time) : statSync(path).mtimeMs > time ? path : undefined;
    if (found) return found;
  }
  return undefined;
}

/** Why console/dist must be built, or null when it is current. */
function staleness() {
  if (!existsSync(STAMP)) return 'console/dist has not been built';
  const built = statSync(STAMP).mtimeMs;
  const file = ['scripts/build-console.mjs', 'package-lock.json'].find(
    (f) => existsSync(f) && statSync(f).mtimeMs > built,
  );
  const newer =
    file ??
    newerFile(ROOT, built) ??
    (existsSync('clients/typescript') ? newerFile('clients/typescript', built) : undefined);
  return newer ? `${newer} changed since the last build` : null;
}

const ifStale = process.argv.includes('--if-stale');
const reason = !existsSync(join(ROOT, 'index.html')) ? null : ifStale ? staleness() : 'build requested';
if (reason === null) process.exit(0);

// The bundle is a production one whatever the API's own NODE_ENV (React checks it at build time).
process.env.NODE_ENV = 'production';
let vite;
try {
  vite = await import('vite');
} catch {
  process.stderr.write(
    `Cannot build console/dist (${reason}): vite is not installed. Build where dev dependencies are installed (npm ci; npm run build), or ship console/dist.\n`,
  );
  process.exit(1);
}

// Built beside console/dist and swapped in, so a server running never reads half a build; the stamp
// takes the time the build started, so a source saved during the build makes the next start build again.
const started = new Date();
const out = `${OUT}.tmp-${process.pid}`;
const old = `${OUT}.old-${process.pid}`;
try {
  await vite.build({
    root: ROOT,
    mode: 'production',
    // Where src/http/console.ts serves it, whatever the config file says.
    base: '/console/',
    logLevel: 'warn',
    build: { outDir: resolve(out), emptyOutDir: true },
  });
  writeFileSync(join(out, '.build-stamp'), `${started.toISOString()}\n`);
  utimesSync(join(out, '.build-stamp'), started, started);
  if (existsSync(OUT)) renameSync(OUT, old);
  try {
    renameSync(out, OUT);
  } catch (err) {
    // Another build of the same sources took the place in between: it serves as well as ours.
    if (!['ENOTEMPTY', 'EEXIST'].includes(err.code)) throw err;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
if (ifStale) process.stderr.write(`Built console/dist (${reason}).\n`);
