import { bodyMayBeEmpty } from '../../http/optional-body.js';
import type { App } from '../../http/types.js';
import { readUploads } from '../../http/uploads.js';
import { OkListing, okListing } from '../../listings/index.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './associations.schemas.js';
import type { AssociationsAdminService } from './associations-admin.service.js';
import type { AssociationsService } from './associations.service.js';
import { ASSOCIATION_UPLOAD } from './associations.uploads.js';

const tags = ['associations'];
const adminTags = ['admin: associations'];
// Public reads: kept by clients and shared caches for seconds (src/http/caching.ts).
const pub = { access: 'Public', cache: 'directory' } as const;
const own = { access: 'ASSOCIATION' } as const;
const adm = { access: 'ADM' } as const;

export function associationsRoutes(associations: AssociationsService, admin: AssociationsAdminService) {
  return async (app: App) => {
    // ---- public (verified associations only)
    app.get(
      '/associations',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Search verified associations by words (accents and typos tolerated), city, category of need',
          querystring: S.SearchQuerySchema,
          response: { 200: OkListing(S.PublicAssociationSchema) },
        },
      },
      async (req) => {
        const r = await associations.search(req.query);
        return okListing(r.items, r.meta);
      },
    );

    app.get(
      '/associations/verified',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Verified associations by name or newest verification',
          querystring: S.VerifiedQuerySchema,
          response: { 200: OkListing(S.PublicAssociationSchema) },
        },
      },
      async (req) => {
        const r = await associations.verified(req.query);
        return okListing(r.items, r.meta);
      },
    );

    app.get(
      '/associations/nearby',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Verified associations within a radius, nearest first',
          querystring: S.NearbyQuerySchema,
          response: { 200: OkListing(S.NearbyAssociationSchema) },
        },
      },
      async (req) => {
        const r = await associations.nearby(req.query);
        return okListing(r.items, r.meta);
      },
    );

    // ---- the association's own
    app.post(
      '/associations/register',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary: 'Register the association (submitted for verification)',
          body: S.RegisterBodySchema,
          errors: [409],
          response: { 201: Ok(S.OwnAssociationSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await associations.register(req.user, req.body))),
    );

    app.get(
      '/associations/me',
      {
        config: own,
        schema: {
          tags,
          summary: 'Own profile in any verification state, with its documents (signed links)',
          errors: [404],
          response: { 200: Ok(S.OwnAssociationSchema) },
        },
      },
      async (req) => ok(await associations.getOwn(req.user)),
    );

    app.put(
      '/associations/me',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary: 'Change the profile (a rejected association goes back to review)',
          body: S.UpdateBodySchema,
          errors: [404],
          response: { 200: Ok(S.OwnAssociationSchema) },
        },
      },
      async (req) => ok(await associations.update(req.user, req.body)),
    );

    app.post(
      '/associations/me/documents',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary:
            'Add a document for the verification: multipart/form-data with `kind` and one file `document` (JPEG, PNG, WebP or PDF, at most 5 MB); private',
          consumes: ['multipart/form-data'],
          form: S.DocumentFormSchema,
          errors: [404, 422],
          response: { 201: Ok(S.OwnAssociationSchema) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(ok(await associations.addDocument(req.user, await readUploads(req, ASSOCIATION_UPLOAD)))),
    );

    app.delete(
      '/associations/me/documents/:documentId',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary: 'Remove a document',
          params: S.DocumentIdParamsSchema,
          errors: [404],
          response: { 200: Ok(S.OwnAssociationSchema) },
        },
      },
      async (req) => ok(await associations.removeDocument(req.user, req.params.documentId)),
    );

    app.post(
      '/associations/me/reports',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary: 'Publish an activity report (public while the association is verified)',
          body: S.CreateReportBodySchema,
          errors: [404],
          response: { 201: Ok(S.ReportSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await associations.createReport(req.user, req.body))),
    );

    app.get(
      '/associations/me/reports',
      {
        config: own,
        schema: {
          tags,
          summary: 'Own reports, the latest period first',
          querystring: S.PageOnlyQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.ReportSchema) },
        },
      },
      async (req) => {
        const r = await associations.ownReports(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.post(
      '/associations/me/reports/:reportId/pdf',
      {
        config: { ...own, listings: ['associations.'] },
        schema: {
          tags,
          summary: 'Attach or replace the PDF of a report: multipart/form-data with one file `pdf` (at most 5 MB)',
          params: S.ReportIdParamsSchema,
          consumes: ['multipart/form-data'],
          form: S.ReportPdfFormSchema,
          errors: [404],
          response: { 200: Ok(S.ReportSchema) },
        },
      },
      async (req) =>
        ok(
          await associations.attachReportPdf(req.user, req.params.reportId, await readUploads(req, ASSOCIATION_UPLOAD)),
        ),
    );

    app.get(
      '/associations/:associationId',
      {
        config: pub,
        schema: {
          tags,
          summary: 'One verified association',
          params: S.AssociationIdParamsSchema,
          errors: [404],
          response: { 200: Ok(S.PublicAssociationSchema) },
        },
      },
      async (req) => ok(await associations.getPublic(req.params.associationId)),
    );

    app.get(
      '/associations/:associationId/reports',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Reports of a verified association, the latest period first',
          params: S.AssociationIdParamsSchema,
          querystring: S.PageOnlyQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.ReportSchema) },
        },
      },
      async (req) => {
        const r = await associations.publicReports(req.params.associationId, req.query);
        return okPage(r.items, r.meta);
      },
    );

    // ---- administration
    app.get(
      '/admin/associations',
      {
        config: adm,
        schema: {
          tags: adminTags,
          summary: 'All associations (newest first unless sorted)',
          querystring: S.AdminListQuerySchema,
          response: { 200: OkPage(S.AdminAssociationSchema) },
        },
      },
      async (req) => {
        const r = await admin.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/associations/pending',
      {
        config: adm,
        schema: {
          tags: adminTags,
          summary: 'Associations awaiting verification (oldest submission first)',
          querystring: S.PendingQuerySchema,
          response: { 200: OkPage(S.AdminAssociationSchema) },
        },
      },
      async (req) => {
        const r = await admin.pending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/associations/stats',
      {
        config: adm,
        schema: {
          tags: adminTags,
          summary: 'Counts by verification state, recent registrations, reports',
          response: { 200: Ok(S.AdminStatsSchema) },
        },
      },
      async () => ok(await admin.stats()),
    );

    app.post(
      '/admin/associations/:associationId/verify',
      {
        config: { ...adm, listings: ['associations.'] },
        preValidation: bodyMayBeEmpty,
        schema: {
          tags: adminTags,
          summary: 'Verify a pending association (it must have sent a document); an optional reason goes to the log',
          params: S.AssociationIdParamsSchema,
          body: S.VerifyBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.AdminAssociationSchema) },
        },
      },
      async (req) => ok(await admin.verify(req.user, req.params.associationId, req.body.reason)),
    );

    app.post(
      '/admin/associations/:associationId/reject',
      {
        config: { ...adm, listings: ['associations.'] },
        schema: {
          tags: adminTags,
          summary: 'Reject a pending association or withdraw a verification, with the reason told to it',
          params: S.AssociationIdParamsSchema,
          body: S.RejectBodySchema,
          errors: [404, 409],
          response: { 200: Ok(S.AdminAssociationSchema) },
        },
      },
      async (req) => ok(await admin.reject(req.user, req.params.associationId, req.body.reason)),
    );
  };
}
