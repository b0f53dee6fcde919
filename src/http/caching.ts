import compress from '@fastify/compress';
import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { constants } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * How long clients and shared caches may keep a public read, by kind of data (docs/decisions.md,
 * "HTTP caching and compression"). A route declares its kind as `config.cache`, beside its `access`.
 */
export const CACHE_POLICIES = {
  /** Stock, prices and expiry (product and deal lists and pages): a few seconds. */
  live: 'public, max-age=5',
  /** Directories changed by their owners' edits: stores, suppliers, associations, reviews, plans. */
  directory: 'public, max-age=30',
  /** The OpenAPI document: it changes with a deployment. */
  document: 'public, max-age=300',
  /** Public files: every upload gets a new name, so the bytes under a name never change. */
  immutable: 'public, max-age=31536000, immutable',
  /** A page naming the files of one deployment (the console's index.html): kept, but asked about every time. */
  page: 'no-cache',
  /** Reachable without a token, but for one person only (a file behind a signed link). */
  private: 'private, no-store',
} as const;
export type CachePolicy = keyof typeof CACHE_POLICIES;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public read clients may keep, and for how long; without it nothing a route answers is stored. */
    cache?: CachePolicy;
    /** A Public route whose answer changes with an optional token (a favourite flag): private when one is sent. */
    perViewer?: boolean;
  }
}

const NO_STORE = 'no-store';
const PRIVATE = CACHE_POLICIES.private;

/** Adds `name` (lower case, as @fastify/compress compares it) to the Vary header once. */
function vary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const list =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
  if (!list.some((v) => v.toLowerCase() === name || v === '*')) reply.header('vary', [...list, name].join(', '));
}

/** `If-None-Match` against our tag, by the weak comparison RFC 9110 prescribes for it. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const ours = opaque(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === ours);
}

/** A weak tag of a body: every encoding of the same JSON is the same answer. */
export const weakEtagOf = (body: string | Buffer) => `W/"${hash('sha1', body, 'base64url')}"`;

// Answers smaller than this go out as they are: compressing them saves less than the headers cost.
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Cache-Control on every answer, ETag and 304 on public reads, and compression negotiated with the
 * client. Install before any route: @fastify/compress attaches itself to routes as they are declared,
 * after this hook, so the tag is taken on the uncompressed body (weak: every encoding of it is the
 * same JSON) and a 304 has no body to compress. Streams that take over the socket (the notification
 * stream) pass through no hook: never buffered, never compressed.
 */
export async function installHttpCaching(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (req, reply, payload) => {
    const { access, cache, perViewer } = req.routeOptions.config ?? {};
    if (perViewer) vary(reply, 'authorization');
    if ((access && access !== 'Public') || (perViewer && req.headers.authorization)) {
      reply.header('cache-control', PRIVATE);
      return payload;
    }
    // A policy applies to what a read answers; a write or an error is never stored.
    const read = req.method === 'GET' || req.method === 'HEAD';
    const policy = read && reply.statusCode < 400 ? cache : undefined;
    if (!policy) {
      // Routes of plugins (the reference page's assets) keep the header they set.
      if (cache || reply.statusCode >= 400 || !reply.hasHeader('cache-control'))
        reply.header('cache-control', NO_STORE);
      return payload;
    }
    reply.header('cache-control', CACHE_POLICIES[policy]);
    if (policy === 'private' || reply.statusCode !== 200) return payload;
    vary(reply, 'accept-encoding');
    let etag = reply.getHeader('etag');
    if (etag === undefined) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      etag = weakEtagOf(payload);
      reply.header('etag', etag);
    }
    if (!matches(req.headers['if-none-match'], String(etag))) return payload;
    // A stored file's stream is not sent: close it (a bucket's connection goes back to the pool).
    if (payload instanceof Readable) payload.destroy();
    reply.code(304).removeHeader('content-type').removeHeader('content-length');
    return null;
  });

  await app.register(compress, {
    // gzip first when the client takes both: on a 16 KB list it costs half brotli's CPU for 3 % more bytes.
    encodings: ['gzip', 'br'],
    threshold: COMPRESSION_THRESHOLD,
    // Quality 4 (the plugin's default, restated): brotli's own default of 11 costs tens of
    // milliseconds per answer for a few per cent less.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
    // Only answers are compressed: request bodies are read as sent, as before.
    globalDecompression: false,
  });
}
