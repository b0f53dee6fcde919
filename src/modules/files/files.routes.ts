import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { FileLinks, FileStorage } from '../../providers/storage/storage.js';
import { isValidFileKey } from '../../providers/storage/storage.js';
import type { Clock } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';

const tags = ['files'];
const Params = Type.Object({ '*': Type.String({ maxLength: 220 }) });
// The bytes as stored; sent as a stream, so the schema documents them without serialising anything.
const FileBody = Type.Unsafe<Readable>({ type: 'string', format: 'binary' });
const FILE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'];
const fileResponse = {
  response: {
    200: {
      description: 'The file',
      content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: FileBody }])),
    },
  },
};
const redirectToStore = {
  302: {
    type: 'null',
    description: 'With files in a bucket: a redirect to a presigned URL of the store, valid one minute',
    headers: { location: { type: 'string', description: 'The presigned URL' } },
  },
};
// Long enough to follow the redirect; a download that started goes on past it.
const PRESIGNED_SECONDS = 60;
const SignedQuery = Type.Object(
  { expires: Type.Integer({ minimum: 0 }), signature: Type.String({ minLength: 10, maxLength: 100 }) },
  { additionalProperties: false },
);

/**
 * Serves stored files: public ones to anyone, private ones (KYC documents) only through a signed,
 * expiring link, from the disk or redirected to the bucket. The bytes are streamed, never held whole.
 */
export function filesRoutes(storage: FileStorage, links: FileLinks, clock: Clock) {
  return async (app: App) => {
    app.get(
      '/files/public/*',
      {
        config: { access: 'Public', cache: 'immutable' },
        schema: { tags, summary: 'A public file (logos, product pictures)', params: Params, ...fileResponse },
      },
      async (req, reply) => {
        const key = req.params['*'];
        const file = isValidFileKey(key) ? await storage.get('public', key) : null;
        if (!file) throw notFound('File');
        // A key names one upload's bytes for ever: it is their tag, no need to hash them.
        const headers = { etag: `"${key}"`, 'content-length': file.size };
        return reply.type(file.contentType).headers(headers).send(file.body);
      },
    );

    app.get(
      '/files/private/*',
      {
        config: { access: 'Public', cache: 'private' },
        schema: {
          tags,
          summary: 'A private file through a signed link',
          params: Params,
          querystring: SignedQuery,
          response: { ...fileResponse.response, ...redirectToStore },
        },
      },
      async (req, reply) => {
        const key = req.params['*'];
        const allowed = isValidFileKey(key) && links.verify(key, req.query.expires, req.query.signature, clock.now());
        if (!allowed) throw notFound('File');
        // The bytes go from the bucket to the client; the API only checked the link.
        if (storage.presignedUrl) return reply.redirect(await storage.presignedUrl('private', key, PRESIGNED_SECONDS));
        const file = await storage.get('private', key);
        if (!file) throw notFound('File');
        return reply.type(file.contentType).header('content-length', file.size).send(file.body);
      },
    );
  };
}
