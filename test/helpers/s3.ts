import { ListObjectsV2Command, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { createS3Client } from '../../src/providers/storage/s3.js';

/**
 * A real S3-protocol server (s3rver) on 127.0.0.1, a random port and a directory of its own, with
 * one bucket. `stop()` and `start()` again keep the port and the objects: an outage of the store.
 */
export class S3Server {
  readonly bucket = 'foodsave-test';
  private server?: S3rver;
  private port = 0;
  private dir = '';

  async start(): Promise<string> {
    this.dir ||= await mkdtemp(join(tmpdir(), 'foodsave-s3-'));
    this.server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      directory: this.dir,
      silent: true,
      configureBuckets: [{ name: this.bucket }],
    });
    this.port = (await this.server.run()).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Down at once: open connections are cut, as when the store's host goes away. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.httpServer?.closeAllConnections();
    await server?.close();
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The configuration of an app that keeps its files in this bucket. */
  env(): Record<string, string> {
    return {
      FILES_STORAGE: 's3',
      S3_ENDPOINT: this.url,
      S3_REGION: 'us-east-1',
      S3_BUCKET: this.bucket,
      // s3rver's fixed key pair.
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
      // s3rver 3.7 refuses the SDK's default checksums (DESIGN.md section 11).
      S3_CHECKSUMS: 'when_required',
    };
  }

  client(): S3Client {
    return createS3Client({
      S3_ENDPOINT: this.url,
      S3_REGION: 'us-east-1',
      S3_BUCKET: this.bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: true,
      S3_CHECKSUMS: 'when_required',
    });
  }

  /** The keys of the bucket under `prefix`, sorted. */
  async keys(prefix: string): Promise<string[]> {
    const client = this.client();
    try {
      const out = await client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    } finally {
      client.destroy();
    }
  }

  /** An object's headers as the store keeps them. */
  async head(key: string) {
    const client = this.client();
    try {
      return await client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    } finally {
      client.destroy();
    }
  }
}
