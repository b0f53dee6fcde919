import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { App } from '../../http/types.js';
import { filesRoot } from '../../providers/storage/storage.js';

/** Test support for the KYC suites: real multipart bodies, real images and a real PDF. */

export interface Part {
  name: string;
  value?: string;
  filename?: string;
  contentType?: string;
  data?: Buffer;
}

export function multipartBody(parts: Part[]) {
  const boundary = `----kyc${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = p.data
      ? `form-data; name="${p.name}"; filename="${p.filename ?? `${p.name}.bin`}"\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}`
      : `form-data; name="${p.name}"`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`),
      p.data ?? Buffer.from(p.value ?? ''),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function postMultipart(app: App, url: string, token: string | undefined, parts: Part[]) {
  const { payload, contentType } = multipartBody(parts);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload });
  return { status: res.statusCode, body: res.json() };
}

export const jpeg = (width = 64, height = 48, exifCopyright?: string) => {
  const img = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } }).jpeg();
  return (exifCopyright ? img.withMetadata({ exif: { IFD0: { Copyright: exifCopyright } } }) : img).toBuffer();
};
export const png = (width = 32, height = 32) =>
  sharp({ create: { width, height, channels: 4, background: { r: 10, g: 90, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();

/** A small but complete PDF 1.4 document (one page, one line of text) with a correct cross-reference table. */
export function pdf(text = 'Registre du commerce'): Buffer {
  const stream = `BT /F1 18 Tf 40 100 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export const idPart = (data: Buffer, filename = 'id.jpg', contentType = 'image/jpeg'): Part => ({
  name: 'idDocument',
  filename,
  contentType,
  data,
});
export const businessPart = (data: Buffer, filename = 'rc.pdf', contentType = 'application/pdf'): Part => ({
  name: 'businessDocument',
  filename,
  contentType,
  data,
});

/** A valid submission: a JPEG identity document and a PDF registration. */
export async function validParts(extra: Part[] = []): Promise<Part[]> {
  return [idPart(await jpeg()), businessPart(pdf()), ...extra];
}

/** The KYC files stored for a supplier, straight from the private storage directory. */
export async function storedKycFiles(app: App, supplierId: string): Promise<string[]> {
  const { FILES_DIR, DATA_DIR } = app.ctx.config;
  try {
    return (await readdir(join(filesRoot(FILES_DIR, DATA_DIR), 'private', 'kyc', supplierId))).sort();
  } catch {
    return [];
  }
}

/** The storage key inside a signed link `/api/v1/files/private/<key>?expires=..&signature=..`. */
export const keyOf = (url: string) =>
  decodeURIComponent(new URL(url, 'http://x').pathname.replace('/api/v1/files/private/', ''));
