import type { FastifyRequest } from 'fastify';
import type sharpType from 'sharp';
import type { Files } from '../providers/storage/files.js';
import { AppError } from '../shared/errors.js';
import { uuidv7 } from '../shared/ids.js';
import type { ImageWork } from './image-work.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
const IMAGE_FORMATS = { jpeg: 'jpg', png: 'png', webp: 'webp' } as const;

/**
 * The most pixels each kind of picture may have, read from the file's header before anything is
 * decoded: a few kilobytes of PNG can declare 40 megapixels, 160 MB once decoded. Photos (24 MP)
 * take any phone camera's usual setting; logos and advertising pictures are shown small.
 */
export const IMAGE_KINDS = {
  product: { name: 'a product picture', megapixels: 24 },
  deal: { name: 'a deal picture', megapixels: 24 },
  review: { name: 'a review picture', megapixels: 24 },
  kyc: { name: 'a KYC document', megapixels: 24 },
  association: { name: 'an association document', megapixels: 24 },
  logo: { name: 'a logo', megapixels: 16 },
  advertising: { name: 'an advertising picture', megapixels: 16 },
} as const;
export type ImageKind = keyof typeof IMAGE_KINDS;

export interface UploadedFile {
  field: string;
  filename: string;
  ext: 'jpg' | 'png' | 'webp' | 'pdf';
  contentType: string;
  body: Buffer;
}

export interface UploadOptions {
  /** Sets the pixel limit (IMAGE_KINDS). */
  kind: ImageKind;
  maxFiles: number;
  allowPdf?: boolean;
  /** Code when more than maxFiles arrive (422). */
  tooManyCode?: string;
}

const unsupported = (allowPdf: boolean) =>
  new AppError(
    415,
    'UNSUPPORTED_IMAGE_FORMAT',
    `Only JPEG, PNG and WebP images${allowPdf ? ' or PDF documents' : ''} are accepted`,
  );

/**
 * Reads a multipart request. The type of each file is decided from its bytes, never from its
 * name or declared type; images are decoded and re-encoded, which drops their metadata (EXIF,
 * GPS position) and anything hidden after the picture.
 */
export async function readUploads(req: FastifyRequest, opts: UploadOptions) {
  if (!req.isMultipart()) throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the files as multipart/form-data');
  const files: UploadedFile[] = [];
  const fields: Record<string, string> = {};
  for await (const part of req.parts({ limits: { fileSize: MAX_FILE_BYTES, files: opts.maxFiles + 1, fields: 20 } })) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value).trim();
      continue;
    }
    const raw = await part.toBuffer();
    if (files.length >= opts.maxFiles) {
      throw new AppError(422, opts.tooManyCode ?? 'TOO_MANY_FILES', `At most ${opts.maxFiles} file(s) per request`);
    }
    const image = { work: req.server.ctx.images, kind: opts.kind, field: `body.${part.fieldname}` };
    files.push({
      field: part.fieldname,
      filename: part.filename,
      ...(await normalise(raw, image, opts.allowPdf ?? false)),
    });
  }
  return { files, fields };
}

// Loaded on the first upload: the image library costs memory a process without uploads need not pay.
let sharpModule: Promise<typeof sharpType> | undefined;
/** The image library, loaded on first use (also by the services that resize uploaded pictures). */
export const loadSharp = () =>
  (sharpModule ??= import('sharp').then(({ default: sharp }) => {
    // Every upload is a new picture: libvips' cache of recent operations would only hold memory.
    sharp.cache(false);
    // One libvips thread per operation: parallelism comes from ImageWork, whose bound then holds for the CPU too.
    sharp.concurrency(1);
    return sharp;
  }));

interface ImageTarget {
  work: ImageWork;
  kind: ImageKind;
  /** The field named in errors (`body.images`). */
  field: string;
}

/**
 * The same rules for a file that arrived another way (an image sent as base64 in a JSON body):
 * type from the bytes, size and pixel limits, re-encoded without metadata.
 */
export async function normaliseImage(
  raw: Buffer,
  target: ImageTarget,
): Promise<Pick<UploadedFile, 'ext' | 'contentType' | 'body'>> {
  if (raw.length > MAX_FILE_BYTES)
    throw new AppError(413, 'PAYLOAD_TOO_LARGE', `A file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MB`);
  return normalise(raw, target, false);
}

