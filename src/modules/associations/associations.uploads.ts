import { ASSOCIATION_DOCUMENT_KINDS, type AssociationDocumentKind } from '../../db/schema/associations.js';
import type { UploadedFile, UploadOptions } from '../../http/uploads.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';

/** One file per request, image or PDF (the type is read from the bytes). */
export const ASSOCIATION_UPLOAD: UploadOptions = {
  kind: 'association',
  maxFiles: 1,
  allowPdf: true,
  tooManyCode: 'TOO_MANY_FILES',
};

type Upload = { files: UploadedFile[]; fields: Record<string, string> };

const invalid = (details: ErrorDetail[]) => new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', details);

/** The form of `POST /associations/me/documents`: a `document` file and its `kind`. */
export function parseDocument(upload: Upload): { kind: AssociationDocumentKind; file: UploadedFile } {
  const details: ErrorDetail[] = [];
  const { kind, ...unknown } = upload.fields;
  for (const name of Object.keys(unknown))
    details.push({ field: `body.${name}`, message: 'is not an allowed property' });
  for (const f of upload.files)
    if (f.field !== 'document')
      details.push({ field: `body.${f.field}`, message: 'is not an allowed file field (document)' });
  const file = upload.files.find((f) => f.field === 'document');
  if (!file) details.push({ field: 'body.document', message: 'is required (a JPEG, PNG, WebP or PDF file)' });
  if (!kind)
    details.push({ field: 'body.kind', message: `is required: one of ${ASSOCIATION_DOCUMENT_KINDS.join(', ')}` });
  else if (!(ASSOCIATION_DOCUMENT_KINDS as readonly string[]).includes(kind))
    details.push({ field: 'body.kind', message: `must be one of: ${ASSOCIATION_DOCUMENT_KINDS.join(', ')}` });
  if (details.length) throw invalid(details);
  return { kind: kind as AssociationDocumentKind, file: file! };
}

/** The form of `POST /associations/me/reports/:reportId/pdf`: one `pdf` file, a PDF. */
export function parseReportPdf(upload: Upload): UploadedFile {
  const details: ErrorDetail[] = Object.keys(upload.fields).map((name) => ({
    field: `body.${name}`,
    message: 'is not an allowed property',
  }));
  for (const f of upload.files)
    if (f.field !== 'pdf') details.push({ field: `body.${f.field}`, message: 'is not an allowed file field (pdf)' });
  const file = upload.files.find((f) => f.field === 'pdf');
  if (!file) details.push({ field: 'body.pdf', message: 'is required (a PDF file)' });
  if (details.length) throw invalid(details);
  if (file!.ext !== 'pdf') throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'A report is attached as a PDF document');
  return file!;
}
