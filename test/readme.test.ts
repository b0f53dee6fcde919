import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bareEnv,
  killLeftovers,
  projectRoot as root,
  READY_TIMEOUT_MS,
  spawnServer,
  type ChildServer,
} from './helpers/child-server.js';

// The README's walkthrough, run as a reader would paste it: `npm run seed`, a real server whose
// log goes to server.log in the directory the blocks run in, then every block opened with
// ```sh walkthrough, in order, in one bash session with `-euo pipefail` and $API set.

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const missing = ['bash', 'jq', 'curl'].filter((cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).error);
if (missing.length) console.warn(`README walkthrough not run: ${missing.join(', ')} not installed`);

/** One script: a marker before each block, so a failure names its block and shows its output alone. */
function script(): string {
  const prelude = [
    'exec 2>&1',
    // A request answered with an error status fails its block (as a reader would notice), and
    // its answer is shown even when the block captures the output in a variable.
    'curl() {',
    '  local body rc=0; body=$(mktemp)',
    '  command curl --fail-with-body "$@" > "$body" || rc=$?',
    '  if [ $rc -ne 0 ]; then printf "request failed (curl exit %s): curl %s\\n" $rc "$*" >&2; cat "$body" >&2; echo >&2; fi',
    '  [ $rc -ne 0 ] || cat "$body"; rm -f "$body"; return $rc',
    '}',
  ];
  const body = blocks.map((b, i) => `printf '\\n@@block ${i}@@\\n'\n${b}`);
  return [...prelude, ...body, `printf '\\n@@vars@@ %s %s\\n' "$SUPPLIER_ID" "$STORE_ID"`, ''].join('\n');
}

function failure(output: string, code: number | null, log: string): Error {
  const marks = [...output.matchAll(/^@@block (\d+)@@$/gm)];
  const last = marks.at(-1);
  const n = last ? Number(last[1]) : -1;
  const own = last ? output.slice(last.index! + last[0].length) : output;
  return new Error(
    `README walkthrough block ${n + 1} of ${blocks.length} failed (exit ${code}).\n--- block ---\n${blocks[n] ?? ''}\n--- its output ---\n${own.trim()}\n` +
      `--- end of server.log ---\n${log.trim().split('\n').slice(-15).join('\n')}`,
  );
}

describe.skipIf(missing.length > 0)('the README walkthrough', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foodsave-readme-'));
  const dataDir = join(dir, 'data');
  let server: ChildServer | undefined;
  let api = '';
  let seedOutput = '';

  beforeAll(async () => {
    // Only the seed may have the embedded database open while it runs: the server starts after.
    const seeded = await promisify(execFile)('npm', ['run', '-s', 'seed'], {
      cwd: root,
      env: bareEnv({ DATA_DIR: dataDir }),
    });
    seedOutput = seeded.stdout;
    // The sources as `npm run dev` runs them, as the tests run everything else.
    server = await spawnServer({ env: bareEnv({ DATA_DIR: dataDir }), logFile: join(dir, 'server.log') });
    api = server.api;
    await server.waitReady();
  }, 2 * READY_TIMEOUT_MS);

  afterAll(async () => {
    await server?.stop();
    killLeftovers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the way its first block says, on seeded data', () => {
    expect(readme).toContain('npm run seed ');
    expect(readme).toContain('npm start > server.log 2>&1 &');
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(seedOutput).toContain('phone +221770000001, password Teranga-Admin-2024');
  });

  it('runs every block in order, ending with the new store public and nearest', async () => {
    const file = join(dir, 'walkthrough.sh');
    writeFileSync(file, script());
    const child = spawn('bash', ['-euo', 'pipefail', file], {
      cwd: dir,
      // The blocks make their test files with the project's packages, as from its directory.
      env: { ...process.env, API: api, NODE_PATH: join(root, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    if (code !== 0) throw failure(output, code, readFileSync(join(dir, 'server.log'), 'utf8'));

    const [, supplierId, storeId] = /^@@vars@@ (\S+) (\S+)$/m.exec(output) ?? [];
    expect(supplierId).toMatch(/^[0-9a-f-]{36}$/);
    expect(storeId).toMatch(/^[0-9a-f-]{36}$/);
    const lastBlock = output.slice(output.lastIndexOf(`@@block ${blocks.length - 1}@@`), output.indexOf('@@vars@@'));
    expect(lastBlock).toContain(storeId);
    expect(lastBlock).toContain('Teranga Médina');

    const supplier = await (await fetch(`${api}/suppliers/${supplierId}`)).json();
    expect(supplier.data.businessName).toBe('Boulangerie Baobab');
    const near = await (await fetch(`${api}/stores/nearby?latitude=14.6841&longitude=-17.4460&radiusKm=3`)).json();
    expect(near.data[0]).toMatchObject({ id: storeId, distanceKm: 0 });
  }, 120_000);
});
