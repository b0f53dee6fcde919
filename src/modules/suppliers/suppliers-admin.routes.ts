import { bodyMayBeEmpty } from '../../http/optional-body.js';
import type { App } from '../../http/types.js';
import { SUPPLIER_LISTINGS } from '../../listings/index.js';
import { IdParamsSchema, Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './suppliers.schemas.js';
import type { SuppliersAdminService } from './suppliers-admin.service.js';

const tags = ['admin: suppliers'];
const adm = { access: 'ADM' } as const;

export function suppliersAdminRoutes(admin: SuppliersAdminService) {
  return async (app: App) => {
    app.get(
      '/admin/suppliers',
      {
        config: adm,
        schema: {
          tags,
          summary: 'List suppliers (newest first unless sorted)',
          querystring: S.AdminListQuerySchema,
          response: { 200: OkPage(S.AdminSupplierSchema) },
        },
      },
      async (req) => {
        const r = await admin.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/suppliers/pending',
      {
        config: adm,
        schema: {
          tags,
          summary: 'Suppliers waiting for verification (oldest first unless sorted)',
          querystring: S.PendingQuerySchema,
          response: { 200: OkPage(S.AdminSupplierSchema) },
        },
      },
      async (req) => {
        const r = await admin.pending(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/suppliers/:id',
      {
        config: adm,
        schema: {
          tags,
          summary: 'One supplier in any state, deleted ones included, with its owner and commission history',
          params: IdParamsSchema,
          response: { 200: Ok(S.AdminSupplierCommissionSchema) },
        },
      },
      async (req) => ok(await admin.get(req.params.id)),
    );

    app.patch(
      '/admin/suppliers/:id/verify',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        preValidation: bodyMayBeEmpty,
        schema: {
          tags,
          summary: 'Verify a pending supplier (its KYC must be approved); an optional reason goes to the log',
          params: IdParamsSchema,
          body: S.VerifyBodySchema,
          errors: [409],
          response: { 200: Ok(S.AdminSupplierSchema) },
        },
      },
      async (req) => ok(await admin.verify(req.user, req.params.id, req.body.reason)),
    );

    app.patch(
      '/admin/suppliers/:id/reject',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Reject a pending supplier or withdraw a verification',
          params: IdParamsSchema,
          body: S.RejectBodySchema,
          errors: [409],
          response: { 200: Ok(S.AdminSupplierSchema) },
        },
      },
      async (req) => ok(await admin.reject(req.user, req.params.id, req.body.reason)),
    );

    app.patch(
      '/admin/suppliers/:id/commission',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Change the commission rate; answers with the change history',
          params: IdParamsSchema,
          body: S.CommissionBodySchema,
          response: { 200: Ok(S.AdminSupplierCommissionSchema) },
        },
      },
      async (req) => ok(await admin.setCommission(req.user, req.params.id, req.body)),
    );

    app.post(
      '/admin/suppliers/bulk-verify',
      {
        config: { ...adm, listings: SUPPLIER_LISTINGS },
        schema: {
          tags,
          summary: 'Verify up to 100 suppliers; each id succeeds or is skipped on its own',
          body: S.BulkVerifyBodySchema,
          response: { 200: Ok(S.BulkVerifyResultSchema) },
        },
      },
      async (req) => ok(await admin.bulkVerify(req.user, req.body.ids, req.body.reason)),
    );
  };
}
