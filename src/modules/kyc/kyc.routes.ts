import { bodyMayBeEmpty } from '../../http/optional-body.js';
import { readUploads } from '../../http/uploads.js';
import { SUPPLIER_LISTINGS } from '../../listings/index.js';
import type { App } from '../../http/types.js';
import { IdParamsSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import {
  AttemptDetailSchema,
  AttemptIdParamsSchema,
  AttemptsQuerySchema,
  AttemptSummarySchema,
  KycFormSchema,
  KycStatsSchema,
  OptionalReasonBodySchema,
  OwnAttemptSchema,
  OwnKycSchema,
  PendingQuerySchema,
  ReasonBodySchema,
  ReviewBodySchema,
  StatsQuerySchema,
  SupplierIdParamsSchema,
  SupplierKycDecisionSchema,
} from './kyc.schemas.js';
import { KYC_UPLOAD } from './kyc.submission.js';
import type { KycService } from './kyc.service.js';

const sup = { access: 'SUP' } as const;
const adm = { access: 'ADM' } as const;
const supTags = ['suppliers: KYC'];
const tags = ['admin: KYC'];

const SUBMIT_DESCRIPTION = [
  'multipart/form-data with two files: `idDocument` (identity document) and `businessDocument` (business registration),',
  'each a JPEG, PNG, WebP image or a PDF of at most 5 MB (the type is read from the bytes; images are re-encoded).',
  'Optional text fields: `documentType` (NATIONAL_ID, PASSPORT, DRIVING_LICENCE, RESIDENCE_PERMIT) and `businessRegistrationNumber`.',
].join(' ');

export function kycRoutes(kyc: KycService) {
  return async (app: App) => {
    // ---- supplier ----
    app.post(
      '/suppliers/profile/kyc',
      {
        config: { ...sup, listings: SUPPLIER_LISTINGS },
        schema: {
          tags: supTags,
          summary: 'Submit KYC documents',
          description: SUBMIT_DESCRIPTION,
          consumes: ['multipart/form-data'],
          form: KycFormSchema,
          errors: [404, 409],
          response: { 201: Ok(OwnAttemptSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await kyc.submit(req.user, await readUploads(req, KYC_UPLOAD)))),
    );

    app.get(
      '/suppliers/profile/kyc',
      {
        config: sup,
        schema: {
          tags: supTags,
          summary: 'Own KYC state and attempts, with short-lived links to the documents',
          errors: [404],
          response: { 200: Ok(OwnKycSchema) },
        },
      },
      async (req) => ok(await kyc.getOwn(req.user)),
    );

    // ---- administration under /admin/suppliers ----
    app.get(
      '/admin/suppliers/kyc/pending',
      {
        config: adm,
        schema: {
          tags,
          summary: 'Pending KYC (oldest first)',
          querystring: PendingQuerySchema,
          response: { 200: OkPage(AttemptSummarySchema) },
        },
      },
      async (req) => {
        const r = await kyc.listPending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/admin/suppliers/:id/kyc/verify',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        preValidation: bodyMayBeEmpty,
        schema: {
          tags,
          summary: "Approve the supplier's pending KYC attempt",
          params: IdParamsSchema,
          body: OptionalReasonBodySchema,
          errors: [409],
          response: { 200: Ok(AttemptSummarySchema) },
        },
      },
      async (req) => ok(await kyc.approveSupplier(req.user, req.params.id, req.body.reason)),
    );

    app.post(
      '/admin/suppliers/:id/kyc/reject',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: "Reject the supplier's pending KYC attempt",
          params: IdParamsSchema,
          body: ReasonBodySchema,
          errors: [409],
          response: { 200: Ok(AttemptSummarySchema) },
        },
      },
      async (req) => ok(await kyc.rejectSupplier(req.user, req.params.id, req.body.reason)),
    );

    // ---- administration under /admin/kyc ----
    app.get(
      '/admin/kyc/stats',
      {
        config: adm,
        schema: {
          tags,
          summary: 'Attempts per state and average review time',
          querystring: StatsQuerySchema,
          response: { 200: Ok(KycStatsSchema) },
        },
      },
      async (req) => ok(await kyc.stats(req.query)),
    );

    app.get(
      '/admin/kyc/pending',
      {
        config: adm,
        schema: {
          tags,
          summary: 'KYC awaiting review (oldest first)',
          querystring: PendingQuerySchema,
          response: { 200: OkPage(AttemptSummarySchema) },
        },
      },
      async (req) => {
        const r = await kyc.listPending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/kyc/attempts',
      {
        config: adm,
        schema: {
          tags,
          summary: 'All attempts, filtered by status or supplier, newest first unless sorted',
          querystring: AttemptsQuerySchema,
          response: { 200: OkPage(AttemptSummarySchema) },
        },
      },
      async (req) => {
        const r = await kyc.listAttempts(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/kyc/attempts/:attemptId',
      {
        config: adm,
        schema: {
          tags,
          summary: 'One attempt: documents (links valid 5 minutes) and decision history',
          params: AttemptIdParamsSchema,
          response: { 200: Ok(AttemptDetailSchema) },
        },
      },
      async (req) => ok(await kyc.getAttempt(req.params.attemptId)),
    );

    app.post(
      '/admin/kyc/attempts/:attemptId/review',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Approve or reject a pending attempt (reason required to reject)',
          params: AttemptIdParamsSchema,
          body: ReviewBodySchema,
          errors: [409],
          response: { 200: Ok(AttemptSummarySchema) },
        },
      },
      async (req) => ok(await kyc.review(req.user, req.params.attemptId, req.body)),
    );

    app.post(
      '/admin/kyc/suppliers/:supplierId/force-verify',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Approve KYC and verify the supplier without review',
          params: SupplierIdParamsSchema,
          body: ReasonBodySchema,
          errors: [409],
          response: { 200: Ok(SupplierKycDecisionSchema) },
        },
      },
      async (req) => ok(await kyc.forceVerify(req.user, req.params.supplierId, req.body.reason)),
    );

    app.post(
      '/admin/kyc/suppliers/:supplierId/request-resubmission',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Ask the supplier for new documents',
          params: SupplierIdParamsSchema,
          body: ReasonBodySchema,
          errors: [409],
          response: { 200: Ok(SupplierKycDecisionSchema) },
        },
      },
      async (req) => ok(await kyc.requestResubmission(req.user, req.params.supplierId, req.body.reason)),
    );
  };
}