function tooManyPixels(target: ImageTarget, width: number, height: number): AppError {
  const { name, megapixels } = IMAGE_KINDS[target.kind];
  const found = `${width}x${height} pixels (${((width * height) / 1e6).toFixed(1)} megapixels)`;
  return new AppError(
    422,
    'IMAGE_TOO_LARGE',
    `The picture has too many pixels: ${name} may have at most ${megapixels} megapixels`,
    [{ field: target.field, message: `is ${found}; ${name} may have at most ${megapixels} megapixels` }],
  );
}

async function normalise(
  raw: Buffer,
  target: ImageTarget,
  allowPdf: boolean,
): Promise<Pick<UploadedFile, 'ext' | 'contentType' | 'body'>> {
  const sharp = await loadSharp();
  if (raw.subarray(0, 5).toString('latin1') === '%PDF-') {
    if (!allowPdf) throw unsupported(false);
    return { ext: 'pdf', contentType: 'application/pdf', body: raw };
  }
  // The header only: nothing is decoded before the pixel count is known.
  const read = () =>
    sharp(raw, { limitInputPixels: false })
      .metadata()
      .catch(() => Promise.reject(unsupported(allowPdf)));
  const meta = await target.work.run(read);
  const ext = IMAGE_FORMATS[meta.format as keyof typeof IMAGE_FORMATS];
  if (!ext || !meta.width || !meta.height) throw unsupported(allowPdf);
  const limit = IMAGE_KINDS[target.kind].megapixels * 1_000_000;
  if (meta.width * meta.height > limit) throw tooManyPixels(target, meta.width, meta.height);
  const damaged = () =>
    new AppError(415, 'UNSUPPORTED_IMAGE_FORMAT', 'The image could not be decoded (damaged or truncated)');
  const encode = () =>
    sharp(raw, { limitInputPixels: limit })
      .rotate()
      .toFormat(meta.format as keyof sharpType.FormatEnum)
      .toBuffer()
      .catch(() => Promise.reject(damaged()));
  return { ext, contentType: `image/${meta.format}`, body: await target.work.run(encode) };
}

interface ImageKeys {
  id: string;
  thumbnailKey: string;
  largeKey: string;
}

const THUMBNAIL_SIDE = 320;
const LARGE_SIDE = 1280;

/**
 * Stores each uploaded picture (already re-encoded by readUploads) in the two public sizes lists and
 * detail pages show, as `<prefix>/<id>-thumb.<ext>` and `<prefix>/<id>-large.<ext>`. All or none:
 * when one file cannot be stored, those that were are discarded and the first failure is thrown.
 */
export async function storeImageSizes(
  { storage, images }: { storage: Files; images: ImageWork },
  prefix: string,
  files: UploadedFile[],
  at: Date,
): Promise<ImageKeys[]> {
  const sharp = await loadSharp();
  const resize = (f: UploadedFile, side: number) =>
    sharp(f.body).resize(side, side, { fit: 'inside', withoutEnlargement: true }).toBuffer();
  const stored: string[] = [];
  const put = async (key: string, body: Buffer, contentType: string) => {
    await storage.put('public', key, body, contentType);
    stored.push(key);
  };
  const made = await Promise.allSettled(
    files.map(async (f) => {
      const id = uuidv7(at.getTime());
      // One place in the queue, one size after the other: a picture never holds two threads.
      const [thumb, large] = await images.run(async () => [
        await resize(f, THUMBNAIL_SIDE),
        await resize(f, LARGE_SIDE),
      ]);
      const thumbnailKey = `${prefix}/${id}-thumb.${f.ext}`;
      const largeKey = `${prefix}/${id}-large.${f.ext}`;
      // Both settle before the failure is known, so no put ends after the discard below.
      const puts = await Promise.allSettled([
        put(thumbnailKey, thumb, f.contentType),
        put(largeKey, large, f.contentType),
      ]);
      const bad = puts.find((p) => p.status === 'rejected');
      if (bad) throw bad.reason;
      return { id, thumbnailKey, largeKey };
    }),
  );
  const failed = made.find((m) => m.status === 'rejected');
  if (!failed) return made.map((m) => (m as PromiseFulfilledResult<ImageKeys>).value);
  await storage.discard('public', stored);
  throw failed.reason;
}
