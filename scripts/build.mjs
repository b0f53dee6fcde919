// Compiles the TypeScript of src/ and bench/ to dist/ file by file (no bundling) and copies the
// data files read at run time (SQL migrations, password lists) beside the compiled code.
//
// `--if-stale` (what `npm start` runs) builds only when dist/ is missing or older than its
// sources, and then writes nothing: a production image ships a prebuilt dist/ without the
// sources or esbuild (a dev dependency) and may run on a read-only file system.
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const STAMP = 'dist/.build-stamp';
const EXTRA_ENTRIES = [
  'bench/server.ts',
  'bench/seed.ts',
  'bench/orders-setup.ts',
  'bench/reviews-setup.ts',
  'bench/ads-setup.ts',
  'bench/dashboard-setup.ts',
  'bench/deals-setup.ts',
  'bench/moderation-setup.ts',
];

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : [path];
  });
const isSource = (path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.includes('test-support');

/** Why dist/ must be built, or null when it is current. */
function staleness() {
  if (!existsSync(STAMP)) return 'dist/ has not been built';
  // A deployment without the sources runs the dist/ it was given.
  if (!existsSync('src')) return null;
  const built = statSync(STAMP).mtimeMs;
  const inputs = [
    ...files('src').filter((f) => !f.endsWith('.test.ts')),
    ...EXTRA_ENTRIES,
    'scripts/build.mjs',
    'package-lock.json',
  ];
  const newer = inputs.find((f) => existsSync(f) && statSync(f).mtimeMs > built);
  return newer ? `${newer} changed since the last build` : null;
}

const ifStale = process.argv.includes('--if-stale');
const reason = staleness();
if (ifStale && reason === null) process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write(
    `Cannot build dist/ (${reason ?? 'build requested'}): esbuild is not installed. Build where dev dependencies are installed (npm ci; npm run build), or ship dist/.\n`,
  );
  process.exit(1);
}

// Built beside dist/ and swapped in at the end, so a server already running from dist/ never
// sees it half written, and a failed build leaves the previous one.
const out = `dist.tmp-${process.pid}`;
rmSync(out, { recursive: true, force: true });
try {
  await esbuild.build({
    entryPoints: [...files('src').filter(isSource), ...EXTRA_ENTRIES],
    outdir: out,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  for (const data of ['src/db/migrations', 'src/shared/password-lists'])
    cpSync(data, join(out, data), { recursive: true });
  writeFileSync(join(out, '.build-stamp'), `${new Date().toISOString()}\n`);
  rmSync('dist', { recursive: true, force: true });
  renameSync(out, 'dist');
} catch (err) {
  rmSync(out, { recursive: true, force: true });
  throw err;
}
if (ifStale) process.stderr.write(`Built dist/ (${reason}).\n`);
