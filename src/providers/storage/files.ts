import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/client.js';
import type { Jobs } from '../../jobs/queue.js';
import { createS3Client, S3FileStorage } from './s3.js';
import { type FileArea, type FileStorage, filesRoot, LocalFileStorage } from './storage.js';

export const DELETE_FILES_JOB = 'files.delete';

/**
 * The file storage services use: the store's operations, and deletions that are recorded so that
 * no file is forgotten while the store is down.
 */
export interface Files extends FileStorage {
  /** Deletes the files by a job written in `tx`: once the rows that forget them commit, retried while it fails. */
  deleteLater(tx: Executor, area: FileArea, keys: string[]): Promise<void>;
  /**
   * Deletes files no row points to (an upload whose rows were not written): now, or by a job when
   * the store fails, so an outage leaves no file unrecorded.
   */
  discard(area: FileArea, keys: string[]): Promise<void>;
}

/** The disk (FILES_DIR) or a bucket (FILES_STORAGE=s3), with the deletion job registered on `jobs`. */
export async function createFiles(config: Config, jobs: Jobs, log: FastifyBaseLogger): Promise<Files> {
  let store: FileStorage;
  if (config.FILES_STORAGE === 's3') {
    const s3 = new S3FileStorage(createS3Client(config), config.S3_BUCKET!, log);
    await s3.check();
    store = s3;
  } else store = new LocalFileStorage(filesRoot(config.FILES_DIR, config.DATA_DIR));
  return withDeletions(store, jobs, log);
}

function withDeletions(store: FileStorage, jobs: Jobs, log: FastifyBaseLogger): Files {
  // A file already gone is not an error: the job may run again after a partial failure. The tries
  // span about a day (30 s doubling) before the job is kept in the dead-letter queue.
  jobs.work(
    DELETE_FILES_JOB,
    async ({ area, keys }: { area: FileArea; keys: string[] }) => {
      await Promise.all(keys.map((k) => store.delete(area, k)));
    },
    { retryLimit: 10, retryDelaySeconds: 30 },
  );
  return {
    put: (area, key, body, contentType) => store.put(area, key, body, contentType),
    get: (area, key) => store.get(area, key),
    delete: (area, key) => store.delete(area, key),
    presignedUrl: store.presignedUrl?.bind(store),
    async deleteLater(tx: Executor, area: FileArea, keys: string[]) {
      if (keys.length) await jobs.send(DELETE_FILES_JOB, { area, keys }, { tx });
    },
    async discard(area: FileArea, keys: string[]) {
      const results = await Promise.allSettled(keys.map((k) => store.delete(area, k)));
      const left = keys.filter((_, i) => results[i]!.status === 'rejected');
      if (!left.length) return;
      await jobs.send(DELETE_FILES_JOB, { area, keys: left }).catch((err: unknown) => {
        log.error({ err, area, keys: left }, 'stored files left behind: neither deleted nor recorded for deletion');
      });
    },
  };
}
