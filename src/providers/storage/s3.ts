import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { AppError } from '../../shared/errors.js';
import { StartupError } from '../../shared/startup-error.js';
import { contentTypeOf, type FileArea, type FileStorage, type StoredFile } from './storage.js';

export type S3Settings = Pick<
  Config,
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_BUCKET'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
  | 'S3_CHECKSUMS'
>;

// Public objects are named for ever (a new upload gets a new key), so a CDN may keep them.
const CACHE_CONTROL: Record<FileArea, string> = {
  public: 'public, max-age=31536000, immutable',
  private: 'private, no-store',
};

/** 503 with Retry-After: the upload can succeed once the store answers again. */
export const storageUnavailable = () =>
  new AppError(503, 'FILE_STORAGE_UNAVAILABLE', 'File storage cannot be reached; try again shortly', undefined, {
    'retry-after': '10',
  });

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export function createS3Client(s: S3Settings): S3Client {
  const checksums = s.S3_CHECKSUMS === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  return new S3Client({
    region: s.S3_REGION,
    endpoint: s.S3_ENDPOINT,
    forcePathStyle: s.S3_FORCE_PATH_STYLE,
    // Unset: the SDK's own chain (environment, instance or task role).
    credentials:
      s.S3_ACCESS_KEY_ID && s.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: s.S3_ACCESS_KEY_ID, secretAccessKey: s.S3_SECRET_ACCESS_KEY }
        : undefined,
    // Some S3-compatible stores (s3rver, older MinIO) refuse the checksums the SDK adds by default.
    requestChecksumCalculation: checksums,
    responseChecksumValidation: checksums,
    // A store that is down must answer an upload within seconds, not hold it: one retry, short timeouts.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2_000, socketTimeout: 20_000 },
  });
}

/**
 * Files in an S3-compatible bucket, under `public/` and `private/` as on the disk. Every failure of
 * the store is 503 FILE_STORAGE_UNAVAILABLE; the log says when it starts and when it ends.
 */
export class S3FileStorage implements FileStorage {
  private down = false;

  constructor(
    readonly client: S3Client,
    private readonly bucket: string,
    private readonly log?: FastifyBaseLogger,
  ) {}

  private async call<T>(run: () => Promise<T>, missing?: T): Promise<T> {
    try {
      const out = await run();
      if (this.down) this.log?.info('file storage reachable again');
      this.down = false;
      return out;
    } catch (err) {
      if (missing !== undefined && statusOf(err) === 404) return missing;
      if (!this.down) this.log?.warn({ err }, 'file storage unreachable');
      this.down = true;
      throw Object.assign(storageUnavailable(), { cause: err });
    }
  }

  put(area: FileArea, key: string, body: Buffer, contentType: string): Promise<void> {
    const input = { Bucket: this.bucket, Key: `${area}/${key}`, Body: body, ContentType: contentType };
    const command = new PutObjectCommand({ ...input, ContentLength: body.length, CacheControl: CACHE_CONTROL[area] });
    return this.call(async () => void (await this.client.send(command)));
  }

  get(area: FileArea, key: string): Promise<StoredFile | null> {
    return this.call(async () => {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: `${area}/${key}` }));
      const body = out.Body as Readable;
      return { body, contentType: out.ContentType ?? contentTypeOf(key), size: out.ContentLength ?? 0 };
    }, null);
  }

  delete(area: FileArea, key: string): Promise<void> {
    const command = new DeleteObjectCommand({ Bucket: this.bucket, Key: `${area}/${key}` });
    return this.call(async () => void (await this.client.send(command)));
  }

  /** The object's size, or null when the bucket has no such object. */
  size(area: FileArea, key: string): Promise<number | null> {
    const command = new HeadObjectCommand({ Bucket: this.bucket, Key: `${area}/${key}` });
    return this.call(async () => (await this.client.send(command)).ContentLength ?? 0, null);
  }

  // Signed by the SDK with the machine's time, which the store checks: not the application's clock.
  presignedUrl(area: FileArea, key: string, seconds: number): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: `${area}/${key}` });
    return this.call(() => getSignedUrl(this.client, command, { expiresIn: seconds }));
  }

  /**
   * A missing bucket stops the start; a store out of reach or a key without the right to look at
   * the bucket (some stores' scoped keys) is a warning: uploads answer 503 until it answers.
   */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      if (statusOf(err) === 404) throw new StartupError(`S3_BUCKET: no bucket "${this.bucket}" in this store`);
      this.log?.warn({ err }, `file storage: bucket "${this.bucket}" could not be checked`);
    }
  }
}
