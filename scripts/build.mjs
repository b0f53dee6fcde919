// Compiles the TypeScript of src/ and bench/ to dist/ file by file (no bundling) and copies the
// SQL migrations beside the compiled database client. Runs before every `npm start` (< 1 s).
import { build } from 'esbuild';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.includes('test-support') ? [path] : [];
  });

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: [...sources('src'), 'bench/server.ts', 'bench/seed.ts'],
  outdir: 'dist',
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
