import { KYC_ID_DOCUMENT_TYPES, type KycDocumentKind, type KycIdDocumentType } from '../../db/schema/kyc.js';
import type { UploadedFile, UploadOptions } from '../../http/uploads.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';

/** What `readUploads` is asked for: two files at most, images or PDF. */
export const KYC_UPLOAD: UploadOptions = { kind: 'kyc', maxFiles: 2, allowPdf: true, tooManyCode: 'TOO_MANY_FILES' };

const FILE_FIELDS: Record<string, KycDocumentKind> = {
  idDocument: 'ID_DOCUMENT',
  businessDocument: 'BUSINESS_DOCUMENT',
};
// Letters, digits and the separators registries use (e.g. "SN-DKR-2024-B-12345", "RC 123/456").
const REGISTRATION_NUMBER = /^[A-Za-z0-9][A-Za-z0-9 ./-]{0,63}$/;

export interface KycSubmission {
  documents: { kind: KycDocumentKind; file: UploadedFile }[];
  documentType: KycIdDocumentType | null;
  businessRegistrationNumber: string | null;
}

/** Checks the form of a submission; every problem is reported at once, by field. */
export function parseSubmission(upload: { files: UploadedFile[]; fields: Record<string, string> }): KycSubmission {
  const details: ErrorDetail[] = [];
  const byKind = new Map<KycDocumentKind, UploadedFile>();
  for (const file of upload.files) {
    const kind = FILE_FIELDS[file.field];
    if (!kind)
      details.push({
        field: `body.${file.field}`,
        message: 'is not an allowed file field (idDocument, businessDocument)',
      });
    else if (byKind.has(kind)) {
      throw new AppError(422, 'TOO_MANY_FILES', `Send one ${file.field} file`, [
        { field: `body.${file.field}`, message: 'was sent more than once' },
      ]);
    } else byKind.set(kind, file);
  }
  for (const [field, kind] of Object.entries(FILE_FIELDS)) {
    if (byKind.has(kind)) continue;
    const sentAsText = field in upload.fields;
    details.push({
      field: `body.${field}`,
      message: sentAsText ? 'must be a file, not a text field' : 'is required (a JPEG, PNG, WebP or PDF file)',
    });
  }

  const { documentType: rawType, businessRegistrationNumber: rawNumber, ...unknown } = upload.fields;
  // Forms often send optional fields empty: an empty value counts as not given.
  const documentType = rawType || undefined;
  const businessRegistrationNumber = rawNumber || undefined;
  for (const name of Object.keys(unknown)) {
    if (!(name in FILE_FIELDS)) details.push({ field: `body.${name}`, message: 'is not an allowed property' });
  }
  if (documentType !== undefined && !(KYC_ID_DOCUMENT_TYPES as readonly string[]).includes(documentType)) {
    details.push({ field: 'body.documentType', message: `must be one of: ${KYC_ID_DOCUMENT_TYPES.join(', ')}` });
  }
  if (businessRegistrationNumber !== undefined && !REGISTRATION_NUMBER.test(businessRegistrationNumber)) {
    details.push({
      field: 'body.businessRegistrationNumber',
      message: 'must be 1 to 64 letters, digits, spaces or . / -',
    });
  }
  if (details.length) throw new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', details);

  return {
    documents: [...byKind].map(([kind, file]) => ({ kind, file })),
    documentType: (documentType as KycIdDocumentType | undefined) ?? null,
    businessRegistrationNumber: businessRegistrationNumber ?? null,
  };
}
