import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';

export type FileArea = 'public' | 'private';

export interface StoredFile {
  /** The bytes as the store sends them: read to the end, or destroyed. */
  body: Readable;
  contentType: string;
  size: number;
}

/** Where uploaded files live: the local disk or an S3-compatible bucket (`FILES_STORAGE`). */
export interface FileStorage {
  put(area: FileArea, key: string, body: Buffer, contentType: string): Promise<void>;
  get(area: FileArea, key: string): Promise<StoredFile | null>;
  /** Deleting a file that is not there succeeds: a deletion may run twice. */
  delete(area: FileArea, key: string): Promise<void>;
  /** A URL the store itself serves the file at for `seconds`; absent when only the API serves files. */
  presignedUrl?(area: FileArea, key: string, seconds: number): Promise<string>;
}

const KEY = /^[a-z0-9][a-z0-9/_-]{0,200}\.(jpg|png|webp|pdf)$/;
const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

export const isValidFileKey = (key: string) => KEY.test(key) && !key.includes('..') && !key.includes('//');
export const contentTypeOf = (key: string) => TYPES[key.split('.').pop()!] ?? 'application/octet-stream';

/** Files on the local disk: `<root>/public/...` served to anyone, `<root>/private/...` only by signed link. */
export class LocalFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private path(area: FileArea, key: string): string {
    if (!isValidFileKey(key)) throw new Error(`invalid file key ${key}`);
    return join(this.root, area, key);
  }

  async put(area: FileArea, key: string, body: Buffer): Promise<void> {
    const path = this.path(area, key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
  }

  async get(area: FileArea, key: string): Promise<StoredFile | null> {
    const file = await open(this.path(area, key)).catch(() => null);
    if (!file) return null;
    try {
      const { size } = await file.stat();
      return { body: file.createReadStream(), contentType: contentTypeOf(key), size };
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  async delete(area: FileArea, key: string): Promise<void> {
    await rm(this.path(area, key), { force: true });
  }
}

/** The directory for files: FILES_DIR, else `<DATA_DIR>/files`, else (in-memory database) a temp dir. */
export function filesRoot(filesDir: string | undefined, dataDir: string): string {
  if (filesDir) return resolve(filesDir);
  if (dataDir.includes('://')) return join(tmpdir(), `foodsave-files-${process.pid}`);
  return resolve(dataDir, 'files');
}

/**
 * URLs of stored files. Public ones: under FILES_PUBLIC_BASE_URL (a CDN) when set, else the API's route.
 * Private ones: short-lived API links, HMAC over key and expiry.
 */
export class FileLinks {
  constructor(
    private readonly secret: string,
    private readonly prefix: string,
    private readonly publicBase?: string,
  ) {}

  private sign(key: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${key}:${expires}`).digest('base64url');
  }

  /** What a public file's URL starts with, before its key: for URLs the database writes (JSON built in SQL). */
  get publicPrefix(): string {
    return this.publicBase ? `${this.publicBase.replace(/\/+$/, '')}/` : `${this.prefix}/files/public/`;
  }

  publicUrl(key: string): string {
    return this.publicPrefix + key;
  }

  privateUrl(key: string, now: Date, ttlSeconds = 300): { url: string; expiresAt: string } {
    const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const url = `${this.prefix}/files/private/${key}?expires=${expires}&signature=${this.sign(key, expires)}`;
    return { url, expiresAt: new Date(expires * 1000).toISOString() };
  }

  verify(key: string, expires: number, signature: string, now: Date): boolean {
    if (expires * 1000 < now.getTime()) return false;
    const expected = Buffer.from(this.sign(key, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
