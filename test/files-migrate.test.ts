import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/child-server.js';
import { S3Server } from './helpers/s3.js';

// `npm run files:migrate`, the real command, from a files directory to s3rver on 127.0.0.1.

const s3 = new S3Server();
let dir: string;
beforeAll(async () => {
  await s3.start();
  dir = await mkdtemp(join(tmpdir(), 'foodsave-migrate-'));
});
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, bytes: number) {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), Buffer.alloc(bytes, 7));
}

function migrate(env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'files:migrate'],
      { cwd: projectRoot, env: { ...process.env, ...s3.env(), FILES_STORAGE: 'local', FILES_DIR: dir, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run files:migrate', () => {
  it('copies every file once, then only what is new or changed, and fails loudly when the store is down', async () => {
    await put('public/products/p1/a-thumb.jpg', 300);
    await put('public/products/p1/a-large.jpg', 2000);
    await put('private/kyc/s1/doc.pdf', 900);
    await put('public/.DS_Store', 10);

    const first = await migrate();
    expect(first.stdout).toContain('Files: 3 found; copied 3, skipped 0, failed 0');
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`ignored (not a stored file's name): ${join(dir, 'public/.DS_Store')}`);
    expect(await s3.keys('')).toEqual([
      'private/kyc/s1/doc.pdf',
      'public/products/p1/a-large.jpg',
      'public/products/p1/a-thumb.jpg',
    ]);
    expect(await s3.head('private/kyc/s1/doc.pdf')).toMatchObject({
      ContentType: 'application/pdf',
      ContentLength: 900,
    });

    // Written meanwhile: a new file, and one rewritten with another size.
    await put('public/suppliers/s1/logo-1.png', 400);
    await put('public/products/p1/a-large.jpg', 2100);
    const second = await migrate();
    expect(second.stdout).toContain('Files: 4 found; copied 2, skipped 2, failed 0');
    expect(second.code).toBe(0);
    expect((await s3.head('public/products/p1/a-large.jpg')).ContentLength).toBe(2100);

    await s3.stop();
    try {
      const down = await migrate();
      expect(down.stdout).toContain('Files: 4 found; copied 0, skipped 0, failed 4');
      expect(down.stderr).toContain('failed: private/kyc/s1/doc.pdf: ');
      expect(down.code).toBe(1);
    } finally {
      await s3.start();
    }
  });

  it('says what is missing without a bucket', async () => {
    const res = await migrate({ S3_BUCKET: '' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('files:migrate failed: S3_BUCKET: required to copy the files to a bucket');
  });
});
