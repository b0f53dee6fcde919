// `npm run files:migrate`: copies every uploaded file of the local disk (FILES_DIR, or DATA_DIR/files)
// to the bucket named by the S3_* settings, whatever FILES_STORAGE says (run it before switching).
// A file the bucket already holds with the same size is skipped, so a second run copies only what was
// written meanwhile, and an interrupted run goes on where it stopped. Exit status 1 when a file failed.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { createS3Client, S3FileStorage } from '../src/providers/storage/s3.js';
import { contentTypeOf, type FileArea, filesRoot, isValidFileKey } from '../src/providers/storage/storage.js';
import { StartupError } from '../src/shared/startup-error.js';

const AREAS: FileArea[] = ['public', 'private'];
const AT_ONCE = 8;

interface LocalFile {
  area: FileArea;
  key: string;
  path: string;
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* walk(path);
    else if (e.isFile()) yield path;
  }
}

async function localFiles(root: string, ignored: string[]): Promise<LocalFile[]> {
  const files: LocalFile[] = [];
  for (const area of AREAS) {
    for await (const path of walk(join(root, area))) {
      const key = relative(join(root, area), path).split(sep).join('/');
      if (isValidFileKey(key)) files.push({ area, key, path });
      else ignored.push(path);
    }
  }
  return files;
}

/** One line redrawn in place on a terminal; nothing when the output is a file or a pipe. */
function progress(total: number) {
  const tty = process.stderr.isTTY;
  let last = 0;
  return (done: number, line: string, force = false) => {
    if (!tty || (!force && Date.now() - last < 100)) return;
    last = Date.now();
    const width = 30;
    const full = total ? Math.round((done / total) * width) : width;
    process.stderr.write(`\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${done}/${total} ${line}\x1b[K`);
  };
}

async function main(): Promise<number> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  if (!config.S3_BUCKET) throw new ConfigError('S3_BUCKET: required to copy the files to a bucket');
  const root = filesRoot(config.FILES_DIR, config.DATA_DIR);
  const client = createS3Client(config);
  const bucket = new S3FileStorage(client, config.S3_BUCKET);
  try {
    await bucket.check();
    const ignored: string[] = [];
    const files = await localFiles(root, ignored);
    process.stdout.write(`Copying ${files.length} files from ${root} to the bucket ${config.S3_BUCKET}\n`);
    for (const path of ignored) process.stderr.write(`ignored (not a stored file's name): ${path}\n`);
    const count = { copied: 0, skipped: 0, failed: 0 };
    const failures: string[] = [];
    const show = progress(files.length);
    const summary = () => `copied ${count.copied}, skipped ${count.skipped}, failed ${count.failed}`;
    let next = 0;
    const copyNext = async (): Promise<void> => {
      for (let f = files[next++]; f; f = files[next++]) {
        try {
          const { size } = await stat(f.path);
          if ((await bucket.size(f.area, f.key)) === size) count.skipped++;
          else {
            await bucket.put(f.area, f.key, await readFile(f.path), contentTypeOf(f.key));
            count.copied++;
          }
        } catch (err) {
          count.failed++;
          const cause = (err as { cause?: Error }).cause ?? err;
          failures.push(`${f.area}/${f.key}: ${cause instanceof Error ? cause.message : String(cause)}`);
        }
        show(count.copied + count.skipped + count.failed, summary());
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, copyNext));
    show(files.length, summary(), true);
    if (process.stderr.isTTY) process.stderr.write('\n');
    for (const line of failures.slice(0, 20)) process.stderr.write(`failed: ${line}\n`);
    if (failures.length > 20) process.stderr.write(`... and ${failures.length - 20} more\n`);
    process.stdout.write(`Files: ${files.length} found; ${summary()}\n`);
    return count.failed ? 1 : 0;
  } finally {
    client.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A configuration or a bucket the operator must fix is said in one line.
    const known = err instanceof ConfigError || err instanceof StartupError;
    const text = err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err);
    process.stderr.write(`files:migrate failed: ${text}\n`);
    process.exit(1);
  },
);
