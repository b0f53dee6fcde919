import type { FastifyRequest } from 'fastify';
import type sharpType from 'sharp';
import type { FileStorage } from '../providers/storage/storage.js';
import { AppError } from '../shared/errors.js';
import { uuidv7 } from '../shared/ids.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
// 40 megapixels: enough for any phone camera, small enough that decoding cannot exhaust memory.
const MAX_PIXELS = 40_000_000;
const IMAGE_FORMATS = { jpeg: 'jpg', png: 'png', webp: 'webp' } as const;

export interface UploadedFile {
  field: string;
  filename: string;
  ext: 'jpg' | 'png' | 'webp' | 'pdf';
  contentType: string;
  body: Buffer;
}

export interface UploadOptions {
  maxFiles: number;
  allowPdf?: boolean;
  /** Code when more than maxFiles arrive (422). */
  tooManyCode?: string;
}

const unsupported = (allowPdf: boolean) =>
  new AppError(415, 'UNSUPPORTED_IMAGE_FORMAT', `Only JPEG, PNG and WebP images${allowPdf ? ' or PDF documents' : ''} are accepted`);

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
    files.push({ field: part.fieldname, filename: part.filename, ...(await normalise(raw, opts.allowPdf ?? false)) });
  }
  return { files, fields };
}

// Loaded on the first upload: the image library costs memory a process without uploads need not pay.
let sharpModule: Promise<typeof sharpType> | undefined;
/** The image library, loaded on first use (also by the services that resize uploaded pictures). */
export const loadSharp = () => (sharpModule ??= import('sharp').then((m) => m.default));

/**
 * The same rules for a file that arrived another way (an image sent as base64 in a JSON body):
 * type from the bytes, size and pixel limits, re-encoded without metadata.
 */
export async function normaliseImage(raw: Buffer): Promise<Pick<UploadedFile, 'ext' | 'contentType' | 'body'>> {
  if (raw.length > MAX_FILE_BYTES) throw new AppError(413, 'PAYLOAD_TOO_LARGE', `A file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MB`);
  return normalise(raw, false);
}

async function normalise(raw: Buffer, allowPdf: boolean): Promise<Pick<UploadedFile, 'ext' | 'contentType' | 'body'>> {
  const sharp = await loadSharp();
  if (raw.subarray(0, 5).toString('latin1') === '%PDF-') {
    if (!allowPdf) throw unsupported(false);
    return { ext: 'pdf', contentType: 'application/pdf', body: raw };
  }
  let format: string | undefined;
  try {
    format = (await sharp(raw, { limitInputPixels: MAX_PIXELS }).metadata()).format;
  } catch {
    throw unsupported(allowPdf);
  }
  const ext = IMAGE_FORMATS[format as keyof typeof IMAGE_FORMATS];
  if (!ext) throw unsupported(allowPdf);
  try {
    const body = await sharp(raw, { limitInputPixels: MAX_PIXELS }).rotate().toFormat(format as keyof sharpType.FormatEnum).toBuffer();
    return { ext, contentType: `image/${format}`, body };
  } catch {
    throw new AppError(415, 'UNSUPPORTED_IMAGE_FORMAT', 'The image could not be decoded (damaged, or larger than 40 megapixels)');
  }
}

const THUMBNAIL_SIDE = 320;
const LARGE_SIDE = 1280;

/**
 * Stores each uploaded picture (already re-encoded by readUploads) in the two public sizes lists and
 * detail pages show, as `<prefix>/<id>-thumb.<ext>` and `<prefix>/<id>-large.<ext>`.
 */
export async function storeImageSizes(storage: FileStorage, prefix: string, files: UploadedFile[], at: Date): Promise<{ id: string; thumbnailKey: string; largeKey: string }[]> {
  const sharp = await loadSharp();
  return Promise.all(
    files.map(async (f) => {
      const id = uuidv7(at.getTime());
      const [thumb, large] = await Promise.all([
        sharp(f.body).resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true }).toBuffer(),
        sharp(f.body).resize(LARGE_SIDE, LARGE_SIDE, { fit: 'inside', withoutEnlargement: true }).toBuffer(),
      ]);
      const thumbnailKey = `${prefix}/${id}-thumb.${f.ext}`;
      const largeKey = `${prefix}/${id}-large.${f.ext}`;
      await Promise.all([storage.put('public', thumbnailKey, thumb, f.contentType), storage.put('public', largeKey, large, f.contentType)]);
      return { id, thumbnailKey, largeKey };
    }),
  );
}
